package main

import (
	"bytes"
	"strings"
	"testing"

	"github.com/sealgate/sealgate/internal/zoo"
)

// TestExhaustCommand: the real gate passes a short bound with the
// guarantee sentence and exit 0; with a zoo bug planted the same run exits
// 1 and prints the counterexample as a scenario; bad flags exit 2.
func TestExhaustCommand(t *testing.T) {
	var out, errb bytes.Buffer
	if code := run([]string{"exhaust", "-events", "2"}, &out, &errb); code != 0 {
		t.Fatalf("real gate: exit %d\n%s%s", code, out.String(), errb.String())
	}
	if !strings.Contains(out.String(), "no violation in any sequence of at most 2 events over this alphabet") ||
		!strings.Contains(out.String(), "distinct states") {
		t.Errorf("real gate: output lacks the guarantee or the counts:\n%s", out.String())
	}
	t.Setenv(zoo.FaultsEnv, zoo.IgnoreFinal.Name)
	out.Reset()
	if code := run([]string{"exhaust", "-events", "3", "-setup", "after-turn"}, &out, &errb); code != 1 {
		t.Fatalf("%s planted: exit %d, want 1\n%s", zoo.IgnoreFinal.Name, code, out.String())
	}
	if !strings.Contains(out.String(), "violation in setup after-turn") || !strings.Contains(out.String(), "\n----\n") {
		t.Errorf("%s planted: no scenario printed:\n%s", zoo.IgnoreFinal.Name, out.String())
	}
	for _, args := range [][]string{{"exhaust", "-events", "0"}, {"exhaust", "-setup", "nope"}, {"exhaust", "extra"}, {"exhaust", "-zoo", "-bugs", "nope"}} {
		errb.Reset()
		if code := run(args, &out, &errb); code != 2 {
			t.Errorf("%v: exit %d, want 2 (stderr %q)", args, code, errb.String())
		}
	}
}

// TestExhaustHelp: -h lists every flag.
func TestExhaustHelp(t *testing.T) {
	var out, errb bytes.Buffer
	if code := run([]string{"exhaust", "-h"}, &out, &errb); code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	entries := flagEntries(out.String())
	for _, f := range []string{"events", "setup", "zoo", "workers", "no-prune", "reduce", "bugs", "cpuprofile"} {
		if _, ok := entries[f]; !ok {
			t.Errorf("-h does not list -%s:\n%s", f, out.String())
		}
	}
}
