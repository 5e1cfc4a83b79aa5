package peers

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"

	"golang.org/x/mod/modfile"
)

// Outside is a peer process whose idioms live outside this module: a
// nested Go module, or the Node harness. Its folder is relative to the
// repository root.
type Outside struct {
	Name  string // as -peers names it: the group and the process
	Group string // "go" or "js"
	Dir   string
}

// Outsides are the peer processes `sealfuzz peers` can start.
var Outsides = []Outside{
	{Name: "frameworks", Group: "go", Dir: "internal/frameworks"},
	{Name: "genai", Group: "go", Dir: "internal/genai"},
	{Name: "genkit", Group: "go", Dir: "internal/genkit"},
	{Name: "js", Group: "js", Dir: "internal/peers/js"},
}

// Groups are the values -peers takes besides peer names.
var Groups = []string{"go", "js"}

// Set is every peer of one run: the Go SDK idioms and controls in this
// process, and the idioms of the peer processes it started.
type Set struct {
	Peers     []*Peer
	Processes []*Process
	Skipped   []string // one line per group or process that could not start, and why
}

// Open starts the peers of the named groups: "go" is the in-process
// idioms and every Go peer process, "js" the Node harness. Peer processes
// are built from the repository at root into tmp. A process that cannot
// start is skipped with a line in Skipped; with strict (CI) that is an
// error instead.
func Open(root string, groups []string, tmp string, strict bool) (*Set, error) {
	s := &Set{}
	for _, g := range groups {
		if !slices.Contains(Groups, g) {
			return nil, fmt.Errorf("no peer group %q (the groups are %s)", g, strings.Join(Groups, ", "))
		}
	}
	if slices.Contains(groups, "go") {
		s.Peers = append(s.Peers, All()...)
	}
	var errs []error
	for _, o := range Outsides {
		if !slices.Contains(groups, o.Group) {
			continue
		}
		pr, err := o.start(root, tmp)
		if err != nil {
			if strict {
				errs = append(errs, err)
			}
			s.Skipped = append(s.Skipped, err.Error())
			continue
		}
		s.Processes = append(s.Processes, pr)
		s.Peers = append(s.Peers, pr.Peers()...)
	}
	if err := errors.Join(errs...); err != nil {
		s.Close()
		return nil, err
	}
	return s, nil
}

// Lookup finds a peer of the set by name.
func (s *Set) Lookup(name string) (*Peer, bool) {
	for _, p := range s.Peers {
		if p.Name == name {
			return p, true
		}
	}
	return nil, false
}

// Close ends the peer processes.
func (s *Set) Close() {
	for _, pr := range s.Processes {
		pr.Close()
	}
}

// start builds (Go) or checks (Node) the process and starts it.
func (o Outside) start(root, tmp string) (*Process, error) {
	dir := filepath.Join(root, o.Dir)
	if _, err := os.Stat(dir); err != nil {
		return nil, fmt.Errorf("peers %s: no %s in this tree: %w", o.Name, o.Dir, err)
	}
	switch o.Group {
	case "go":
		bin := filepath.Join(tmp, "peers-"+o.Name)
		cmd := exec.Command("go", "build", "-o", bin, ".")
		cmd.Dir = dir
		if out, err := cmd.CombinedOutput(); err != nil {
			return nil, fmt.Errorf("peers %s: go build in %s: %v\n%s", o.Name, o.Dir, err, bytes.TrimSpace(out))
		}
		return StartProcess(o.Name, dir, bin)
	default:
		node, err := exec.LookPath("node")
		if err != nil {
			return nil, fmt.Errorf("peers %s: no node on PATH: the JavaScript peers need Node.js 20 or newer and `npm ci` in %s", o.Name, o.Dir)
		}
		if _, err := os.Stat(filepath.Join(dir, "node_modules")); err != nil {
			return nil, fmt.Errorf("peers %s: %s has no node_modules: run `npm ci` there", o.Name, o.Dir)
		}
		return StartProcess(o.Name, dir, node, "harness.mjs")
	}
}

// RepoRoot is the folder of the sealgate module's go.mod at or above dir:
// the root the peer processes' folders are relative to, even when dir is
// inside a nested module.
func RepoRoot(dir string) (string, error) {
	d, err := filepath.Abs(dir)
	if err != nil {
		return "", err
	}
	for {
		if src, err := os.ReadFile(filepath.Join(d, "go.mod")); err == nil && modfile.ModulePath(src) == "github.com/sealgate/sealgate" {
			return d, nil
		}
		up := filepath.Dir(d)
		if up == d {
			return "", fmt.Errorf("%s is not inside the sealgate repository (no go.mod of github.com/sealgate/sealgate above it)", dir)
		}
		d = up
	}
}
