package check_test

import (
	"errors"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/sealgate/sealgate"
	"github.com/sealgate/sealgate/check"
	"github.com/sealgate/sealgate/gate"
	"github.com/sealgate/sealgate/scn"
)

// Every invariant must be able to fail: each case takes a real trace of a
// correct run and breaks exactly one thing in it.

func cfgWithSecret() sealgate.Config {
	cfg := sealgate.DefaultConfig()
	cfg.Tools = []sealgate.Tool{{Name: "login", Schema: `{"type":"object"}`, Secrets: []string{"token"}}}
	return cfg
}

var (
	open1  = sealgate.OpenEvent("r1", "t1")
	begin1 = sealgate.BeginEvent("r1", "0", "c1", "login")
	delta1 = sealgate.DeltaEvent("r1", "0", []byte(`{"token":"s3cret","u":"ann"}`))
	peek1  = sealgate.PeekEvent("r1", "0")
	end1   = sealgate.EndEvent("r1", "0")
	close1 = sealgate.CloseEvent("r1", sealgate.Complete)
)

// base is open, begin, delta, peek, end, close complete: one preview, one
// release at the close.
func base(t *testing.T) *check.Trace {
	t.Helper()
	tr := check.Default.Record(cfgWithSecret(), []sealgate.Event{open1, begin1, delta1, peek1, end1, close1})
	if err := check.Invariants(tr); err != nil {
		t.Fatalf("the unbroken trace already fails: %v", err)
	}
	if len(tr.Decisions) != 2 || tr.Decisions[1].Kind != sealgate.Release {
		t.Fatalf("unexpected base decisions %v", tr.Decisions)
	}
	return tr
}

func wantViolation(t *testing.T, tr *check.Trace, id string) {
	t.Helper()
	err := check.Invariants(tr)
	var v *check.Violation
	if !errors.As(err, &v) || v.ID != id {
		t.Fatalf("want a %s violation, got %v", id, err)
	}
	t.Logf("%v", err)
}

func TestI1ReleaseBeforeEnd(t *testing.T) {
	tr := base(t)
	tr.Decisions[1].At = 3 // at the delta
	tr.Retained[2], tr.Retained[3] = 0, 0
	wantViolation(t, tr, "I1")
}

func TestI2WrongBytes(t *testing.T) {
	tr := base(t)
	tr.Decisions[1].Args = sealgate.Sealed(`{"token":"s3cret"}`)
	wantViolation(t, tr, "I2")
}

func TestI2NamesTheCallWhoseBytesWereTaken(t *testing.T) {
	evs := []sealgate.Event{open1, begin1, sealgate.BeginEvent("r1", "1", "c2", "login"),
		sealgate.DeltaEvent("r1", "0", []byte(`{"a": 1}`)), sealgate.DeltaEvent("r1", "1", []byte(`{"b": 2}`)),
		end1, sealgate.EndEvent("r1", "1"), close1}
	tr := check.Default.Record(cfgWithSecret(), evs)
	if len(tr.Decisions) != 2 {
		t.Fatalf("want two releases, got %v", tr.Decisions)
	}
	tr.Decisions[0].Args = tr.Decisions[1].Args
	err := check.Invariants(tr)
	wantViolation(t, tr, "I2")
	if !strings.Contains(err.Error(), "they are the fragments of item 1 (call=c2) of attempt r1") {
		t.Fatalf("I2 does not name the call whose bytes were released: %v", err)
	}
	tr.Decisions[0].Args = sealgate.Sealed(`{"c":3}`)
	if err := check.Invariants(tr); strings.Contains(err.Error(), "they are") {
		t.Fatalf("I2 names a call for bytes no call sent: %v", err)
	}
}

func TestI3PreviewNotJSON(t *testing.T) {
	tr := base(t)
	tr.Decisions[0].Preview.Value = `{"token":`
	wantViolation(t, tr, "I3")
}

