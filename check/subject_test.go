package check_test

import (
	"errors"
	"fmt"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/sealgate/sealgate"
	"github.com/sealgate/sealgate/check"
	"github.com/sealgate/sealgate/gate"
	"github.com/sealgate/sealgate/scn"
)

// limited is the real gate presented as a subject with fewer capabilities:
// it says only the decisions its capabilities claim, and edit (when set)
// changes what it says, to plant a bug in one place.
type limited struct {
	caps check.Capabilities
	g    *gate.Gate
	n    int
	edit func(n int, ev sealgate.Event, ds []sealgate.Decision) []sealgate.Decision
	seen []sealgate.Event
}

func (l *limited) Capabilities() check.Capabilities { return l.caps }
func (l *limited) Retained() int                    { return l.g.Retained() }

func (l *limited) Feed(ev sealgate.Event) ([]sealgate.Decision, error) {
	l.n++
	l.seen = append(l.seen, ev)
	ds, err := l.g.Feed(ev)
	var out []sealgate.Decision
	for _, d := range ds {
		if l.caps.Emits(d.Kind) {
			d.At = 0 // a subject need not number its answers
			out = append(out, d)
		}
	}
	if l.edit != nil {
		out = l.edit(l.n, ev, out)
	}
	return out, err
}

// limitedChecker checks limited subjects; the last one built goes to *last.
func limitedChecker(caps check.Capabilities, edit func(int, sealgate.Event, []sealgate.Decision) []sealgate.Decision, last **limited) *check.Checker {
	return check.NewChecker(func(cfg sealgate.Config) (check.Subject, error) {
		g, err := gate.New(cfg, gate.NewMemoryLedger())
		if err != nil {
			return nil, err
		}
		l := &limited{caps: caps, g: g, edit: edit}
		if last != nil {
			*last = l
		}
		return l, nil
	})
}

func wantID(t *testing.T, err error, id string) {
	t.Helper()
	var v *check.Violation
	if !errors.As(err, &v) || v.ID != id {
		t.Fatalf("want a %s violation, got %v", id, err)
	}
	t.Logf("%v", err)
}

var releaseOnly = check.Capabilities{}

var someCaps = []check.Capabilities{
	releaseOnly,
	{Decides: check.Decisions(sealgate.Reject)},
	{Decides: check.Decisions(sealgate.Reject), Restarts: true},
	{Decides: check.Decisions(sealgate.Reject, sealgate.Anomaly, sealgate.Compensate), Acks: true},
	{Decides: check.Decisions(sealgate.Reject, sealgate.Reconcile), Acks: true, Restarts: true, SplitRunes: true},
	{Decides: check.Decisions(sealgate.PreviewAnswer), Peeks: true, Retained: true},
	{Decides: check.Decisions(sealgate.PreviewAnswer, sealgate.Reject, sealgate.Reconcile), Peeks: true, Retained: true},
	{Decides: check.AllDecisions, Peeks: true, Acks: true, Restarts: true, Retained: true, SplitRunes: true},
}

// TestCorpusAllChecks runs every check over the whole corpus: on the real
// gate (SEAL included), and on the real gate presented with less than its
// full capabilities, where a missing capability must never show as a
// violation.
func TestCorpusAllChecks(t *testing.T) {
	files, err := scn.Files(filepath.Join("..", "corpus"))
	if err != nil {
		t.Fatal(err)
	}
	checkers := []*check.Checker{check.Default}
	for _, c := range someCaps {
		checkers = append(checkers, limitedChecker(c, nil, nil))
	}
	for _, f := range files {
		s, err := scn.ParseFile(f)
		if err != nil {
			t.Fatal(err)
		}
		cfg, err := s.Config()
		if err != nil {
			continue // refused for both; TestCorpus covers it
		}
		for i, chk := range checkers {
			if err := chk.All(cfg, s.Events); err != nil {
				t.Errorf("%s, subject %d: %v", f, i, err)
			}
		}
	}
}

func TestCarryLeavesOutWhatASubjectDoesNotTake(t *testing.T) {
	var l *limited
	evs := []sealgate.Event{open1, begin1, delta1, peek1, end1, close1, sealgate.AckEvent("k", true), sealgate.RestartEvent()}
	tr := limitedChecker(releaseOnly, nil, &l).Record(cfgWithSecret(), evs)
	if len(l.seen) != 5 || len(tr.Events) != 5 {
		t.Fatalf("a release-only subject was given %v", l.seen)
	}
	for _, ev := range l.seen {
		if ev.Kind == sealgate.Peek || ev.Kind == sealgate.Ack || ev.Kind == sealgate.Restart {
			t.Fatalf("a release-only subject was given %s", ev)
		}
	}
	if got := check.FullCapabilities().Carry(evs); len(got) != len(evs) {
		t.Fatalf("the full gate is given %d of %d events", len(got), len(evs))
	}
}

