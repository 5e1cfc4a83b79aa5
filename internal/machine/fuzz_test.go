package machine

import (
	"fmt"
	"math/rand"
	"reflect"
	"strings"
	"testing"

	"pgregory.net/rapid"

	"github.com/sealgate/sealgate/check"
	"github.com/sealgate/sealgate/internal/fuzzkit"
	"github.com/sealgate/sealgate/internal/gen"
	"github.com/sealgate/sealgate/internal/zoo"
	"github.com/sealgate/sealgate/internal/zoo/faults"
)

// TestReplayMatchesMakeFuzz: outside go test, Replay plays the same run of
// the machine as rapid.MakeFuzz does under go fuzz, on every machine-reading
// seed of FuzzGateVsModel; a stream cut short still replays its checked
// prefix. It fails if rapid changes its fail file format.
func TestReplayMatchesMakeFuzz(t *testing.T) {
	n := 0
	for i, in := range fuzzkit.Seeds(0) {
		if gen.ReadingOf(in) != gen.Machine {
			continue
		}
		for _, bits := range [][]byte{in[1:], in[1 : 1+len(in)/16]} {
			n++
			var checked Failure
			t.Run(fmt.Sprintf("seed%d-%d", i, len(bits)), func(t *testing.T) {
				rapid.MakeFuzz(quietDraws(run(check.Default, nil, &checked, fuzzed)))(t, bits)
			})
			got, err := Replay(check.Default, bits)
			if err != nil {
				t.Fatal(err)
			}
			if got.Err != nil {
				t.Fatalf("seed %d: the real gate fails: %v", i, got.Err)
			}
			if !reflect.DeepEqual(got.Config, checked.Config) || !reflect.DeepEqual(got.Events, checked.Events) {
				t.Fatalf("seed %d (%d bytes): replay differs from the fuzzed run:\nreplay %d events %v\nfuzz   %d events %v", i, len(bits), len(got.Events), got.Events, len(checked.Events), checked.Events)
			}
		}
	}
	if n == 0 {
		t.Fatal("no machine-reading seed")
	}
}

// TestReplayFailure: with a bug planted, Replay returns the failing stream
// (the whole run), and that stream fails the same check.
func TestReplayFailure(t *testing.T) {
	chk := zoo.WithFaults(faults.Set{ReleaseAtEnd: true})
	for i, in := range fuzzkit.Seeds(0) {
		if gen.ReadingOf(in) != gen.Machine {
			continue
		}
		f, err := Replay(chk, in[1:])
		if err != nil {
			t.Fatal(err)
		}
		if f.Err == nil {
			continue
		}
		if err := chk.All(f.Config, f.Events); err == nil || err.Error() != f.Err.Error() {
			t.Fatalf("seed %d: replayed stream fails with %v, want %v", i, err, f.Err)
		}
		whole, err := Replay(check.Default, in[1:])
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(whole.Events, f.Events) {
			t.Fatalf("seed %d: the failing stream (%d events) is not the whole run (%d)", i, len(f.Events), len(whole.Events))
		}
		return
	}
	t.Fatal("no machine-reading seed catches release-at-end")
}

// TestNoValidActionIsInvalid: rapid gives up on a state machine whose
// actions all skip before drawing, with the message noActionIsInvalid
// knows; deferred, it makes such a run an invalid input, not a failure.
func TestNoValidActionIsInvalid(t *testing.T) {
	huntMu.Lock()
	defer huntMu.Unlock()
	restore, err := setFlags(map[string]string{"rapid.seed": "1", "rapid.checks": "20", "rapid.nofailfile": "true", "rapid.shrinktime": "1ns"})
	if err != nil {
		t.Fatal(err)
	}
	defer restore()
	skipAll := map[string]func(*rapid.T){"skip": func(t *rapid.T) { t.Skip("never applies") }}
	bare := &Recorder{}
	rapid.Check(bare, func(t *rapid.T) { t.Repeat(skipAll) })
	if !bare.Failed() || !strings.Contains(bare.Out.String(), noValidAction) {
		t.Fatalf("rapid's report no longer names %q:\n%s", noValidAction, bare.Out.String())
	}
	wrapped := &Recorder{}
	rapid.Check(wrapped, func(t *rapid.T) {
		defer noActionIsInvalid(t)
		t.Repeat(skipAll)
	})
	if out := wrapped.Out.String(); strings.Contains(out, "[rapid] failed") || strings.Contains(out, noValidAction) {
		t.Fatalf("want runs that find no action invalid, not failing:\n%s", out)
	}
}