func TestReleaseAtPeekCaught(t *testing.T) {
	tr := base(t)
	d := tr.Decisions[1]
	d.At = 4
	tr.Decisions = append(tr.Decisions[:1], d)
	wantViolation(t, tr, "I1") // released before its end is caught first
}

func TestI4CompensateWithoutRelease(t *testing.T) {
	tr := check.Default.Record(cfgWithSecret(), []sealgate.Event{open1, begin1, delta1, end1, sealgate.CloseEvent("r1", sealgate.Truncated)})
	tr.Decisions = append(tr.Decisions, sealgate.Decision{At: 5, Kind: sealgate.Compensate, Attempt: "r1", Item: "0"})
	wantViolation(t, tr, "I4")
}

func TestI7SameKeyTwice(t *testing.T) {
	evs := []sealgate.Event{open1, begin1, delta1, end1, close1,
		sealgate.OpenEvent("r2", "t1"), sealgate.BeginEvent("r2", "0", "c1", "login"),
		sealgate.DeltaEvent("r2", "0", delta1.Bytes), sealgate.EndEvent("r2", "0"), sealgate.CloseEvent("r2", sealgate.Complete)}
	tr := check.Default.Record(cfgWithSecret(), evs)
	last := &tr.Decisions[len(tr.Decisions)-1]
	if last.Reason != sealgate.Duplicate {
		t.Fatalf("want the second call rejected duplicate, got %v", last)
	}
	*last = tr.Decisions[0]
	last.At, last.Attempt = 10, "r2"
	wantViolation(t, tr, "I7")
}

func TestI8PreviewCountsOtherBytes(t *testing.T) {
	tr := base(t)
	tr.Decisions[0].Preview.Bytes++
	wantViolation(t, tr, "I8")
}

func TestI9RetainsDecidedBytes(t *testing.T) {
	tr := base(t)
	tr.Retained[5] = 7 // after the close, nothing may be held
	wantViolation(t, tr, "I9")
}

func TestI10SecretShown(t *testing.T) {
	tr := base(t)
	tr.Decisions[0].Preview.Value = `{"token":"s3","u":"ann"}`
	wantViolation(t, tr, "I10")
}

func TestI11TwoVerdicts(t *testing.T) {
	tr := base(t)
	tr.Decisions = append(tr.Decisions, sealgate.Decision{At: 6, Kind: sealgate.Reject, Attempt: "r1", Item: "0", Reason: sealgate.Duplicate})
	wantViolation(t, tr, "I11")
}

func TestI11NoVerdict(t *testing.T) {
	tr := base(t)
	tr.Decisions = tr.Decisions[:1]
	tr.Retained[5] = 0
	wantViolation(t, tr, "I11")
}

// routeToLast is a gate with a P3 bug (real-bugs.md): every delta goes to
// the call begun last in its attempt, as a single shared buffer would.
type routeToLast struct {
	g    *gate.Gate
	last map[string]string
}

func (r *routeToLast) Feed(ev sealgate.Event) ([]sealgate.Decision, error) {
	switch ev.Kind {
	case sealgate.Begin:
		r.last[ev.Attempt] = ev.Item
	case sealgate.Delta:
		if it, ok := r.last[ev.Attempt]; ok {
			ev.Item = it
		}
	}
	return r.g.Feed(ev)
}
func (r *routeToLast) Retained() int { return r.g.Retained() }