func TestCAPSUndeclaredDecision(t *testing.T) {
	addPreview := func(n int, ev sealgate.Event, ds []sealgate.Decision) []sealgate.Decision {
		if ev.Kind == sealgate.Delta {
			ds = append(ds, sealgate.Decision{Kind: sealgate.PreviewAnswer, Attempt: ev.Attempt, Item: ev.Item, Preview: sealgate.NoPreview})
		}
		return ds
	}
	wantID(t, limitedChecker(releaseOnly, addPreview, nil).All(cfgWithSecret(), []sealgate.Event{open1, begin1, delta1, end1, close1}), "CAPS")
}

// perCall has an early tool released at its own end, then a bad close.
func perCall() (sealgate.Config, []sealgate.Event) {
	cfg := cfgWithSecret()
	cfg.Release = sealgate.PerCall
	cfg.Tools[0].Early = true
	return cfg, []sealgate.Event{open1, begin1, delta1, end1, sealgate.CloseEvent("r1", sealgate.Disconnected)}
}

func TestI4CompensationOnlyWhenClaimed(t *testing.T) {
	cfg, evs := perCall()
	noComp := func(n int, ev sealgate.Event, ds []sealgate.Decision) []sealgate.Decision {
		var out []sealgate.Decision
		for _, d := range ds {
			if d.Kind != sealgate.Compensate {
				out = append(out, d)
			}
		}
		return out
	}
	claims := check.Capabilities{Decides: check.Decisions(sealgate.Compensate, sealgate.Reject)}
	if err := limitedChecker(claims, nil, nil).All(cfg, evs); err != nil {
		t.Fatalf("the real gate with its compensations fails: %v", err)
	}
	wantID(t, limitedChecker(claims, noComp, nil).All(cfg, evs), "I4")
	if err := limitedChecker(releaseOnly, nil, nil).All(cfg, evs); err != nil {
		t.Fatalf("a subject that cannot compensate is held to compensating: %v", err)
	}
}

func TestI11VerdictOnlyWhenClaimed(t *testing.T) {
	evs := []sealgate.Event{open1, begin1, delta1, sealgate.CloseEvent("r1", sealgate.Truncated)}
	dropRejects := func(n int, ev sealgate.Event, ds []sealgate.Decision) []sealgate.Decision { return nil }
	rejects := check.Capabilities{Decides: check.Decisions(sealgate.Reject, sealgate.Reconcile)}
	wantID(t, limitedChecker(rejects, dropRejects, nil).All(cfgWithSecret(), evs), "I11")
	if err := limitedChecker(releaseOnly, nil, nil).All(cfgWithSecret(), evs); err != nil {
		t.Fatalf("a subject that cannot reject is held to a verdict: %v", err)
	}
}

func TestI9OnlyWhenClaimed(t *testing.T) {
	evs := []sealgate.Event{open1, begin1, delta1, end1, close1}
	for _, claim := range []bool{true, false} {
		chk := check.NewChecker(func(cfg sealgate.Config) (check.Subject, error) {
			g, err := gate.New(cfg, gate.NewMemoryLedger())
			return &overRetains{limited{caps: check.Capabilities{Retained: claim, Decides: check.Decisions(sealgate.Reject, sealgate.Reconcile)}, g: g}}, err
		})
		err := chk.All(cfgWithSecret(), evs)
		if claim {
			wantID(t, err, "I9")
		} else if err != nil {
			t.Fatalf("a subject that does not report retention is held to I9: %v", err)
		}
	}
}

// overRetains says it holds a byte more than it does.
type overRetains struct{ limited }

func (o *overRetains) Retained() int { return o.g.Retained() + 1 }

func TestI12OnlyForFullFidelity(t *testing.T) {
	evs := []sealgate.Event{open1, begin1, sealgate.DeltaEvent("r1", "0", []byte(`{"a":`)), end1, close1}
	wrongReason := func(n int, ev sealgate.Event, ds []sealgate.Decision) []sealgate.Decision {
		for i := range ds {
			if ds[i].Kind == sealgate.Reject {
				ds[i].Reason = sealgate.SchemaFailed
			}
		}
		return ds
	}
	rejects := check.Capabilities{Decides: check.Decisions(sealgate.Reject)}
	if err := limitedChecker(rejects, wrongReason, nil).All(cfgWithSecret(), evs); err != nil {
		t.Fatalf("a partial subject is held to the model's reasons: %v", err)
	}
	full := check.FullCapabilities()
	wantID(t, limitedChecker(full, func(n int, ev sealgate.Event, ds []sealgate.Decision) []sealgate.Decision {
		for i := range ds {
			ds[i].At = n // a full subject's lines are compared whole
		}
		return wrongReason(n, ev, ds)
	}, nil).All(cfgWithSecret(), evs), "I12")
}

