package reach

import (
	"fmt"
	"io"
	"os"
	"path"
	"path/filepath"
	"strings"

	"golang.org/x/mod/modfile"
)

// Command is one check: the packages' exported functions against the
// coverage of the layers (run now) or of profiles made earlier.
type Command struct {
	Root     string   // the module's root folder
	Dirs     []string // package folders, relative to Root ("gate")
	Profiles []string // coverage profiles to read; none: run Layers
	Layers   []Layer
}

// Run prints every exported function the coverage never executed, as
// file:line and name, and returns how many there were and the error that
// stopped the check, if any.
func (c Command) Run(stdout, log io.Writer) (int, error) {
	pkgs, err := c.packages()
	if err != nil {
		return 0, err
	}
	var fs []Func
	for _, p := range pkgs {
		f, err := Exported(p)
		if err != nil {
			return 0, err
		}
		fs = append(fs, f...)
	}
	profiles := c.Profiles
	from := "profiles " + strings.Join(profiles, ", ")
	if len(profiles) == 0 {
		dir, err := os.MkdirTemp("", "sealfuzz-reach-")
		if err != nil {
			return 0, err
		}
		defer os.RemoveAll(dir)
		if profiles, err = Measure(c.Root, fs, c.Layers, dir, log); err != nil {
			return 0, err
		}
		var ls []string
		for _, l := range c.Layers {
			ls = append(ls, l.String())
		}
		from = strings.Join(ls, "; ")
	}
	ps, err := ReadProfiles(profiles)
	if err != nil {
		return 0, err
	}
	missed, err := Unexecuted(ps, fs)
	if err != nil {
		return 0, err
	}
	fmt.Fprintf(stdout, "reach: %d exported functions and methods of %s, against %s\n", len(fs), strings.Join(c.Dirs, ", "), from)
	for _, f := range missed {
		fmt.Fprintf(stdout, "%s: %s is never executed\n", f.Pos, f.Name)
	}
	fmt.Fprintf(stdout, "reach: %d of %d never executed\n", len(missed), len(fs))
	return len(missed), nil
}

// packages resolves Dirs against the module's path in Root/go.mod.
func (c Command) packages() ([]Package, error) {
	gomod := filepath.Join(c.Root, "go.mod")
	b, err := os.ReadFile(gomod)
	if err != nil {
		return nil, err
	}
	mod := modfile.ModulePath(b)
	if mod == "" {
		return nil, fmt.Errorf("%s: no module line", gomod)
	}
	if len(c.Dirs) == 0 {
		return nil, fmt.Errorf("no package folder to check")
	}
	var out []Package
	for _, d := range c.Dirs {
		rel := path.Clean(filepath.ToSlash(d))
		if rel == ".." || strings.HasPrefix(rel, "../") || path.IsAbs(rel) {
			return nil, fmt.Errorf("package folder %q is not inside the module at %s", d, c.Root)
		}
		ip := mod
		if rel != "." {
			ip = mod + "/" + rel
		}
		out = append(out, Package{Dir: filepath.Join(c.Root, filepath.FromSlash(rel)), ImportPath: ip, Show: rel})
	}
	return out, nil
}