func TestI5CatchesSharedBuffer(t *testing.T) {
	chk := wrapChecker(func(g *gate.Gate) gated { return &routeToLast{g: g, last: map[string]string{}} })
	evs := []sealgate.Event{open1, begin1, sealgate.BeginEvent("r1", "1", "c2", "login"),
		sealgate.DeltaEvent("r1", "0", []byte(`{"a":1}`)), sealgate.DeltaEvent("r1", "1", []byte(`{"b":2}`)),
		end1, sealgate.EndEvent("r1", "1"), close1}
	orig, err := runGate(chk, cfgWithSecret(), evs)
	if err != nil {
		t.Fatal(err)
	}
	err = chk.CheckIsolation(cfgWithSecret(), evs, orig)
	var v *check.Violation
	if !errors.As(err, &v) || v.ID != "I5" {
		t.Fatalf("want I5, got %v (decisions %v)", err, orig)
	}
	t.Logf("%v", err)
	for _, want := range []string{"\ninterleaved: (nothing)\n", "\nserial:\n  release r1 item=0 call=c1 tool=login key=", "\n  release r1 item=1 call=c2 tool=login key="} {
		if !strings.Contains(v.Msg, want) {
			t.Errorf("the release lists do not name items and calls (want %q)", want)
		}
	}
	if check.Default.CheckIsolation(cfgWithSecret(), evs, check.Default.Run(cfgWithSecret(), evs).Gate) != nil {
		t.Fatal("the real gate fails I5 on the same stream")
	}
}

// dropSingles is a gate that ignores one-byte fragments: right for any
// stream whose fragments are longer, wrong under re-chunking.
type dropSingles struct{ g *gate.Gate }

func (d dropSingles) Feed(ev sealgate.Event) ([]sealgate.Decision, error) {
	if ev.Kind == sealgate.Delta && len(ev.Bytes) == 1 {
		ev.Bytes = nil
	}
	return d.g.Feed(ev)
}
func (d dropSingles) Retained() int { return d.g.Retained() }

func TestI6CatchesChunkDependence(t *testing.T) {
	chk := wrapChecker(func(g *gate.Gate) gated { return dropSingles{g} })
	evs := []sealgate.Event{open1, begin1, delta1, end1, close1}
	orig, _ := runGate(chk, cfgWithSecret(), evs)
	err := chk.CheckChunking(cfgWithSecret(), evs, orig, check.SingleBytes)
	var v *check.Violation
	if !errors.As(err, &v) || v.ID != "I6" {
		t.Fatalf("want I6, got %v", err)
	}
	if err := check.Default.CheckChunking(cfgWithSecret(), evs, orig, check.SingleBytes); err != nil {
		t.Fatalf("the real gate fails I6: %v", err)
	}
}

// splitDelta is a call's text in two deltas, the second at an odd event
// index (so check.feed sends it through FeedDelta).
var splitDelta = []sealgate.Event{open1, begin1, sealgate.DeltaEvent("r1", "0", []byte("{")), sealgate.DeltaEvent("r1", "0", []byte(`"a":1}`)), end1, close1}

// wantI12 runs evs through All with the gates that wrap makes around a real
// one, and wants the gate == model check to fail.
func wantI12(t *testing.T, wrap func(*gate.Gate) gated, evs []sealgate.Event) {
	t.Helper()
	chk := wrapChecker(wrap)
	if err := chk.All(cfgWithSecret(), evs); err == nil || !strings.HasPrefix(err.Error(), "I12") {
		t.Fatalf("want an I12 gate == model failure, got %v", err)
	}
}

func TestAllReportsModelDisagreement(t *testing.T) {
	wantI12(t, func(g *gate.Gate) gated { return dropSingles{g} }, splitDelta)
}

func TestRechunkMapsEvents(t *testing.T) {
	evs := []sealgate.Event{open1, sealgate.DeltaEvent("r1", "0", []byte("abc")), close1}
	out, from := check.Rechunk(evs, check.SingleBytes)
	if len(out) != 5 || from[1] != 2 || from[3] != 2 || from[4] != 3 || string(out[2].Bytes) != "b" {
		t.Fatalf("Rechunk gave %v / %v", out, from)
	}
}

