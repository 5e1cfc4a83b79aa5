package trial

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/sealgate/sealgate/corpus"
	"github.com/sealgate/sealgate/scn"
)

// Embedded names the corpus built into the binary (package corpus) where a
// command takes a corpus folder.
const Embedded = "embedded"

// LoadCorpus reads the corpus a command names: Embedded for the built-in
// one, "" for none (nil, nil), or a folder. The scenarios of the built-in
// corpus are named as the repository's corpus folder would name them
// ("corpus/seed/x.scn").
func LoadCorpus(dir string) ([]*scn.Scenario, error) {
	switch dir {
	case "":
		return nil, nil
	case Embedded:
		return Load(corpus.FS(), "corpus")
	}
	return Load(os.DirFS(dir), dir)
}

// Load parses every scenario (*.scn) anywhere in fsys, in the order of
// their names, each named prefix joined with its path, as scn.Files and
// scn.ParseFile name the files of a folder. A corpus with no scenario is
// an error: a trial that replays nothing proves nothing.
func Load(fsys fs.FS, prefix string) ([]*scn.Scenario, error) {
	paths, err := scn.FilesFS(fsys)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", prefix, err)
	}
	out := make([]*scn.Scenario, 0, len(paths))
	for _, p := range paths {
		n := filepath.Join(prefix, filepath.FromSlash(p))
		src, err := fs.ReadFile(fsys, p)
		if err != nil {
			return nil, &scn.Error{File: n, Msg: err.Error()}
		}
		s, err := scn.Parse(n, src)
		if err != nil {
			return nil, err
		}
		out = append(out, s)
	}
	return out, nil
}
