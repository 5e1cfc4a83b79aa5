package scn

import (
	"fmt"
	"io/fs"
	"path/filepath"
	"sort"
)

// Files returns the scenario files (*.scn) anywhere under dir, sorted, so
// every replay of a corpus (tests, fuzz seeds, the zoo, sealfuzz replay)
// sees the same files in the same order. A folder with none is an error:
// a corpus that silently replays nothing proves nothing.
func Files(dir string) ([]string, error) {
	var files []string
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() && filepath.Ext(path) == ".scn" {
			files = append(files, path)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	if len(files) == 0 {
		return nil, fmt.Errorf("%s: no .scn files", dir)
	}
	sort.Strings(files)
	return files, nil
}
