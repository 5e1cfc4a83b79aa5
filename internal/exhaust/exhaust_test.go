package exhaust

import (
	"strings"
	"testing"

	"github.com/sealgate/sealgate"
	"github.com/sealgate/sealgate/check"
	"github.com/sealgate/sealgate/internal/zoo"
)

// shortBound is the bound go test runs: every setup, every sequence of at
// most 3 events (about 700 sequences, a few seconds under -race).
const shortBound = 3

// TestRealGatePasses: the real gate passes every sequence of the short
// bound under every setup, and the enumeration really enumerated.
func TestRealGatePasses(t *testing.T) {
	for _, r := range ExploreAll(Setups(), Options{Events: shortBound}) {
		if r.Failure != nil {
			t.Fatalf("setup %s: %v\n%s", r.Setup, r.Failure.Err, r.Failure.Scenario(nil, 0))
		}
		if r.Sequences < 100 || r.States < 5 {
			t.Errorf("setup %s: %d sequences, %d states: the alphabet is smaller than it should be", r.Setup, r.Sequences, r.States)
		}
		t.Logf("setup %s: %d sequences, %d states", r.Setup, r.Sequences, r.States)
	}
}

// TestFindsZooBugs: bugs whose shortest counterexample has 3 events are
// found at the short bound, with a counterexample of exactly that length
// (breadth first, so none shorter exists over the alphabet), and the
// printed scenario names the failing check.
func TestFindsZooBugs(t *testing.T) {
	for _, b := range []zoo.Bug{zoo.ReleaseAtEnd, zoo.IgnoreFinal, zoo.Unbounded} {
		t.Run(b.Name, func(t *testing.T) {
			chk := b.Checker().All
			var f *Failure
			for _, r := range ExploreAll(Setups(), Options{Events: shortBound, Check: chk}) {
				if r.Failure != nil {
					f = r.Failure
				}
			}
			if f == nil {
				t.Fatalf("not found in any sequence of at most %d events", shortBound)
			}
			if len(f.Events) != shortBound {
				t.Errorf("counterexample of %d events, want %d", len(f.Events), shortBound)
			}
			text := string(f.Scenario(chk, 200))
			if !strings.Contains(text, "reduced by sealfuzz: fails ") {
				t.Errorf("scenario text does not name the check:\n%s", text)
			}
			t.Logf("%v\n%s", f.Err, text)
		})
	}
}

// TestSymmetryReduction: the sequences generated up to 3 events are in
// canonical first-use order and no two are renamings of each other, while
// every renaming class of the alphabet's sequences is still there (the
// count matches a brute-force enumeration without the reduction). Keys are
// not renamed: no ack fits in 3 events (a release needs 5).
func TestSymmetryReduction(t *testing.T) {
	s := Setups()[0] // symmetric tools
	seen := map[string]bool{}
	var walk func(evs []sealgate.Event, u used, depth int)
	walk = func(evs []sealgate.Event, u used, depth int) {
		if depth == 0 {
			return
		}
		_, keys := s.stateKey(evs, u)
		letters, us := s.letters(u, keys)
		for i, e := range letters {
			seq := append(append([]sealgate.Event(nil), evs...), e)
			c := canonical(seq)
			if c != render(seq) {
				t.Fatalf("not in first-use order:\n%s\ncanonical:\n%s", render(seq), c)
			}
			if seen[c] {
				t.Fatalf("generated twice:\n%s", c)
			}
			seen[c] = true
			walk(seq, us[i], depth-1)
		}
	}
	walk(nil, used{}, 3)
	// Brute force: every sequence of the unreduced alphabet (all names,
	// both tools, in every slot), renamed canonical, gives the same classes.
	classes := map[string]bool{}
	var brute func(evs []sealgate.Event, depth int)
	brute = func(evs []sealgate.Event, depth int) {
		if depth == 0 {
			return
		}
		full := used{attempts: maxAttempts, turns: maxTurns, items: maxItems, calls: maxCalls, tools: len(s.Config.Tools)}
		_, keys := s.stateKey(evs, full)
		letters, _ := s.letters(full, keys)
		for _, e := range letters {
			seq := append(append([]sealgate.Event(nil), evs...), e)
			if !wellFormed(seq) {
				continue
			}
			classes[canonical(seq)] = true
			brute(seq, depth-1)
		}
	}
	brute(nil, 3)
	if len(classes) != len(seen) {
		t.Fatalf("reduced enumeration has %d sequences, the renaming classes of the full one %d", len(seen), len(classes))
	}
	for c := range classes {
		if !seen[c] {
			t.Fatalf("class missing from the reduced enumeration:\n%s", c)
		}
	}
	t.Logf("%d sequences of at most 3 events, one per renaming class", len(seen))
}

