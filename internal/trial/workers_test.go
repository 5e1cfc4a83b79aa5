package trial

import (
	"fmt"
	"io"
	"os"
	"reflect"
	"sync"
	"testing"
	"time"

	"github.com/sealgate/sealgate"
	"github.com/sealgate/sealgate/check"
	"github.com/sealgate/sealgate/internal/zoo"
	"github.com/sealgate/sealgate/internal/zoo/faults"
	"github.com/sealgate/sealgate/stdiogate"
)

// With TRIAL_BUGGY_GATE set, the test binary is a gate process with
// planted bugs behind the stdio protocol, so that a GateTest can run one
// without a build: "full" claims the whole SPEC, "release-only" reports
// its releases only, so that other checks than gate == model see them.
func TestMain(m *testing.M) {
	mode := os.Getenv("TRIAL_BUGGY_GATE")
	if mode == "" {
		os.Exit(m.Run())
	}
	bugs := zoo.WithFaults(faults.Set{DisconnectedIsComplete: true, KeyByTool: true, LenientJSON: true, AckFailClearsAll: true})
	b := func(cfg sealgate.Config, _ string) (check.Subject, error) {
		s, err := bugs.NewSubject(cfg)
		if err != nil || mode != "release-only" {
			return s, err
		}
		return releaseOnly{s}, nil
	}
	if err := stdiogate.Serve(os.Stdin, os.Stdout, "buggy", b); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	os.Exit(0)
}

// releaseOnly reports only the releases of the subject it wraps, and
// claims no other decision.
type releaseOnly struct{ check.Subject }

func (releaseOnly) Capabilities() check.Capabilities {
	return check.Capabilities{Acks: true, Restarts: true, Schemas: true, SplitRunes: true}
}

func (r releaseOnly) Feed(ev sealgate.Event) ([]sealgate.Decision, error) {
	ds, err := r.Subject.Feed(ev)
	var out []sealgate.Decision
	for _, d := range ds {
		if d.Kind == sealgate.Release {
			out = append(out, d)
		}
	}
	return out, err
}

// kept is one failure of a trial as its report names it.
type kept struct {
	ID     string
	Phase  string
	Index  int
	Source string
	Count  int
}

// failures runs the buggy gate (a TRIAL_BUGGY_GATE mode) through corpus
// and a fixed count of generated streams on workers, and returns its
// failures in report order and the streams checked in each phase.
func failures(t *testing.T, mode, corpus string, workers, streams int) ([]kept, map[string]int) {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	t.Setenv("TRIAL_BUGGY_GATE", mode)
	g, err := GateTest{Argv: []string{exe}, Corpus: corpus, Seed: 7, Budget: time.Hour, Streams: streams, Workers: workers}.run(io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	defer g.client.Close()
	var out []kept
	for _, id := range g.order {
		f := g.found[id]
		out = append(out, kept{id, f.phase, f.index, f.source, f.count})
	}
	return out, g.streams
}

// TestWorkersFindTheSame: two workers check the same streams as one, and
// the report keeps the same failures, each with the same first stream and
// the same count, whichever worker got to a stream first.
func TestWorkersFindTheSame(t *testing.T) {
	const streams = 150
	generated := false
	for _, c := range []struct{ mode, corpus string }{{"full", corpusDir + "/seed"}, {"release-only", ""}} {
		one, n1 := failures(t, c.mode, c.corpus, 1, streams)
		two, n2 := failures(t, c.mode, c.corpus, 2, streams)
		if n1[PhaseGenerated] != streams || !reflect.DeepEqual(n1, n2) {
			t.Fatalf("%s: streams checked: one worker %v, two %v; want %d generated in both", c.mode, n1, n2, streams)
		}
		if len(one) == 0 {
			t.Fatalf("%s: the buggy gate failed no check", c.mode)
		}
		for _, k := range one {
			generated = generated || (k.Phase == PhaseGenerated && k.Count > 1)
		}
		if !reflect.DeepEqual(one, two) {
			t.Fatalf("%s: one worker kept\n%+v\ntwo workers kept\n%+v", c.mode, one, two)
		}
		t.Logf("%s: the same %d failures with two workers: %+v", c.mode, len(one), one)
	}
	if !generated {
		t.Fatal("no check failed on two or more generated streams: nothing to tell the first of them by")
	}
}

// TestNoteKeepsTheFirstStream: failures noted out of order, as workers
// note them, are kept and reported by the first stream of each check.
func TestNoteKeepsTheFirstStream(t *testing.T) {
	g := &gateRun{stdout: io.Discard, streams: map[string]int{}, found: map[string]*gateFailure{}, firstHit: map[string]time.Duration{}, started: time.Now()}
	fail := func(id string) error { return &check.Violation{ID: id, Name: id} }
	gen := func(i int) Stream {
		return Stream{Phase: PhaseGenerated, Index: i, Source: fmt.Sprintf("generated #%d", i+1)}
	}
	g.note(gen(9), fail("I1"))
	g.note(gen(5), fail("I2"))
	g.note(gen(3), fail("I1"))
	g.note(gen(4), nil)
	g.note(Stream{Phase: PhaseCorpus, Index: 40, Source: "corpus x"}, fail("I2"))
	g.note(gen(7), fail("I1"))
	g.sortOrder()
	var got []kept
	for _, id := range g.order {
		f := g.found[id]
		got = append(got, kept{id, f.phase, f.index, f.source, f.count})
	}
	want := []kept{{"I2", PhaseCorpus, 40, "corpus x", 2}, {"I1", PhaseGenerated, 3, "generated #4", 3}}
	if !reflect.DeepEqual(got, want) || g.streams[PhaseGenerated] != 5 || g.streams[PhaseCorpus] != 1 {
		t.Fatalf("kept %+v (streams %v), want %+v", got, g.streams, want)
	}
}

// TestPlanWorkers: with two workers, two streams are checked at once,
// each generated stream once, made in order.
func TestPlanWorkers(t *testing.T) {
	const count = 40
	var mu sync.Mutex
	seen := map[int]int{}
	made := -1
	both := make(chan struct{})
	var once sync.Once
	arrived := 0
	p := Plan{Workers: 2, Count: count, Budget: time.Hour,
		Generate: func(i int) (Stream, bool) {
			if i != made+1 {
				t.Errorf("stream %d made after %d", i, made)
			}
			made = i
			return Stream{Phase: PhaseGenerated, Source: fmt.Sprint(i)}, true
		}}
	p.Run(func(s Stream) bool {
		mu.Lock()
		seen[s.Index]++
		arrived++
		if arrived == 2 {
			once.Do(func() { close(both) })
		}
		mu.Unlock()
		select {
		case <-both: // the other worker is checking a stream too
		case <-time.After(10 * time.Second):
			t.Error("one worker waited 10s for the other: the streams are not checked two at a time")
		}
		return false
	})
	if len(seen) != count {
		t.Fatalf("%d distinct streams checked, want %d", len(seen), count)
	}
	for i, n := range seen {
		if n != 1 || i < 0 || i >= count {
			t.Fatalf("stream %d checked %d times", i, n)
		}
	}
}
