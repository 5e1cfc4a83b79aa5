package reduce_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/sealgate/sealgate"
	"github.com/sealgate/sealgate/check"
	"github.com/sealgate/sealgate/internal/reduce"
	"github.com/sealgate/sealgate/internal/zoo"
	"github.com/sealgate/sealgate/internal/zoo/faults"
	"github.com/sealgate/sealgate/scn"
)

// longFailure is a 200-event stream of well-formed turns (three interleaved
// calls each, valid arguments, clean closes) under a configuration with
// rules and secrets. With "release at end" planted, the gate already
// disagrees with the model at the first end; the smallest failing
// scenario is open, begin, end with no configuration: 3 events.
func longFailure(n int) (sealgate.Config, []sealgate.Event) {
	cfg := sealgate.DefaultConfig()
	cfg.Tools = []sealgate.Tool{
		{Name: "save_file", Schema: `{"type":"object","required":["path"]}`, Allow: &sealgate.Allow{Field: "path", Values: []string{"notes.md"}}},
		{Name: "login", Schema: `{"type":"object"}`, Secrets: []string{"token"}},
	}
	var evs []sealgate.Event
	for turn := 0; len(evs) < n; turn++ {
		a := fmt.Sprintf("r%d", turn)
		evs = append(evs, sealgate.OpenEvent(a, fmt.Sprintf("t%d", turn)))
		for i := 0; i < 3; i++ {
			evs = append(evs, sealgate.BeginEvent(a, fmt.Sprint(i), fmt.Sprintf("c%d", i), []string{"save_file", "login", "save_file"}[i]))
		}
		for _, frag := range []string{`{"path":"no`, `tes.md","content":"`, `day `, fmt.Sprint(turn), `"}`} {
			for i := 0; i < 3; i++ {
				evs = append(evs, sealgate.DeltaEvent(a, fmt.Sprint(i), []byte(frag)))
			}
		}
		for i := 0; i < 3; i++ {
			evs = append(evs, sealgate.PeekEvent(a, fmt.Sprint(i)), sealgate.EndEvent(a, fmt.Sprint(i)))
		}
		evs = append(evs, sealgate.CloseEvent(a, sealgate.Complete))
	}
	return cfg, evs[:n]
}

func TestReduceToKnownMinimum(t *testing.T) {
	chk := zoo.WithFaults(faults.Set{ReleaseAtEnd: true})
	cfg, evs := longFailure(200)
	res, err := reduce.Reduce(cfg, evs, chk.All, reduce.Options{})
	if err != nil {
		t.Fatal(err)
	}
	text := reduce.Text(res.Config, res.Events, res.Err)
	if len(res.Events) != 3 || len(res.Config.Tools) != 0 {
		t.Fatalf("reduced to %d events and %d tools, want 3 and 0:\n%s", len(res.Events), len(res.Config.Tools), text)
	}
	kinds := []sealgate.EventKind{res.Events[0].Kind, res.Events[1].Kind, res.Events[2].Kind}
	if kinds[0] != sealgate.Open || kinds[1] != sealgate.Begin || kinds[2] != sealgate.End {
		t.Errorf("reduced events %v, want open, begin, end", kinds)
	}
	if reduce.ID(res.Err) != "I12" {
		t.Errorf("reduced failure is %v, want the original check I12", res.Err)
	}
	// The output is a scenario file that names its check and parses back.
	s, err := scn.Parse("reduced.scn", []byte(text))
	if err != nil {
		t.Fatalf("reduced text does not parse: %v\n%s", err, text)
	}
	if len(s.Events) != 3 || !strings.Contains(strings.Join(s.Notes, "\n"), "fails I12") {
		t.Errorf("reduced scenario lost its events or its note:\n%s", text)
	}
	t.Logf("200 events -> %d in %d tries:\n%s", len(res.Events), res.Tries, text)
}