// wellFormed keeps the full alphabet's sequences the reduced one can
// express: events other than open name attempts already opened, and
// delta, end and peek name items already begun.
func wellFormed(seq []sealgate.Event) bool {
	attempts, items := map[string]bool{}, map[string]bool{}
	for _, e := range seq {
		switch e.Kind {
		case sealgate.Open:
			attempts[e.Attempt] = true
		case sealgate.Ack, sealgate.Restart:
		default:
			if !attempts[e.Attempt] {
				return false
			}
			if e.Kind == sealgate.Begin {
				items[e.Item] = true
			} else if e.Kind != sealgate.Close && !items[e.Item] {
				return false
			}
		}
	}
	return true
}

// canonical renames attempts, turns, items, calls and tools into
// first-use order and renders the sequence.
func canonical(seq []sealgate.Event) string {
	maps := map[string]map[string]string{}
	rename := func(kind, id string, names []string) string {
		m := maps[kind]
		if m == nil {
			m = map[string]string{}
			maps[kind] = m
		}
		if n, ok := m[id]; ok {
			return n
		}
		m[id] = names[len(m)]
		return m[id]
	}
	out := make([]sealgate.Event, len(seq))
	for i, e := range seq {
		if e.Kind != sealgate.Ack && e.Kind != sealgate.Restart {
			e.Attempt = rename("attempt", e.Attempt, attemptNames)
		}
		switch e.Kind {
		case sealgate.Open:
			e.Turn = rename("turn", e.Turn, turnNames)
		case sealgate.Begin:
			e.Item = rename("item", e.Item, itemNames)
			e.Call = rename("call", e.Call, callNames)
			e.Tool = rename("tool", e.Tool, []string{"f", "g"})
		case sealgate.Delta, sealgate.End, sealgate.Peek:
			e.Item = rename("item", e.Item, itemNames)
		}
		out[i] = e
	}
	return render(out)
}

func render(seq []sealgate.Event) string {
	var b strings.Builder
	for _, e := range seq {
		b.WriteString(e.String() + "\n")
	}
	return b.String()
}

// TestMemoryOnlyDedupFitsSix: the bug the default bound misses
// (docs/research/exhaust.md) has a 6-event counterexample in the alphabet, under
// per-call: each event is a letter at its point, the real gate passes
// it, and the gate that keeps its ledger in memory fails it.
func TestMemoryOnlyDedupFitsSix(t *testing.T) {
	var s Setup
	for _, x := range Setups() {
		if x.Name == "per-call" {
			s = x
		}
	}
	seq := []sealgate.Event{sealgate.OpenEvent("a1", "t1"), sealgate.BeginEvent("a1", "0", "c1", "f"),
		sealgate.DeltaEvent("a1", "0", whole), sealgate.EndEvent("a1", "0"), sealgate.RestartEvent()}
	_, keys := s.stateKey(seq, used{attempts: 1, turns: 1, items: 1, calls: 1})
	if len(keys) != 1 {
		t.Fatalf("keys written after an early release: %v, want one", keys)
	}
	seq = append(seq, sealgate.AckEvent(keys[0], true))
	u := used{}
	for i, e := range seq {
		_, ks := s.stateKey(seq[:i], u)
		letters, us := s.letters(u, ks)
		found := false
		for j, l := range letters {
			if render([]sealgate.Event{l}) == render([]sealgate.Event{e}) {
				found, u = true, us[j]
			}
		}
		if !found {
			t.Fatalf("event %d (%s) is not a letter of the alphabet there", i+1, e)
		}
	}
	if err := check.All(s.Config, seq); err != nil {
		t.Fatalf("real gate: %v", err)
	}
	if err := zoo.ForgetLedgerOnRestart.Checker().All(s.Config, seq); err == nil {
		t.Fatalf("%s passes its own counterexample", zoo.ForgetLedgerOnRestart.Name)
	}
}