// TestShapeComesFromTheModel: a subject that reports no anomalies is still
// judged on the stream's real shape, so a release from a poisoned attempt
// is caught.
func TestShapeComesFromTheModel(t *testing.T) {
	evs := []sealgate.Event{open1, begin1, sealgate.DeltaEvent("r1", "0", []byte(`{}`)), end1,
		sealgate.BeginEvent("r1", "0", "c9", "login"), close1}
	releaseAnyway := func(n int, ev sealgate.Event, ds []sealgate.Decision) []sealgate.Decision {
		if ev.Kind == sealgate.Close {
			return []sealgate.Decision{{Kind: sealgate.Release, Attempt: "r1", Item: "0", Call: "c1", Tool: "login",
				Key: "k", Args: sealgate.Sealed(`{}`)}}
		}
		return ds
	}
	if err := limitedChecker(releaseOnly, nil, nil).All(cfgWithSecret(), evs); err != nil {
		t.Fatalf("the real gate, release only, fails: %v", err)
	}
	// The attempt was poisoned at event 5, so its close is no close
	// complete of a live attempt.
	wantID(t, limitedChecker(releaseOnly, releaseAnyway, nil).All(cfgWithSecret(), evs), "I1")
}

// releaseAt replaces the decisions of the close with one release.
func releaseAt(d sealgate.Decision) func(int, sealgate.Event, []sealgate.Decision) []sealgate.Decision {
	return func(n int, ev sealgate.Event, ds []sealgate.Decision) []sealgate.Decision {
		if ev.Kind == sealgate.Close {
			return []sealgate.Decision{d}
		}
		return ds
	}
}

func TestSEAL(t *testing.T) {
	cut := []byte(`{"token": "s3`)
	evs := []sealgate.Event{open1, begin1, sealgate.DeltaEvent("r1", "0", cut), end1, close1}
	rel := sealgate.Decision{Kind: sealgate.Release, Attempt: "r1", Item: "0", Call: "c1", Tool: "login", Key: "k"}
	cases := []struct {
		name string
		args string
		edit func(*sealgate.Decision)
	}{
		// Equal to the fragments compacted (so I2 holds), but not JSON.
		{"invalid", string(sealgate.Compact(cut)), nil},
		{"not an object", `[1]`, nil},
		{"wrong tool", string(sealgate.Compact(cut)), func(d *sealgate.Decision) { d.Tool = "rm" }},
		{"no such call", `{}`, func(d *sealgate.Decision) { d.Item = "7" }},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			d := rel
			d.Args = sealgate.Sealed(c.args)
			if c.edit != nil {
				c.edit(&d)
			}
			tr := limitedChecker(releaseOnly, releaseAt(d), nil).Record(cfgWithSecret(), evs)
			err := check.Invariants(tr)
			if c.name == "not an object" {
				wantID(t, err, "I2") // its bytes differ too, and I2 comes first
				tr.Events = append([]sealgate.Event(nil), tr.Events...)
				tr.Events[2].Bytes = []byte(`[1]`)
				err = check.Invariants(tr)
			}
			wantID(t, err, "SEAL")
		})
	}
}

// runeShy fails on a fragment that starts inside a rune, as an SDK whose
// fragments travel as JSON strings would.
type runeShy struct{ limited }

func (r *runeShy) Feed(ev sealgate.Event) ([]sealgate.Decision, error) {
	if ev.Kind == sealgate.Delta && len(ev.Bytes) > 0 && ev.Bytes[0]&0xC0 == 0x80 {
		return nil, fmt.Errorf("%w: fragment starts inside a rune", check.ErrSubjectFailed)
	}
	return r.limited.Feed(ev)
}

func TestI6KeepsRunesWholeUnlessClaimed(t *testing.T) {
	evs := []sealgate.Event{open1, begin1, sealgate.DeltaEvent("r1", "0", []byte(`{"u":"日記"}`)), end1, close1}
	for _, split := range []bool{false, true} {
		chk := check.NewChecker(func(cfg sealgate.Config) (check.Subject, error) {
			g, err := gate.New(cfg, gate.NewMemoryLedger())
			return &runeShy{limited{caps: check.Capabilities{SplitRunes: split}, g: g}}, err
		})
		err := chk.All(cfgWithSecret(), evs)
		if split {
			wantID(t, err, "SUBJECT")
		} else if err != nil {
			t.Fatalf("fragments were split inside a rune for a subject that cannot carry it: %v", err)
		}
	}
}

