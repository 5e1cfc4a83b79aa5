package sealgate_test

import (
	"flag"
	"fmt"
	"strings"
	"testing"

	"pgregory.net/rapid"

	"sealgate/check"
	"sealgate/internal/faults"
	"sealgate/machine"
	"sealgate/reduce"
)

// Tests of the suite itself: a deliberately broken gate must be caught.

// recorder is a rapid.TB that keeps a property's failure instead of
// failing the test, so a test can assert that rapid finds a bug.
type recorder struct {
	name   string
	failed bool
	log    strings.Builder
}

func (r *recorder) Helper()                         {}
func (r *recorder) Name() string                    { return r.name }
func (r *recorder) Logf(format string, args ...any) { fmt.Fprintf(&r.log, format+"\n", args...) }
func (r *recorder) Log(args ...any)                 { fmt.Fprintln(&r.log, args...) }
func (r *recorder) Skipf(format string, args ...any) {
	r.Logf(format, args...)
}
func (r *recorder) Skip(args ...any) { r.Log(args...) }
func (r *recorder) SkipNow()         {}
func (r *recorder) Errorf(format string, args ...any) {
	r.failed = true
	r.Logf(format, args...)
}
func (r *recorder) Error(args ...any) { r.failed = true; r.Log(args...) }
func (r *recorder) Fatalf(format string, args ...any) {
	r.failed = true
	r.Logf(format, args...)
}
func (r *recorder) Fatal(args ...any) { r.failed = true; r.Log(args...) }
func (r *recorder) FailNow()          { r.failed = true }
func (r *recorder) Fail()             { r.failed = true }
func (r *recorder) Failed() bool      { return r.failed }

// withRapidFlags runs f with rapid seeded deterministically and writing no
// fail files, then restores the flags.
func withRapidFlags(t *testing.T, seed uint64, f func()) {
	set := func(name, v string) {
		fl := flag.Lookup(name)
		if fl == nil {
			t.Fatalf("rapid flag %s not registered", name)
		}
		old := fl.Value.String()
		if err := fl.Value.Set(v); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { fl.Value.Set(old) })
	}
	set("rapid.seed", fmt.Sprint(seed))
	set("rapid.nofailfile", "true")
	f()
}

// TestRapidCatchesReleaseAtEnd plants the bug "release at end under
// after-turn" in the real gate: the state machine must find it, and the
// reducer must bring the counterexample down to at most 6 events.
func TestRapidCatchesReleaseAtEnd(t *testing.T) {
	chk := check.WithFaults(faults.Set{ReleaseAtEnd: true})
	for _, seed := range []uint64{1, 2, 3} {
		var got machine.Failure
		rec := &recorder{name: t.Name()}
		withRapidFlags(t, seed, func() { rapid.Check(rec, machine.Run(chk, &got)) })
		if !rec.failed || got.Err == nil {
			t.Fatalf("seed %d: rapid did not catch a gate that releases at end under after-turn", seed)
		}
		res, err := reduce.Reduce(got.Config, got.Events, chk.All, reduce.Options{})
		if err != nil {
			t.Fatalf("seed %d: %v", seed, err)
		}
		if len(res.Events) > 6 {
			t.Errorf("seed %d: reduced to %d events, want at most 6:\n%s", seed, len(res.Events), reduce.Text(res.Config, res.Events, res.Err))
		}
		t.Logf("seed %d: caught (%v); %d events after rapid's shrinking, %d after reduction", seed, reduce.ID(got.Err), len(got.Events), len(res.Events))
	}
}