func TestSerializeGroupsCalls(t *testing.T) {
	d := func(item, b string) sealgate.Event { return sealgate.DeltaEvent("r1", item, []byte(b)) }
	evs := []sealgate.Event{open1, begin1, sealgate.BeginEvent("r1", "1", "c2", "login"), d("1", "x"), d("0", "y"), peek1, d("1", "z"), close1}
	out, moved := check.Serialize(evs)
	var got []string
	for _, e := range out {
		got = append(got, e.Kind.String()+e.Item+string(e.Bytes))
	}
	want := "open begin0 delta0y begin1 delta1x peek0 delta1z close"
	if !moved || strings.Join(got, " ") != want {
		t.Fatalf("Serialize gave %q, want %q", strings.Join(got, " "), want)
	}
}

// deltaEntryBug is a gate whose FeedDelta drops its bytes while its Feed is
// right: the checks must reach both entry points to catch it.
type deltaEntryBug struct{ *gate.Gate }

func (d deltaEntryBug) FeedDelta(attempt, item string, b []byte) ([]sealgate.Decision, error) {
	return d.Gate.FeedDelta(attempt, item, nil)
}

func TestChecksFeedDeltasBothWays(t *testing.T) {
	wantI12(t, func(g *gate.Gate) gated { return deltaEntryBug{g} }, splitDelta)
	if err := check.Default.All(cfgWithSecret(), splitDelta); err != nil {
		t.Fatalf("the real gate fails the same stream: %v", err)
	}
	// A lone delta at an even index goes through Feed in the first run and
	// through FeedDelta in the determinism rerun.
	evs := []sealgate.Event{open1, begin1, delta1, end1, close1}
	wantI12(t, func(g *gate.Gate) gated { return deltaEntryBug{g} }, evs)
}

// ackEntryBug is a gate whose Ack reports the opposite outcome while its
// Feed of an ack event is right.
type ackEntryBug struct{ *gate.Gate }

func (a ackEntryBug) Ack(key string, ok bool) ([]sealgate.Decision, error) {
	return a.Gate.Feed(sealgate.AckEvent(key, !ok))
}

// ackFeedBug is the converse: Feed reports an ack's opposite outcome while
// Ack is right.
type ackFeedBug struct{ *gate.Gate }

func (a ackFeedBug) Feed(ev sealgate.Event) ([]sealgate.Decision, error) {
	if ev.Kind == sealgate.Ack {
		ev.OK = !ev.OK
	}
	return a.Gate.Feed(ev)
}

// ackedStreams are a release, its ack fail and a second attempt that runs
// the call again (which it may only because the key was cleared), with the
// ack at an odd and at an even index: every ack reaches both entry points
// in All, whichever index it has.
func ackedStreams(t *testing.T) [][]sealgate.Event {
	t.Helper()
	first := []sealgate.Event{open1, begin1, delta1, end1, close1}
	tr := check.Default.Record(cfgWithSecret(), first)
	if len(tr.Decisions) != 1 || tr.Decisions[0].Kind != sealgate.Release {
		t.Fatalf("want one release, got %v", tr.Decisions)
	}
	ack := sealgate.AckEvent(tr.Decisions[0].Key, false)
	open2 := sealgate.OpenEvent("r2", "t1")
	second := []sealgate.Event{sealgate.BeginEvent("r2", "0", "c1", "login"),
		sealgate.DeltaEvent("r2", "0", delta1.Bytes), sealgate.EndEvent("r2", "0"), sealgate.CloseEvent("r2", sealgate.Complete)}
	odd := slices.Concat(first, []sealgate.Event{ack, open2}, second)
	even := slices.Concat(first, []sealgate.Event{open2, ack}, second)
	return [][]sealgate.Event{odd, even}
}

