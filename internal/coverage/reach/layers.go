package reach

import (
	"fmt"
	"io"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"slices"
	"strings"
)

// Layer is one go test run whose coverage counts: tests whose inputs are
// fixed, so that what they execute today they execute on every run.
type Layer struct {
	Name string
	Args []string // go test's arguments after the coverage flags: -run, packages
}

// FixedInput are the layers the suite holds gate and wire to: the unit
// tests of gate (with its internal packages, whose types gate re-exports),
// wire and check (written inputs, the corpus through every check, fuzz
// targets' seeds, math/rand at pinned seeds) and the corpus replay. Tests that draw with rapid's default random seed are left out,
// and so are the packages built on top (guard, boltledger, stdiogate,
// the peers): an entry point only they reach is reached by accident of
// their use of it, not by a test of its own.
var FixedInput = []Layer{
	{"gate, wire and check tests", []string{"./gate/...", "./wire", "./check"}},
	{"corpus replay", []string{"-run", "^TestCorpus$", "."}},
}

// Measure runs each layer in the module at root with coverage over the
// packages that hold fs, writing one profile per layer into dir, and
// returns their paths. go test's output goes to log; a failing test fails
// the measure.
func Measure(root string, fs []Func, layers []Layer, dir string, log io.Writer) ([]string, error) {
	var cover []string
	for _, f := range fs {
		if p := path.Dir(f.File); !slices.Contains(cover, p) {
			cover = append(cover, p)
		}
	}
	var out []string
	for i, l := range layers {
		prof := filepath.Join(dir, fmt.Sprintf("layer%d.cover", i+1))
		args := append([]string{"test", "-covermode=set", "-coverpkg=" + strings.Join(cover, ","), "-coverprofile=" + prof}, l.Args...)
		cmd := exec.Command("go", args...)
		cmd.Dir, cmd.Stdout, cmd.Stderr = root, log, log
		cmd.Env = os.Environ()
		if err := cmd.Run(); err != nil {
			return nil, fmt.Errorf("layer %q (go %s): %w", l.Name, strings.Join(args, " "), err)
		}
		out = append(out, prof)
	}
	return out, nil
}

// String is the layer as a go test command line, for reports.
func (l Layer) String() string { return l.Name + " (go test " + strings.Join(l.Args, " ") + ")" }
