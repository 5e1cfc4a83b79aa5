package stdiogate_test

import (
	"bytes"
	"errors"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/sealgate/sealgate"
	"github.com/sealgate/sealgate/check"
	"github.com/sealgate/sealgate/internal/reduce"
	"github.com/sealgate/sealgate/scn"
	"github.com/sealgate/sealgate/stdiogate"
)

// The Python example gates and the verdicts docs/protocol.md states for
// them.

func python(t *testing.T, script string) *stdiogate.Client {
	t.Helper()
	py, err := exec.LookPath("python3")
	if err != nil {
		t.Skip("python3 not found on PATH: the Python example gates need it (.ci/run requires it)")
	}
	c, err := stdiogate.NewClient([]string{py, filepath.Join("..", "examples", "python", script)}, 0)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

func saveFile() sealgate.Config {
	cfg := sealgate.DefaultConfig()
	cfg.Tools = []sealgate.Tool{{Name: "save_file", Schema: `{"type":"object"}`}}
	return cfg
}

func call(attempt, turn string, status sealgate.Status, fragments ...string) []sealgate.Event {
	evs := []sealgate.Event{sealgate.OpenEvent(attempt, turn), sealgate.BeginEvent(attempt, "0", "c1", "save_file")}
	for _, f := range fragments {
		evs = append(evs, sealgate.DeltaEvent(attempt, "0", []byte(f)))
	}
	return append(evs, sealgate.EndEvent(attempt, "0"), sealgate.CloseEvent(attempt, status))
}

var (
	notesHead = `{"path":"notes.md","content":"已确认活动主题。`
	notesTail = `日期仍需等待场地确认。"}`
)

// verdict is the ID of the check a run fails, or "ok".
func verdict(chk *check.Checker, cfg sealgate.Config, evs []sealgate.Event) string {
	if err := chk.All(cfg, evs); err != nil {
		return reduce.ID(err)
	}
	return "ok"
}

// TestTeachingCheckVerdicts: the seed's own cases pass; what its narrow
// rules leave out fails the check docs/protocol.md names.
func TestTeachingCheckVerdicts(t *testing.T) {
	chk := python(t, "teaching_gate.py").Checker()
	interleaved := []sealgate.Event{sealgate.OpenEvent("r1", "t1"),
		sealgate.BeginEvent("r1", "0", "c1", "save_file"), sealgate.BeginEvent("r1", "1", "c2", "save_file"),
		sealgate.DeltaEvent("r1", "1", []byte(`{"path":"notes.md",`)), sealgate.DeltaEvent("r1", "0", []byte(`{"path":"notes.md",`)),
		sealgate.DeltaEvent("r1", "0", []byte(`"content":"a"}`)), sealgate.DeltaEvent("r1", "1", []byte(`"content":"b"}`)),
		sealgate.EndEvent("r1", "1"), sealgate.EndEvent("r1", "0"), sealgate.CloseEvent("r1", sealgate.Complete)}
	retry := append(call("r1", "t1", sealgate.Complete, notesHead, notesTail), call("r2", "t1", sealgate.Complete, notesHead, notesTail)...)
	afterEnd := call("r1", "t1", sealgate.Complete, notesHead, notesTail)
	afterEnd = append(afterEnd[:5:5], sealgate.DeltaEvent("r1", "0", []byte(" ")), afterEnd[5])
	cases := []struct {
		name string
		evs  []sealgate.Event
		want string
	}{
		{"the whole note at a clean close", call("r1", "t1", sealgate.Complete, notesHead, notesTail), "ok"},
		{"half a note, then a disconnect", call("r1", "t1", sealgate.Disconnected, notesHead), "ok"},
		{"the whole note, then a truncation", call("r1", "t1", sealgate.Truncated, notesHead, notesTail), "ok"},
		{"interleaved calls", interleaved, "ok"},
		{"another path", call("r1", "t1", sealgate.Complete, `{"path":"other.md","content":"x"}`), "ok"},
		// No idempotency key: a retry of the turn runs again.
		{"a retry of the turn", retry, "I7"},
		// No anomalies: a delta after the call's end poisons the attempt
		// (SPEC 3), yet its clean close still releases.
		{"a delta after the end", afterEnd, "I1"},
		// Python's json takes a lone surrogate, which strict JSON refuses.
		{"a lone surrogate", call("r1", "t1", sealgate.Complete, `{"path":"notes.md","content":"\ud800"}`), "SEAL"},
	}
	for _, c := range cases {
		if got := verdict(chk, saveFile(), c.evs); got != c.want {
			t.Errorf("%s: %s, want %s", c.name, got, c.want)
		}
	}
}

// TestTeachingCheckOverTheCorpus: over the corpus the teaching check fails
// exactly the checks docs/protocol.md names.
func TestTeachingCheckOverTheCorpus(t *testing.T) {
	chk := python(t, "teaching_gate.py").Checker()
	got := map[string]int{}
	for _, s := range corpus(t) {
		cfg, err := s.Config()
		if err != nil {
			continue
		}
		got[verdict(chk, cfg, s.Events)]++
	}
	var ids []string
	for id := range got {
		if id != "ok" {
			ids = append(ids, id)
		}
	}
	sort.Strings(ids)
	if strings.Join(ids, " ") != "I1 I14 I7 SEAL" {
		t.Fatalf("the teaching check fails %v over the corpus (counts %v), docs/protocol.md says I1 I14 I7 SEAL", ids, got)
	}
	t.Logf("verdicts over the corpus: %v", got)
}

// TestNaiveGateRepairsAtADisconnect: the naive gate fails I1, and the
// reducer's counterexample is a cut call released, repaired, at a
// disconnect.
func TestNaiveGateRepairsAtADisconnect(t *testing.T) {
	chk := python(t, "naive_gate.py").Checker()
	evs := call("r1", "t1", sealgate.Disconnected, notesHead)
	evs = append(evs[:3:3], evs[4]) // no end: the connection drops mid-call
	err := chk.All(saveFile(), evs)
	var v *check.Violation
	if !errors.As(err, &v) || v.ID != "I1" {
		t.Fatalf("want I1, got %v", err)
	}
	res, err := reduce.Reduce(saveFile(), evs, chk.All, reduce.Options{MaxTries: 500})
	if err != nil {
		t.Fatal(err)
	}
	said := chk.Record(res.Config, res.Events).Decisions
	t.Logf("reduced:\n%s\nthe gate said: %v", reduce.Text(res.Config, res.Events, res.Err), said)
	last := res.Events[len(res.Events)-1]
	if last.Kind != sealgate.Close || last.Status != sealgate.Disconnected {
		t.Fatalf("the reduced scenario does not end in a disconnect: %v", res.Events)
	}
	var sent []byte
	for _, e := range res.Events {
		sent = append(sent, e.Bytes...)
	}
	if len(said) != 1 || said[0].Kind != sealgate.Release || bytes.Equal(said[0].Args, sealgate.Compact(sent)) {
		t.Fatalf("want one release whose args are not what was sent (%q), got %v", sent, said)
	}
}

// TestLedgerGateRestart: the Python ledger gate, told of a restart by the
// same config line again, does not release the same call twice, in one
// process; the suite's I7 across restarts holds for it on that stream.
func TestLedgerGateRestart(t *testing.T) {
	c := python(t, "ledger_gate.py")
	one := call("r1", "t1", sealgate.Complete, `{"path":"notes.md"}`)
	again := call("r2", "t1", sealgate.Complete, `{"path":"notes.md"}`)
	evs := append(append(append([]sealgate.Event{}, one...), sealgate.RestartEvent()), again...)
	tr := c.Checker().Record(saveFile(), evs)
	if tr.Err != nil {
		t.Fatal(tr.Err)
	}
	var releases int
	for _, d := range tr.Decisions {
		if d.Kind == sealgate.Release {
			releases++
		}
	}
	if releases != 1 {
		t.Fatalf("%d releases of one call across a restart, want 1: %v", releases, tr.Decisions)
	}
	if c.Spawns() != 1 {
		t.Fatalf("%d processes for a restart by config line, want 1", c.Spawns())
	}
	if v := verdict(c.Checker(), saveFile(), evs); v != "ok" {
		t.Fatalf("the ledger gate fails %s on a stream it handles", v)
	}
}

// TestAllowListBlindGate: a gate that seals calls but ignores allow-lists,
// claiming release only, fails release soundness (I14) on the seed's
// unauthorized path, naming the model's verdict; the control does not.
func TestAllowListBlindGate(t *testing.T) {
	s, err := scn.ParseFile(filepath.Join("..", "corpus", "seed", "unauthorized-path.scn"))
	if err != nil {
		t.Fatal(err)
	}
	cfg, err := s.Config()
	if err != nil {
		t.Fatal(err)
	}
	err = python(t, "allowlist_blind_gate.py").Checker().All(cfg, s.Events)
	var v *check.Violation
	if !errors.As(err, &v) || v.ID != "I14" || !strings.Contains(v.Msg, "reject unauthorized") {
		t.Fatalf("want I14 naming reject unauthorized, got %v", err)
	}
	if err := helper(t, "control", 0).Checker().All(cfg, s.Events); err != nil {
		t.Fatalf("the control: %v", err)
	}
}