func TestChecksAcksBothWays(t *testing.T) {
	for i, evs := range ackedStreams(t) {
		m := check.Default.Run(cfgWithSecret(), evs)
		if err := m.Agree(); err != nil || len(m.Gate) != 2 || m.Gate[1].Kind != sealgate.Release {
			t.Fatalf("stream %d: want the call released twice, got %v (%v)", i, m.Gate, err)
		}
		if err := check.Default.All(cfgWithSecret(), evs); err != nil {
			t.Fatalf("stream %d: the real gate fails: %v", i, err)
		}
		wantI12(t, func(g *gate.Gate) gated { return ackEntryBug{g} }, evs)
		wantI12(t, func(g *gate.Gate) gated { return ackFeedBug{g} }, evs)
	}
}

// gated is a wrapper around the real gate with a planted bug.
type gated interface {
	Feed(sealgate.Event) ([]sealgate.Decision, error)
	Retained() int
}

// fullSubject holds a wrapper to the whole SPEC, as the real gate is.
type fullSubject struct{ gated }

func (fullSubject) Capabilities() check.Capabilities { return check.FullCapabilities() }

// fullDeltaSubject is a fullSubject whose wrapper has its own FeedDelta,
// which the checks then use for every other delta.
type fullDeltaSubject struct{ fullSubject }

func (s fullDeltaSubject) FeedDelta(attempt, item string, b []byte) ([]sealgate.Decision, error) {
	return s.gated.(deltaFeeder).FeedDelta(attempt, item, b)
}

type deltaFeeder interface {
	FeedDelta(attempt, item string, b []byte) ([]sealgate.Decision, error)
}

// fullAckSubject is a fullSubject whose wrapper has its own Ack, which the
// checks then use for every other ack.
type fullAckSubject struct{ fullSubject }

func (s fullAckSubject) Ack(key string, ok bool) ([]sealgate.Decision, error) {
	return s.gated.(acker).Ack(key, ok)
}

// fullEntriesSubject is a fullSubject whose wrapper has both FeedDelta and
// Ack.
type fullEntriesSubject struct{ fullSubject }

func (s fullEntriesSubject) FeedDelta(attempt, item string, b []byte) ([]sealgate.Decision, error) {
	return s.gated.(deltaFeeder).FeedDelta(attempt, item, b)
}

func (s fullEntriesSubject) Ack(key string, ok bool) ([]sealgate.Decision, error) {
	return s.gated.(acker).Ack(key, ok)
}

type acker interface {
	Ack(key string, ok bool) ([]sealgate.Decision, error)
}

// wrapChecker checks the real gate inside wrap, at full fidelity.
func wrapChecker(wrap func(*gate.Gate) gated) *check.Checker {
	return check.NewChecker(func(cfg sealgate.Config) (check.Subject, error) {
		g, err := gate.New(cfg, gate.NewMemoryLedger())
		if err != nil {
			return nil, err
		}
		w := wrap(g)
		_, deltas := w.(deltaFeeder)
		_, acks := w.(acker)
		switch {
		case deltas && acks:
			return fullEntriesSubject{fullSubject{w}}, nil
		case deltas:
			return fullDeltaSubject{fullSubject{w}}, nil
		case acks:
			return fullAckSubject{fullSubject{w}}, nil
		}
		return fullSubject{w}, nil
	})
}

// runGate is what the subject said, and its error.
func runGate(chk *check.Checker, cfg sealgate.Config, evs []sealgate.Event) ([]sealgate.Decision, error) {
	t := chk.Record(cfg, evs)
	return t.Decisions, t.Err
}

// sampledBy is chk running its costliest checks on one scenario in n.
func sampledBy(chk *check.Checker, n int) *check.Checker {
	s := *chk
	s.Sample = n
	return &s
}

// reversed is a gate that gives each event's decisions last first, as one
// that collects them in a map or on a stack might.
type reversed struct{ *gate.Gate }

func (r reversed) Feed(ev sealgate.Event) ([]sealgate.Decision, error) {
	ds, err := r.Gate.Feed(ev)
	slices.Reverse(ds)
	return ds, err
}

