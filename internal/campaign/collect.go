package campaign

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/sealgate/sealgate/internal/reduce"
)

// collect moves a crasher out of testdata/fuzz (so the target can keep
// fuzzing: go fuzz replays testdata first and would stop on it again),
// reduces it, and saves one scenario per failing check in c.regress. why,
// when not empty, is added to the failure's note.
func (c *campaign) collect(target, dir, crasher, message, why string) {
	f := failure{target: target, input: crasher, at: time.Since(c.start)}
	defer func() {
		if why != "" {
			if f.note != "" {
				f.note += "; "
			}
			f.note += why
		}
		c.fails = append(c.fails, f)
	}()
	keep := filepath.Join(dir, ".sealfuzz", "crashers", filepath.Base(filepath.Dir(crasher)), filepath.Base(crasher))
	if err := os.MkdirAll(filepath.Dir(keep), 0o755); err == nil {
		if err := os.Rename(crasher, keep); err == nil {
			f.input = keep
		}
	}
	text, res, err := ReduceFile(f.input, "")
	if err != nil {
		f.check = FirstLine(message)
		f.note = "not reduced: " + err.Error()
		return
	}
	f.check = reduce.ID(res.Err)
	f.violation = FirstLine(res.Err.Error())
	name := filepath.Join(c.regress, reduce.FileName(f.check))
	// A planted bug's folder is scratch: an earlier run's file is replaced,
	// so that the one listed is this run's.
	if _, err := os.Stat(name); err == nil && (c.wrote[name] || c.planted == "") {
		f.note = "same check as " + name + " (kept the earlier one)"
		return
	} else if err != nil && !errors.Is(err, os.ErrNotExist) {
		f.note = err.Error()
		return
	}
	if err := os.MkdirAll(c.regress, 0o755); err != nil {
		f.note = err.Error()
		return
	}
	if err := os.WriteFile(name, text, 0o644); err != nil {
		f.note = err.Error()
		return
	}
	f.regress = name
	if c.wrote == nil {
		c.wrote = map[string]bool{}
	}
	c.wrote[name] = true
}

// FirstLine is the first line of a failure message that says something
// (not blank, not go test's "--- FAIL" header), or "failed".
func FirstLine(s string) string {
	for _, l := range strings.Split(s, "\n") {
		if l = strings.TrimSpace(l); l != "" && !strings.HasPrefix(l, "---") {
			return l
		}
	}
	return "failed"
}