func TestDETAndSubjectFailure(t *testing.T) {
	evs := []sealgate.Event{open1, begin1, delta1, end1, close1}
	runs := 0
	flaky := func(n int, ev sealgate.Event, ds []sealgate.Decision) []sealgate.Decision {
		if n == 1 {
			runs++
		}
		if ev.Kind == sealgate.Close && runs == 2 {
			return nil
		}
		return ds
	}
	wantID(t, limitedChecker(releaseOnly, flaky, nil).All(cfgWithSecret(), evs), "DET")
	broken := check.NewChecker(func(sealgate.Config) (check.Subject, error) {
		return nil, fmt.Errorf("%w: the process exited", check.ErrSubjectFailed)
	})
	wantID(t, broken.All(cfgWithSecret(), evs), "SUBJECT")
	refusing := check.NewChecker(func(sealgate.Config) (check.Subject, error) { return nil, errors.New("no schemas here") })
	if err := refusing.All(cfgWithSecret(), evs); err != nil {
		t.Fatalf("a refusal is not a violation for a partial subject: %v", err)
	}
}

// TestApplicable: a subject is held to every check but those its
// capabilities rule out, in the order All runs them. It names only the
// checks left out, so a new invariant that always applies changes nothing
// here.
func TestApplicable(t *testing.T) {
	for _, c := range []struct {
		caps    check.Capabilities
		name    string
		leftOut string
	}{
		{check.FullCapabilities(), "full", "DET I14"},
		{releaseOnly, "release only", "I12 I8 I9 I10"},
	} {
		var want, skipped []string
		for _, ch := range check.Checks() {
			if ch.Applies(c.caps) {
				want = append(want, ch.ID)
			} else {
				skipped = append(skipped, ch.ID)
			}
		}
		var got []string
		for _, ch := range check.Applicable(c.caps) {
			got = append(got, ch.ID)
		}
		if strings.Join(got, " ") != strings.Join(want, " ") {
			t.Errorf("%s: applicable %v, want %v", c.name, got, want)
		}
		if strings.Join(skipped, " ") != c.leftOut {
			t.Errorf("%s: left out %v, want %s", c.name, skipped, c.leftOut)
		}
	}
	if ids := check.Checks(); ids[0].ID != "CAPS" || ids[len(ids)-1].ID != "I5" {
		t.Errorf("checks run from CAPS to I5, got %v .. %v", ids[0].ID, ids[len(ids)-1].ID)
	}
}

// TestI7UsesTheSPECKey: a partial subject cannot escape I7 by naming its
// own keys, and one that takes acks must name the SPEC's.
func TestI7UsesTheSPECKey(t *testing.T) {
	evs := []sealgate.Event{open1, begin1, delta1, end1, close1,
		sealgate.OpenEvent("r2", "t1"), sealgate.BeginEvent("r2", "0", "c1", "login"),
		sealgate.DeltaEvent("r2", "0", delta1.Bytes), sealgate.EndEvent("r2", "0"), sealgate.CloseEvent("r2", sealgate.Complete)}
	ownKeys := func(n int, ev sealgate.Event, ds []sealgate.Decision) []sealgate.Decision {
		if ev.Kind == sealgate.Close {
			return []sealgate.Decision{{Kind: sealgate.Release, Attempt: ev.Attempt, Item: "0", Call: "c1", Tool: "login",
				Key: "own-" + ev.Attempt, Args: sealgate.Sealed(delta1.Bytes)}}
		}
		return ds
	}
	wantID(t, limitedChecker(releaseOnly, ownKeys, nil).All(cfgWithSecret(), evs), "I7")
	once := func(n int, ev sealgate.Event, ds []sealgate.Decision) []sealgate.Decision {
		if ev.Kind == sealgate.Close && ev.Attempt == "r2" {
			return nil
		}
		return ownKeys(n, ev, ds)
	}
	if err := limitedChecker(releaseOnly, once, nil).All(cfgWithSecret(), evs); err != nil {
		t.Fatalf("one release under the subject's own key fails: %v", err)
	}
	wantID(t, limitedChecker(check.Capabilities{Acks: true}, once, nil).All(cfgWithSecret(), evs), "I7")
}

