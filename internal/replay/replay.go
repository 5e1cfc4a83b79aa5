// Package replay replays .scn files through the gate and the reference
// model and checks both against each file's expected decisions, or decodes
// a vendor body into a scenario: the suite's way to read one case by eye.
package replay

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/sealgate/sealgate/check"
	"github.com/sealgate/sealgate/internal/zoo"
	"github.com/sealgate/sealgate/scn"
)

// Command is one run of sealfuzz replay: its flags, and the paths after them.
type Command struct {
	Print  bool     // print only the gate's decision lines (the model's with Model)
	Model  bool     // with Print: the model's decisions instead
	Update bool     // rewrite each file's expected part where gate and model agree
	Wire   string   // decode the one path as a body of this vendor protocol
	Config string   // with Wire: the .scn file whose configuration to take
	Paths  []string // files, and folders searched for *.scn
	Usage  string   // the overview, printed after a usage error
}

// Run replays c.Paths against the gate, with SEALGATE_FAULTS's bug planted
// if it names one, and returns the exit code: 0 when every file passed, 1
// when one failed, 2 for a usage error.
func (c Command) Run(stdout, stderr io.Writer) int {
	chk, err := zoo.FromEnv()
	if err != nil {
		fmt.Fprintf(stderr, "sealfuzz replay: %v\n", err)
		return 2
	}
	if bug := os.Getenv(zoo.FaultsEnv); bug != "" {
		if c.Update {
			fmt.Fprintf(stderr, "sealfuzz replay: -update with %s=%s would write a broken gate's decisions; unset it\n", zoo.FaultsEnv, bug)
			return 2
		}
		fmt.Fprintf(stderr, "replaying against the gate with zoo bug %q planted (%s)\n", bug, zoo.FaultsEnv)
	}
	if c.Wire != "" {
		return decodeWire(chk, c.Wire, c.Config, c.Print, c.Paths, stdout, stderr)
	}
	if c.Config != "" {
		fmt.Fprintln(stderr, "sealfuzz replay: -config goes with -wire")
		return 2
	}
	if len(c.Paths) == 0 {
		fmt.Fprintf(stderr, "sealfuzz replay: no files given\n%s", c.Usage)
		return 2
	}
	if c.Model && !c.Print {
		fmt.Fprintln(stderr, "sealfuzz replay: -model goes with -print")
		return 2
	}
	files, err := Files(c.Paths)
	if err != nil {
		fmt.Fprintf(stderr, "sealfuzz replay: %v\n", err)
		return 2
	}
	failed := 0
	for _, f := range files {
		var ok bool
		switch {
		case c.Print:
			ok = printDecisions(chk, f, c.Model, stdout, stderr)
		case c.Update:
			ok = updateFile(chk, f, stdout, stderr)
		default:
			ok = replayFile(chk, f, stdout, stderr)
		}
		if !ok {
			failed++
		}
	}
	if !c.Print {
		fmt.Fprintf(stdout, "replay: %d passed, %d failed\n", len(files)-failed, failed)
	}
	if failed > 0 {
		return 1
	}
	return 0
}

// Files expands folders into the *.scn files below them, sorted.
func Files(paths []string) ([]string, error) {
	var out []string
	for _, p := range paths {
		st, err := os.Stat(p)
		if err != nil {
			return nil, err
		}
		if !st.IsDir() {
			out = append(out, p)
			continue
		}
		found, err := scn.Files(p)
		if err != nil {
			return nil, err
		}
		out = append(out, found...)
	}
	return out, nil
}

// load parses a scenario and runs it through chk's gate and the model.
func load(chk *check.Checker, path string, stderr io.Writer) (*scn.Scenario, check.Result, bool) {
	s, err := scn.ParseFile(path)
	if err != nil {
		fmt.Fprintf(stderr, "INVALID %v\n", err)
		return nil, check.Result{}, false
	}
	return s, chk.RunScenario(s), true
}

// printDecisions prints one implementation's decision lines and nothing else.
func printDecisions(chk *check.Checker, path string, useModel bool, stdout, stderr io.Writer) bool {
	_, r, ok := load(chk, path, stderr)
	if !ok {
		return false
	}
	ds := r.Gate
	if useModel {
		ds = r.Model
	}
	stdout.Write(scn.FormatDecisions(ds))
	if !useModel && r.GateErr != nil {
		fmt.Fprintf(stderr, "%s: %v\n", path, r.GateErr)
		return false
	}
	return true
}

// replayFile checks gate against model and both against the file.
func replayFile(chk *check.Checker, path string, stdout, stderr io.Writer) bool {
	s, r, ok := load(chk, path, stderr)
	if !ok {
		return false
	}
	var problems []string
	if err := r.Agree(); err != nil {
		var m *check.Mismatch
		if errors.As(err, &m) {
			problems = append(problems, "gate and model disagree:\n"+check.Diff(m.AName, m.A, m.BName, m.B))
		} else {
			problems = append(problems, err.Error())
		}
	}
	if err := check.Compare("expected", s.Expect, "gate", r.Gate); err != nil {
		problems = append(problems, "gate differs from the expected decisions:\n"+
			check.Diff("expected", s.Expect, "gate", r.Gate))
	}
	if len(problems) == 0 {
		fmt.Fprintf(stdout, "ok   %s\n", path)
		return true
	}
	fmt.Fprintf(stdout, "FAIL %s\n", path)
	for _, p := range problems {
		fmt.Fprintf(stdout, "%s\n", Indent(p))
	}
	return false
}

// updateFile rewrites the expected part of a file from the gate's output,
// only when the model agrees; the rest of the file is kept byte for byte.
func updateFile(chk *check.Checker, path string, stdout, stderr io.Writer) bool {
	_, r, ok := load(chk, path, stderr)
	if !ok {
		return false
	}
	if err := r.Agree(); err != nil {
		fmt.Fprintf(stdout, "REFUSED %s: gate and model disagree, not updating: %v\n", path, err)
		return false
	}
	src, err := os.ReadFile(path)
	if err != nil {
		fmt.Fprintf(stderr, "%v\n", err)
		return false
	}
	head, ok := upToSeparator(src)
	if !ok {
		fmt.Fprintf(stderr, "%s: no ---- line\n", path)
		return false
	}
	out := append(head, scn.FormatDecisions(r.Gate)...)
	if bytes.Equal(out, src) {
		fmt.Fprintf(stdout, "same %s\n", path)
		return true
	}
	if err := os.WriteFile(path, out, 0o644); err != nil {
		fmt.Fprintf(stderr, "%v\n", err)
		return false
	}
	fmt.Fprintf(stdout, "updated %s\n", path)
	return true
}

// upToSeparator returns src up to and including its "----" line.
func upToSeparator(src []byte) ([]byte, bool) {
	off := 0
	for off < len(src) {
		end := bytes.IndexByte(src[off:], '\n')
		next := len(src)
		if end >= 0 {
			next = off + end + 1
		}
		line := bytes.TrimRight(src[off:next], "\r\n")
		if string(line) == "----" {
			head := append([]byte{}, src[:next]...)
			if end < 0 {
				head = append(head, '\n')
			}
			return head, true
		}
		off = next
	}
	return nil, false
}

// Indent indents every line of s by four spaces.
func Indent(s string) string {
	var b bytes.Buffer
	for _, l := range bytes.SplitAfter([]byte(s), []byte("\n")) {
		if len(l) > 0 {
			b.WriteString("    ")
			b.Write(l)
		}
	}
	return b.String()
}