func TestI13VerdictsOutOfBeginOrder(t *testing.T) {
	two := []sealgate.Event{open1, begin1, sealgate.BeginEvent("r1", "1", "c2", "login"),
		sealgate.DeltaEvent("r1", "1", []byte(`{"b":2}`)), sealgate.DeltaEvent("r1", "0", []byte(`{"a":1}`)),
		sealgate.EndEvent("r1", "1"), end1}
	for _, last := range []sealgate.Event{close1, sealgate.CloseEvent("r1", sealgate.Truncated)} {
		evs := append(slices.Clone(two), last)
		if err := check.Default.All(cfgWithSecret(), evs); err != nil {
			t.Fatalf("the real gate fails: %v", err)
		}
		tr := wrapChecker(func(g *gate.Gate) gated { return reversed{g} }).Record(cfgWithSecret(), evs)
		if n := len(tr.Decisions); n != 2 || tr.Decisions[0].Item != "1" {
			t.Fatalf("want two verdicts at the close, item 1 first, got %v", tr.Decisions)
		}
		wantViolation(t, tr, "I13")
		// A subject that only releases is held to it as well.
		rev := func(_ int, _ sealgate.Event, ds []sealgate.Decision) []sealgate.Decision {
			slices.Reverse(ds)
			return ds
		}
		if last.Status == sealgate.Complete {
			wantID(t, limitedChecker(releaseOnly, rev, nil).All(cfgWithSecret(), evs), "I13")
		}
	}
}

func TestI4CompensateNamesItsRelease(t *testing.T) {
	cfg := cfgWithSecret()
	cfg.Release = sealgate.PerCall
	cfg.Tools[0].Early = true
	tr := check.Default.Record(cfg, []sealgate.Event{open1, begin1, delta1, end1, sealgate.CloseEvent("r1", sealgate.Truncated)})
	if err := check.Invariants(tr); err != nil {
		t.Fatalf("the unbroken trace already fails: %v", err)
	}
	if len(tr.Decisions) != 2 || tr.Decisions[1].Kind != sealgate.Compensate || tr.Decisions[1].Key != tr.Decisions[0].Key {
		t.Fatalf("want a release and its compensate with its key, got %v", tr.Decisions)
	}
	tr.Decisions[1].Key = "0000000000000000"
	wantViolation(t, tr, "I4")
}

// entryCounter is the real gate counting the acks that reach it through
// Feed and through Ack; every subject All builds adds to the same counts.
type entryCounter struct {
	*gate.Gate
	fed, acked *int
}

func (c entryCounter) Feed(ev sealgate.Event) ([]sealgate.Decision, error) {
	if ev.Kind == sealgate.Ack {
		*c.fed++
	}
	return c.Gate.Feed(ev)
}

func (c entryCounter) Ack(key string, ok bool) ([]sealgate.Decision, error) {
	*c.acked++
	return c.Gate.Ack(key, ok)
}

// TestCorpusAcksReachBothEntryPoints: All sends acks through Ack as well
// as Feed on every corpus file that has one, whatever the acks' indexes.
func TestCorpusAcksReachBothEntryPoints(t *testing.T) {
	files, err := scn.Files(filepath.Join("..", "corpus"))
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, f := range files {
		s, err := scn.ParseFile(f)
		if err != nil {
			t.Fatal(err)
		}
		cfg, err := s.Config()
		if err != nil || !slices.ContainsFunc(s.Events, func(e sealgate.Event) bool { return e.Kind == sealgate.Ack }) {
			continue
		}
		n++
		var fed, acked int
		chk := wrapChecker(func(g *gate.Gate) gated { return entryCounter{g, &fed, &acked} })
		if err := chk.All(cfg, s.Events); err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		if fed == 0 || acked == 0 {
			t.Errorf("%s: %d acks through Feed, %d through Ack: want both", f, fed, acked)
		}
	}
	if n == 0 {
		t.Fatal("no corpus file has an ack")
	}
	t.Logf("%d corpus files with acks", n)
}