// TestQuietDrawsReportsFailure: under quietDraws a failing run still fails
// with the check's message and the stream as a scenario, and rapid's log
// holds none of the run's draws (rapid logs them on a failure's re-run).
func TestQuietDrawsReportsFailure(t *testing.T) {
	huntMu.Lock()
	defer huntMu.Unlock()
	restore, err := setFlags(map[string]string{"rapid.seed": "3", "rapid.checks": "100", "rapid.nofailfile": "true", "rapid.shrinktime": "1ns"})
	if err != nil {
		t.Fatal(err)
	}
	defer restore()
	rec := &Recorder{}
	rapid.Check(rec, quietDraws(run(zoo.WithFaults(faults.Set{ReleaseAtEnd: true}), nil, nil, fuzzed)))
	out := rec.Out.String()
	if !rec.Failed() || !strings.Contains(out, "the stream so far, as a scenario") {
		t.Fatalf("want a failure with the stream as a scenario, got:\n%s", out)
	}
	if strings.Contains(out, "[rapid] draw action") || strings.Contains(out, "[rapid] draw tool") {
		t.Fatalf("the run's draws were logged:\n%s", out)
	}
}

// TestFuzzedRunsKeepToTheirBudget: on the same bits, a fuzzed run's stream
// is a prefix of the run checked at its end without a budget (the budget
// only stops a run, it changes no draw), some fuzzed runs stop early, and
// on average they are short (runBudgets).
func TestFuzzedRunsKeepToTheirBudget(t *testing.T) {
	rng := rand.New(rand.NewSource(5))
	shorter, fuzzedEvents, fullEvents, runs := 0, 0, 0, 0
	for i := 0; i < 120; i++ {
		bits := make([]byte, 32<<10)
		rng.Read(bits)
		var full, cut Failure
		for _, r := range []struct {
			seen *Failure
			md   mode
		}{{&full, atEnd}, {&cut, fuzzed}} {
			t.Run(fmt.Sprintf("bits%d-mode%d", i, r.md), func(t *testing.T) {
				rapid.MakeFuzz(quietDraws(run(check.Default, nil, r.seen, r.md)))(t, bits)
			})
		}
		if full.Events == nil {
			continue // skipped: no action applied
		}
		if len(cut.Events) > len(full.Events) || !reflect.DeepEqual(cut.Events, full.Events[:len(cut.Events)]) {
			t.Fatalf("bits %d: the fuzzed run (%d events) is not a prefix of the full run (%d events)", i, len(cut.Events), len(full.Events))
		}
		if len(cut.Events) < len(full.Events) {
			shorter++
		}
		runs++
		fuzzedEvents += len(cut.Events)
		fullEvents += len(full.Events)
	}
	if shorter == 0 {
		t.Fatalf("no fuzzed run of %d stopped at its budget", runs)
	}
	if 2*fuzzedEvents > fullEvents {
		t.Fatalf("fuzzed runs average %d events, full runs %d: the budget should halve them at least", fuzzedEvents/runs, fullEvents/runs)
	}
	t.Logf("%d runs: %d stopped at their budget; %d events on average fuzzed, %d full", runs, shorter, fuzzedEvents/runs, fullEvents/runs)
}