// TestI14ReleaseSoundness: whatever a subject claims, a release the model
// does not make is a violation that names the model's verdict; a subject
// that claims reasons must not reject what the model releases.
func TestI14ReleaseSoundness(t *testing.T) {
	cfg := sealgate.DefaultConfig()
	cfg.Tools = []sealgate.Tool{{Name: "save_file", Schema: `{"type":"object"}`,
		Allow: &sealgate.Allow{Field: "path", Values: []string{"notes.md"}}}}
	stream := func(args string) []sealgate.Event {
		return []sealgate.Event{sealgate.OpenEvent("r1", "t1"), sealgate.BeginEvent("r1", "0", "c1", "save_file"),
			sealgate.DeltaEvent("r1", "0", []byte(args)), sealgate.EndEvent("r1", "0"), sealgate.CloseEvent("r1", sealgate.Complete)}
	}
	// ignoresAllowLists releases every ended call of a complete attempt,
	// its fragments compacted: all it leaves out is authorization.
	ignoresAllowLists := func(n int, ev sealgate.Event, ds []sealgate.Decision) []sealgate.Decision {
		if ev.Kind != sealgate.Close {
			return nil
		}
		args := stream(`{"path":"/etc/passwd"}`)[2].Bytes
		return []sealgate.Decision{{At: n, Kind: sealgate.Release, Attempt: "r1", Item: "0", Call: "c1", Tool: "save_file",
			Key: "k", Args: sealgate.Compact(args)}}
	}
	err := limitedChecker(releaseOnly, ignoresAllowLists, nil).All(cfg, stream(`{"path":"/etc/passwd"}`))
	wantID(t, err, "I14")
	if !strings.Contains(err.Error(), "reject unauthorized") {
		t.Errorf("the violation does not name the model's verdict: %v", err)
	}
	if err := limitedChecker(releaseOnly, nil, nil).All(cfg, stream(`{"path":"/etc/passwd"}`)); err != nil {
		t.Errorf("the real gate, claiming release only: %v", err)
	}

	reasons := check.Capabilities{Decides: check.Decisions(sealgate.Reject), Reasons: true}
	rejectsAll := func(n int, ev sealgate.Event, ds []sealgate.Decision) []sealgate.Decision {
		for i, d := range ds {
			if d.Kind == sealgate.Release {
				ds[i] = sealgate.Decision{At: d.At, Kind: sealgate.Reject, Attempt: d.Attempt, Item: d.Item, Reason: sealgate.SchemaFailed}
			}
		}
		return ds
	}
	err = limitedChecker(reasons, rejectsAll, nil).All(cfg, stream(`{"path":"notes.md"}`))
	wantID(t, err, "I14")
	if !strings.Contains(err.Error(), "reason=schema") || !strings.Contains(err.Error(), "the model releases it") {
		t.Errorf("the violation does not name both verdicts: %v", err)
	}
	noReasons := check.Capabilities{Decides: check.Decisions(sealgate.Reject)}
	if err := limitedChecker(noReasons, rejectsAll, nil).All(cfg, stream(`{"path":"notes.md"}`)); err != nil {
		t.Errorf("a subject that claims no reasons owes no release: %v", err)
	}
}

// TestSchemalessSubjectOpenedOnce: a subject that validates no schemas is
// given a configuration without them; once it has said so, its next run
// is opened that way at once, and a subject that changes its claim is
// opened again with what it claims now.
func TestSchemalessSubjectOpenedOnce(t *testing.T) {
	cfg, events := perCall()
	cfg.Tools[0].Schema = `{"type":"object"}`
	caps := check.Capabilities{}
	var given []string
	chk := check.NewChecker(func(c sealgate.Config) (check.Subject, error) {
		given = append(given, c.Tools[0].Schema)
		g, err := gate.New(c, gate.NewMemoryLedger())
		if err != nil {
			return nil, err
		}
		return &limited{caps: caps, g: g}, nil
	})
	record := func(want ...string) {
		t.Helper()
		given = nil
		tr := chk.Record(cfg, events)
		if tr.Err != nil || tr.Refused {
			t.Fatalf("record: %v (refused %v)", tr.Err, tr.Refused)
		}
		if !reflect.DeepEqual(given, want) {
			t.Fatalf("schemas given to the subject %q, want %q", given, want)
		}
		if wantCfg := want[len(want)-1]; tr.Config.Tools[0].Schema != wantCfg {
			t.Fatalf("the trace's configuration has schema %q, want %q", tr.Config.Tools[0].Schema, wantCfg)
		}
	}
	record(`{"type":"object"}`, `{}`) // the first run learns the claim
	record(`{}`)                      // after that: one open
	caps.Schemas = true
	record(`{}`, `{"type":"object"}`) // the claim changed: opened again with the schema
	record(`{"type":"object"}`)
}
