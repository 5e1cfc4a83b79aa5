package main

import (
	"bytes"
	"strings"
	"testing"
)

// TestCoverageCommand runs sealfuzz coverage at a tiny budget: every layer
// gets a line, the unreachable table is printed with its SPEC text, and
// -min above what was reached fails the command.
func TestCoverageCommand(t *testing.T) {
	args := []string{"coverage", "-seeds", "1", "-runs", "3", "-gofuzz", "30", "-corpus", "../../corpus/spec"}
	var out, errb bytes.Buffer
	if code := run(args, &out, &errb); code != 0 {
		t.Fatalf("exit %d; stderr %s", code, errb.String())
	}
	got := out.String()
	for _, want := range []string{"\nrapid ", "\ngofuzz ", "\ncorpus ", "\ngenerated ", "\nall ",
		"budget: rapid seeds 1..1 x 3 runs, 30 gofuzz inputs", "reachable pairs the generated layers never reach",
		"unreachable pairs (", "refused when the gate is built"} {
		if !strings.Contains(got, want) {
			t.Errorf("output lacks %q:\n%s", want, got)
		}
	}
	out.Reset()
	errb.Reset()
	if code := run(append(args, "-min", "100", "-list=false"), &out, &errb); code != 1 || !strings.Contains(errb.String(), "below -min") {
		t.Fatalf("-min 100 at a tiny budget: exit %d, stderr %q; want 1 and the shortfall", code, errb.String())
	}
	errb.Reset()
	if code := run([]string{"coverage", "-h"}, &out, &errb); code != 0 {
		t.Fatalf("coverage -h: exit %d", code)
	}
	for _, f := range []string{"seeds", "runs", "gofuzz", "gofuzz-seed", "corpus", "min", "list"} {
		if _, ok := flagEntries(out.String())[f]; !ok {
			t.Errorf("coverage -h does not list -%s", f)
		}
	}
}
