package reduce

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/sealgate/sealgate"
	"github.com/sealgate/sealgate/check"
	"github.com/sealgate/sealgate/internal/zoo"
	"github.com/sealgate/sealgate/model"
	"github.com/sealgate/sealgate/scn"
)

var (
	update = flag.Bool("update", false, "rewrite the expected part of testdata/minimal/*.scn from the reference model")
	show   = flag.Bool("show", false, "log every reduced scenario")
)

// minimalDir holds, per zoo bug, a counterexample written by hand.
const minimalDir = "testdata/minimal"

func loadScenario(t *testing.T, path string) (*scn.Scenario, sealgate.Config) {
	t.Helper()
	s, err := scn.ParseFile(path)
	if err != nil {
		t.Fatal(err)
	}
	cfg, err := s.Config()
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return s, cfg
}

// TestHandMinimal: each hand-written counterexample shows its bug, passes
// on the real gate, expects what the reference model decides, and cannot
// be shortened by the reducer (else it was not minimal).
func TestHandMinimal(t *testing.T) {
	names := map[string]bool{}
	for _, b := range zoo.All {
		names[b.Name+".scn"] = true
		t.Run(b.Name, func(t *testing.T) {
			path := filepath.Join(minimalDir, b.Name+".scn")
			s, cfg := loadScenario(t, path)
			want := model.Run(cfg, s.Events)
			if *update {
				s.Expect = want
				if err := os.WriteFile(path, s.Format(), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			if got := scn.FormatDecisions(s.Expect); !bytes.Equal(got, scn.FormatDecisions(want)) {
				t.Errorf("%s expects\n%s\nthe reference model decides\n%s", path, got, scn.FormatDecisions(want))
			}
			if err := check.All(cfg, s.Events); err != nil {
				t.Errorf("%s fails on the real gate: %v", path, err)
			}
			err := b.Checker().All(cfg, s.Events)
			if err == nil {
				t.Fatalf("%s passes with %s planted", path, b.Name)
			}
			res, err := Reduce(cfg, s.Events, b.Checker().All, Options{MaxTries: 3000})
			if err != nil {
				t.Fatal(err)
			}
			if len(res.Events) < len(s.Events) {
				t.Errorf("%s has %d events but the reducer makes it %d: not minimal\n%s", path, len(s.Events), len(res.Events), Text(res.Config, res.Events, res.Err))
			}
		})
	}
	files, err := filepath.Glob(filepath.Join(minimalDir, "*.scn"))
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		if !names[filepath.Base(f)] {
			t.Errorf("%s names no zoo bug", f)
		}
	}
}

// start is a failing scenario to reduce.
type start struct {
	name   string
	cfg    sealgate.Config
	events []sealgate.Event
}

// starts are the bug's deterministic kill as it is and made noisy.
func starts(t *testing.T, b zoo.Bug) []start {
	s, cfg := loadScenario(t, filepath.Join("..", "..", filepath.FromSlash(b.Kill.Where)))
	cfg2, evs2, applied := noisy(cfg, s.Events, b.Checker().All)
	if len(applied) < 3 {
		t.Fatalf("only %d kinds of noise keep %s failing: %v", len(applied), b.Kill.Where, applied)
	}
	return []start{{"kill", cfg, s.Events}, {"noisy " + strings.Join(applied, "+"), cfg2, evs2}}
}

// noisy adds to a failing scenario what a capture or a generator adds and
// a person leaves out, each kind of noise kept only if the scenario still
// fails the same way: long ids, 14 spaces of padding before each call's
// bytes and its final, deltas split in two, finals that repeat the bytes,
// per-call release of early tools, a peek after every delta, an unused
// tool and limit, and batch=atomic.
func noisy(cfg sealgate.Config, events []sealgate.Event, c Checker) (sealgate.Config, []sealgate.Event, []string) {
	err := c(cfg, events)
	id := kind(err)
	var applied []string
	keep := func(name string, cfg2 sealgate.Config, evs2 []sealgate.Event) {
		r := &reducer{check: c, max: 1 << 30, cfg: cfg, events: events}
		evs2 = r.rekey(cfg2, evs2)
		if err := c(cfg2, evs2); err != nil && kind(err) == id {
			cfg, events = cfg2, evs2
			applied = append(applied, name)
		}
	}
	// long ids
	{
		c2 := cloneConfig(cfg)
		long := func(prefix, s string) string { return prefix + "-" + s + "-of-a-long-captured-stream" }
		for i := range c2.Tools {
			c2.Tools[i].Name = long("tool", c2.Tools[i].Name)
		}
		evs := append([]sealgate.Event{}, events...)
		for i := range evs {
			e := &evs[i]
			if e.Attempt != "" {
				e.Attempt = long("attempt", e.Attempt)
			}
			if e.Kind == sealgate.Open {
				e.Turn = long("turn", e.Turn)
			}
			if e.Kind.NamesItem() {
				e.Item = long("item", e.Item)
			}
			if e.Kind == sealgate.Begin {
				e.Call, e.Tool = long("call", e.Call), long("tool", e.Tool)
			}
		}
		keep("ids", c2, evs)
	}
	// padding
	{
		pad := []byte(strings.Repeat(" ", 14))
		evs := append([]sealgate.Event{}, events...)
		first := map[string]bool{}
		for i := range evs {
			e := &evs[i]
			switch {
			case e.Kind == sealgate.Begin:
				first[callKey(*e)] = true
			case e.Kind == sealgate.Delta && first[callKey(*e)]:
				first[callKey(*e)] = false
				e.Bytes = append(append([]byte{}, pad...), e.Bytes...)
			case e.Kind == sealgate.End && e.HasFinal:
				e.Final = append(append([]byte{}, pad...), e.Final...)
			}
		}
		keep("padding", cfg, evs)
	}
	// split deltas
	{
		var evs []sealgate.Event
		for _, e := range events {
			if e.Kind == sealgate.Delta && len(e.Bytes) > 1 {
				h := len(e.Bytes) / 2
				a, b := e, e
				a.Bytes, b.Bytes = e.Bytes[:h], e.Bytes[h:]
				evs = append(evs, a, b)
				continue
			}
			evs = append(evs, e)
		}
		keep("split", cfg, evs)
	}
	// finals: every end repeats its call's bytes, as some protocols do
	{
		evs := append([]sealgate.Event{}, events...)
		acc := map[string][]byte{}
		for i := range evs {
			e := &evs[i]
			switch e.Kind {
			case sealgate.Begin:
				acc[callKey(*e)] = nil
			case sealgate.Delta:
				acc[callKey(*e)] = append(acc[callKey(*e)], e.Bytes...)
			case sealgate.End:
				if !e.HasFinal {
					e.Final, e.HasFinal = append([]byte{}, acc[callKey(*e)]...), true
				}
			}
		}
		keep("finals", cfg, evs)
	}
	// per-call release of early tools
	if cfg.Release == sealgate.AfterTurn && cfg.Batch == sealgate.Independent && len(cfg.Tools) > 0 {
		c2 := cloneConfig(cfg)
		c2.Release = sealgate.PerCall
		for i := range c2.Tools {
			c2.Tools[i].Early = true
		}
		keep("per-call", c2, events)
	}
	// peeks
	{
		var evs []sealgate.Event
		for _, e := range events {
			evs = append(evs, e)
			if e.Kind == sealgate.Delta {
				evs = append(evs, sealgate.PeekEvent(e.Attempt, e.Item))
			}
		}
		keep("peeks", cfg, evs)
	}
	// configuration
	{
		c2 := cloneConfig(cfg)
		c2.Tools = append(c2.Tools, sealgate.Tool{Name: "unused_tool", Schema: `{"type":"object"}`, Secrets: []string{"password"}})
		c2.Limits.Calls = 100
		keep("config", c2, events)
		c2 = cloneConfig(cfg)
		c2.Batch = sealgate.Atomic
		keep("atomic", c2, events)
	}
	return cfg, events, applied
}

// unlike lists how a reduced scenario differs from what a person writes:
// more than one event past the hand-minimal length, fragments much longer
// than the hand-minimal ones (8 bytes or an eighth), JSON whitespace in a
// call's bytes or final, an id longer than two bytes, or a configuration
// line that the failure does not need.
func unlike(cfg sealgate.Config, events []sealgate.Event, hand []sealgate.Event, id string, c Checker) []string {
	var out []string
	if len(events) > len(hand)+1 {
		out = append(out, fmt.Sprintf("%d events, hand-minimal %d", len(events), len(hand)))
	}
	if n, m := fragmentBytes(events), fragmentBytes(hand); n > max(m+8, m*9/8) {
		out = append(out, fmt.Sprintf("%d bytes of fragments and finals, hand-minimal %d", n, m))
	}
	calls := map[string][][]byte{}
	for _, e := range events {
		switch {
		case e.Kind == sealgate.Delta:
			calls[callKey(e)] = append(calls[callKey(e)], e.Bytes)
		case e.Kind == sealgate.End && e.HasFinal && HasPadding(e.Final):
			out = append(out, "padding in "+e.String())
		}
		for _, name := range []string{e.Attempt, e.Turn, e.Item, e.Call, e.Tool} {
			if len(name) > 2 {
				out = append(out, fmt.Sprintf("id %q in %s", name, e))
			}
		}
	}
	for k, frags := range calls {
		if HasPadding(frags...) {
			out = append(out, fmt.Sprintf("padding in the bytes of %q", k))
		}
	}
	setup, err := scn.FromConfig(cfg)
	if err != nil {
		return append(out, err.Error())
	}
	for i := range setup {
		s := &scn.Scenario{Setup: append(append([]scn.Directive{}, setup[:i]...), setup[i+1:]...)}
		c2, err := s.Config()
		if err != nil {
			continue // the line is needed by another one
		}
		if err := c(c2, events); err != nil && kind(err) == id {
			out = append(out, fmt.Sprintf("configuration line %q not needed", setup[i].String()))
		}
	}
	return out
}

// reduceTries bounds each reduction of the zoo tests.
const reduceTries = 6000

// TestReduceZooLikeAPerson: for every zoo bug, the reducer takes its
// deterministic kill, and the same made noisy, to at most one event more
// than the hand-written counterexample, with no padding, short ids and
// only the configuration the failure needs.
func TestReduceZooLikeAPerson(t *testing.T) {
	var table strings.Builder
	for _, b := range zoo.All {
		t.Run(b.Name, func(t *testing.T) {
			s, _ := loadScenario(t, filepath.Join(minimalDir, b.Name+".scn"))
			row := fmt.Sprintf("| %s | %d (%d B) |", b.Name, len(s.Events), fragmentBytes(s.Events))
			for _, st := range starts(t, b) {
				err := b.Checker().All(st.cfg, st.events)
				began := time.Now()
				res, rerr := Reduce(st.cfg, st.events, b.Checker().All, Options{MaxTries: reduceTries})
				took := time.Since(began)
				if rerr != nil {
					t.Fatal(rerr)
				}
				for _, bad := range unlike(res.Config, res.Events, s.Events, kind(err), b.Checker().All) {
					t.Errorf("%s: %s", st.name, bad)
				}
				row += fmt.Sprintf(" %d → %d (%d B, %d tries, %v) |", len(st.events), len(res.Events), fragmentBytes(res.Events), res.Tries, took.Round(time.Millisecond))
				if t.Failed() || *show {
					t.Logf("%s reduced to\n%s", st.name, Text(res.Config, res.Events, res.Err))
				}
			}
			table.WriteString(row + "\n")
		})
	}
	t.Logf("bug | hand-minimal | kill | noisy\n%s", table.String())
}

// fragmentBytes counts the bytes of a stream's deltas and finals.
func fragmentBytes(events []sealgate.Event) int {
	n := 0
	for _, e := range events {
		n += len(e.Bytes) + len(e.Final)
	}
	return n
}

// TestEveryPassCounts: leaving out any one pass makes some zoo bug's
// reduction worse: longer, or unlike a person's (the case each pass is
// there for).
func TestEveryPassCounts(t *testing.T) {
	cases := []struct{ pass, bug string }{
		{"drop-events", "release-at-end"},
		{"merge-attempts", "ack-fail-clears-all"},
		{"merge-deltas", "leak-split-secret"},
		{"shorten-fragments", "release-when-parses"},
		{"simplify-config", "repair-on-disconnect"},
		{"rename", "repair-on-disconnect"},
		{"ack-for-block", "memory-only-dedup"},
		{"release-at-end", "ack-ok-forgets-release"},
	}
	covered := map[string]bool{"trim-space": true} // TestTrimSpaceSavesTries
	for _, c := range cases {
		covered[c.pass] = true
		t.Run(c.pass, func(t *testing.T) {
			b, ok := zoo.ByName(c.bug)
			if !ok {
				t.Fatalf("no zoo bug %s", c.bug)
			}
			hand, _ := loadScenario(t, filepath.Join(minimalDir, b.Name+".scn"))
			s, cfg := loadScenario(t, filepath.Join("..", "..", filepath.FromSlash(b.Kill.Where)))
			id := kind(b.Checker().All(cfg, s.Events))
			all, err := Reduce(cfg, s.Events, b.Checker().All, Options{MaxTries: reduceTries})
			if err != nil {
				t.Fatal(err)
			}
			off, err := Reduce(cfg, s.Events, b.Checker().All, Options{MaxTries: reduceTries, Off: []string{c.pass}})
			if err != nil {
				t.Fatal(err)
			}
			bad := unlike(off.Config, off.Events, hand.Events, id, b.Checker().All)
			if len(bad) == 0 && len(off.Events) <= len(all.Events) {
				t.Errorf("without %s, %s still reduces to %d events (with it, %d) like a person's:\n%s",
					c.pass, c.bug, len(off.Events), len(all.Events), Text(off.Config, off.Events, off.Err))
			}
		})
	}
	for _, p := range Passes {
		if !covered[p] {
			t.Errorf("no case shows what pass %s buys", p)
		}
	}
	if _, err := Reduce(sealgate.DefaultConfig(), nil, func(sealgate.Config, []sealgate.Event) error { return fmt.Errorf("x") }, Options{Off: []string{"no-such-pass"}}); err == nil {
		t.Error("leaving out a pass that does not exist should be an error")
	}
}

// TestTrimSpaceSavesTries: a call whose whole text the failure needs,
// pretty-printed over many lines, loses its whitespace in a few tries;
// without trim-space, cutting it a byte at a time does not finish within
// the same budget.
func TestTrimSpaceSavesTries(t *testing.T) {
	want := `{"path":"notes.md","content":"a b\n c"}`
	pretty := "{\n    \"path\" : \"notes.md\",\r\n    \"content\" :   \"a b\\n c\"\n" + strings.Repeat(" ", 40) + "}\n"
	events := []sealgate.Event{
		sealgate.OpenEvent("a", "t"), sealgate.BeginEvent("a", "0", "c", "f"),
		sealgate.DeltaEvent("a", "0", []byte(pretty)), sealgate.EndEvent("a", "0"),
	}
	// The failure: the call's bytes, compacted, are exactly want.
	needs := func(_ sealgate.Config, evs []sealgate.Event) error {
		var b []byte
		for _, e := range evs {
			if e.Kind == sealgate.Delta {
				b = append(b, e.Bytes...)
			}
		}
		if string((&scanner{}).strip(b)) == want {
			return &check.Violation{ID: "I1", Msg: "the call"}
		}
		return nil
	}
	const budget = 40
	for _, off := range [][]string{nil, {"trim-space"}} {
		res, err := Reduce(sealgate.DefaultConfig(), events, needs, Options{MaxTries: budget, Off: off})
		if err != nil {
			t.Fatal(err)
		}
		padded := false
		for _, e := range res.Events {
			padded = padded || e.Kind == sealgate.Delta && HasPadding(e.Bytes)
		}
		if off == nil && padded {
			t.Errorf("with every pass, %d tries left padding:\n%s", res.Tries, Text(res.Config, res.Events, res.Err))
		}
		if off != nil && !padded {
			t.Errorf("without trim-space the padding went within %d tries too: the case shows nothing", res.Tries)
		}
	}
}

// TestReducePaddedAckFail: ack-fail-clears-all in 13 events with the
// noise event deletion alone keeps (padding, a CRLF final, early and
// per-call, an unused tool, long ids, a second attempt) reduces like the
// kills do.
func TestReducePaddedAckFail(t *testing.T) {
	const path = "testdata/padded/ack-fail-clears-all.scn"
	b := zoo.AckFailClearsAll
	s, cfg := loadScenario(t, path)
	want := model.Run(cfg, s.Events)
	if *update {
		s.Expect = want
		if err := os.WriteFile(path, s.Format(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if got := scn.FormatDecisions(s.Expect); !bytes.Equal(got, scn.FormatDecisions(want)) {
		t.Errorf("%s expects\n%s\nthe reference model decides\n%s", path, got, scn.FormatDecisions(want))
	}
	if err := check.All(cfg, s.Events); err != nil {
		t.Fatalf("%s fails on the real gate: %v", path, err)
	}
	err := b.Checker().All(cfg, s.Events)
	if err == nil {
		t.Fatalf("%s passes with %s planted", path, b.Name)
	}
	hand, _ := loadScenario(t, filepath.Join(minimalDir, b.Name+".scn"))
	res, rerr := Reduce(cfg, s.Events, b.Checker().All, Options{MaxTries: reduceTries})
	if rerr != nil {
		t.Fatal(rerr)
	}
	for _, bad := range unlike(res.Config, res.Events, hand.Events, kind(err), b.Checker().All) {
		t.Error(bad)
	}
	t.Logf("%d events -> %d in %d tries:\n%s", len(s.Events), len(res.Events), res.Tries, Text(res.Config, res.Events, res.Err))
}
