package corpus

import (
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// scenarios lists the .scn files of fsys, sorted.
func scenarios(t *testing.T, fsys fs.FS) []string {
	t.Helper()
	var out []string
	err := fs.WalkDir(fsys, ".", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() && filepath.Ext(path) == ".scn" {
			out = append(out, path)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(out)
	return out
}

// TestEmbedsEveryScenario: the embedded corpus is the folder's, file for
// file and byte for byte.
func TestEmbedsEveryScenario(t *testing.T) {
	disk, embedded := scenarios(t, os.DirFS(".")), scenarios(t, FS())
	if len(disk) == 0 {
		t.Fatal("no scenario in the corpus folder")
	}
	if !slices.Equal(disk, embedded) {
		for _, p := range disk {
			if !slices.Contains(embedded, p) {
				t.Errorf("%s is not embedded (add its folder to the go:embed line)", p)
			}
		}
		t.Fatalf("the folder has %d scenarios, the embedded corpus %d", len(disk), len(embedded))
	}
	for _, p := range disk {
		a, err := os.ReadFile(filepath.FromSlash(p))
		if err != nil {
			t.Fatal(err)
		}
		b, err := fs.ReadFile(FS(), p)
		if err != nil {
			t.Fatal(err)
		}
		if string(a) != string(b) {
			t.Fatalf("%s differs from its embedded copy", p)
		}
	}
}
