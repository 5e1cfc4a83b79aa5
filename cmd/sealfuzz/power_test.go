package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sealgate/sealgate/internal/zoo"
)

// TestPowerCorpus measures the corpus technique, from a folder with no
// corpus (it is built in), on two zoo bugs: the table says the corpus
// finds each as the zoo expects, and the report lands in -out.
func TestPowerCorpus(t *testing.T) {
	dir := t.TempDir()
	bugs := []zoo.Bug{zoo.ReleaseAtEnd, zoo.FirstSecretPerMember}
	t.Chdir(t.TempDir())
	var out, errb bytes.Buffer
	code := run([]string{"power", "-techniques", "corpus", "-bugs", bugs[0].Name + "," + bugs[1].Name, "-out", dir}, &out, &errb)
	if code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, out.String(), errb.String())
	}
	table, err := os.ReadFile(filepath.Join(dir, "power.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, b := range bugs {
		want := map[bool]string{true: "| 1/1 |", false: "| 0/1 |"}[b.Corpus]
		found := false
		for _, row := range strings.Split(string(table), "\n") {
			if strings.HasPrefix(row, "| "+b.Name+" |") {
				found = true
				if !strings.Contains(row, want) {
					t.Errorf("%s: want %s (zoo: Corpus %v): %s", b.Name, want, b.Corpus, row)
				}
			}
		}
		if !found {
			t.Errorf("no row for %s:\n%s", b.Name, table)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "power.png")); err != nil {
		t.Fatal(err)
	}
}
