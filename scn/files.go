package scn

import (
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"sort"
)

// Files returns the scenario files (*.scn) anywhere under dir, sorted, so
// every replay of a corpus (tests, fuzz seeds, the zoo, sealfuzz replay)
// sees the same files in the same order. A folder with none is an error:
// a corpus that silently replays nothing proves nothing.
func Files(dir string) ([]string, error) {
	rel, err := FilesFS(os.DirFS(dir))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", dir, err)
	}
	files := make([]string, len(rel))
	for i, p := range rel {
		files[i] = filepath.Join(dir, filepath.FromSlash(p))
	}
	return files, nil
}

// FilesFS is Files over a file system (the corpus built into a binary, say):
// the slash-separated paths of its scenario files, sorted.
func FilesFS(fsys fs.FS) ([]string, error) {
	var files []string
	err := fs.WalkDir(fsys, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() && path.Ext(p) == ".scn" {
			files = append(files, p)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	if len(files) == 0 {
		return nil, fmt.Errorf("no .scn files")
	}
	sort.Strings(files)
	return files, nil
}