func TestReduceRefusesPassingScenario(t *testing.T) {
	cfg, evs := longFailure(40)
	if _, err := reduce.Reduce(cfg, evs, check.All, reduce.Options{}); err == nil {
		t.Fatal("reducing a scenario that passes every check should be an error")
	}
}

// TestReduceKeepsTheSameCheck: a candidate that fails a different check is
// not taken, so the reduced scenario still shows the original failure.
func TestReduceKeepsTheSameCheck(t *testing.T) {
	cfg, evs := longFailure(30)
	calls := 0
	fake := func(c sealgate.Config, e []sealgate.Event) error {
		calls++
		switch {
		case len(e) >= 20:
			return &check.Violation{ID: "I1", Name: "seal first", Msg: "long"}
		case len(e) >= 5:
			return &check.Violation{ID: "I2", Name: "exact bytes", Msg: "other"}
		}
		return nil
	}
	res, err := reduce.Reduce(cfg, evs, fake, reduce.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Events) != 20 || reduce.ID(res.Err) != "I1" {
		t.Fatalf("reduced to %d events failing %v; want 20 events still failing I1", len(res.Events), res.Err)
	}
}

// BenchmarkReduce200 is the reducer's time on a 200-event failure.
func BenchmarkReduce200(b *testing.B) {
	chk := zoo.WithFaults(faults.Set{ReleaseAtEnd: true})
	cfg, evs := longFailure(200)
	for b.Loop() {
		if _, err := reduce.Reduce(cfg, evs, chk.All, reduce.Options{}); err != nil {
			b.Fatal(err)
		}
	}
}

// TestReduceForgottenLedgerToAck: a ledger that a restart forgets shows
// first as a second whole call with the same key after the restart (11
// events). No deletion shortens that; the ack rewrite does (the second call
// is only a question to the ledger about the key), and releasing at end
// drops the close: open, begin, delta, end, restart, ack, the smallest
// stream that can show the bug (the release needs four events, the restart
// one, and the question to the ledger one).
func TestReduceForgottenLedgerToAck(t *testing.T) {
	chk := zoo.WithFaults(faults.Set{ForgetLedgerOnRestart: true})
	cfg := sealgate.DefaultConfig()
	cfg.Tools = []sealgate.Tool{{Name: "save_file", Schema: `{"type":"object"}`}}
	call := func(a string) []sealgate.Event {
		return []sealgate.Event{
			sealgate.OpenEvent(a, "t1"), sealgate.BeginEvent(a, "0", "c1", "save_file"),
			sealgate.DeltaEvent(a, "0", []byte(`{"path":"notes.md","content":"x"}`)),
			sealgate.EndEvent(a, "0"), sealgate.CloseEvent(a, sealgate.Complete),
		}
	}
	evs := append(append(call("r1"), sealgate.RestartEvent()), call("r2")...)
	res, err := reduce.Reduce(cfg, evs, chk.All, reduce.Options{})
	if err != nil {
		t.Fatal(err)
	}
	text := reduce.Text(res.Config, res.Events, res.Err)
	var kinds []sealgate.EventKind
	for _, e := range res.Events {
		kinds = append(kinds, e.Kind)
	}
	want := []sealgate.EventKind{sealgate.Open, sealgate.Begin, sealgate.Delta, sealgate.End, sealgate.Restart, sealgate.Ack}
	if fmt.Sprint(kinds) != fmt.Sprint(want) {
		t.Fatalf("reduced to %v, want %v:\n%s", kinds, want, text)
	}
	t.Logf("11 events -> %d in %d tries:\n%s", len(res.Events), res.Tries, text)
}

func TestFileNameIsTheCheckID(t *testing.T) {
	for id, want := range map[string]string{
		"I2": "I2.scn", "SEAL": "SEAL.scn", "I12": "I12.scn",
		"event 3: ../x y": "event-3-----x-y.scn", "": "-.scn",
		strings.Repeat("a", 100): strings.Repeat("a", 60) + ".scn",
	} {
		if got := reduce.FileName(id); got != want {
			t.Errorf("FileName(%q) = %q, want %q", id, got, want)
		}
	}
}
