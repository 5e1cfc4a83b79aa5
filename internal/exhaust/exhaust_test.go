package exhaust

import (
	"fmt"
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
		_, r := s.stateKey(evs, u)
		letters, us := s.letters(u, r)
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
		_, r := s.stateKey(evs, full)
		letters, _ := s.letters(full, r)
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

// setup is the setup of that name.
func setup(t *testing.T, name string) Setup {
	t.Helper()
	for _, s := range Setups() {
		if s.Name == name {
			return s
		}
	}
	t.Fatalf("no setup %q", name)
	return Setup{}
}

// inAlphabet checks that each event of seq is a letter of s's alphabet at
// its point and returns seq with each ack of "#N" given the N-th key the
// run wrote so far (keys are hashes, known only once the run is there).
func inAlphabet(t *testing.T, s Setup, seq []sealgate.Event) []sealgate.Event {
	t.Helper()
	out := append([]sealgate.Event(nil), seq...)
	u := used{}
	for i := range out {
		_, r := s.stateKey(out[:i], u)
		ks := r.keys
		if e := &out[i]; e.Kind == sealgate.Ack && strings.HasPrefix(e.Key, "#") {
			n := int(e.Key[1] - '0')
			if n >= len(ks) {
				t.Fatalf("event %d: ack of key %d, but the run wrote %d keys", i+1, n, len(ks))
			}
			e.Key = ks[n]
		}
		letters, us := s.letters(u, r)
		found := false
		for j, l := range letters {
			if render([]sealgate.Event{l}) == render(out[i:i+1]) {
				found, u = true, us[j]
			}
		}
		if !found {
			t.Fatalf("event %d (%s) is not a letter of the alphabet there", i+1, out[i])
		}
	}
	return out
}

// TestCounterexamplesFit: the hand-written shortest counterexamples of the
// zoo bugs that need a long sequence or a new shape (docs/research/exhaust.md)
// are sequences of the alphabet under their setup, the real gate passes
// each, and the bug's gate fails it. The enumeration finds those within
// the bound; the longer ones show what a larger bound would need.
func TestCounterexamplesFit(t *testing.T) {
	open1, open2 := sealgate.OpenEvent("a1", "t1"), sealgate.OpenEvent("a2", "t2")
	beg := func(a, item, call, tool string) sealgate.Event { return sealgate.BeginEvent(a, item, call, tool) }
	del := func(a, item string, b []byte) sealgate.Event { return sealgate.DeltaEvent(a, item, b) }
	end := sealgate.EndEvent
	closed := func(a string) sealgate.Event { return sealgate.CloseEvent(a, sealgate.Complete) }
	for _, c := range []struct {
		bug   zoo.Bug
		setup string
		seq   []sealgate.Event
	}{
		{zoo.ForgetLedgerOnRestart, "per-call", []sealgate.Event{open1, beg("a1", "0", "c1", "f"),
			del("a1", "0", whole), end("a1", "0"), sealgate.RestartEvent(), sealgate.AckEvent("#0", true)}},
		{zoo.KeyNumbersParseFloat, "idem", []sealgate.Event{open1, beg("a1", "0", "c1", "g"),
			del("a1", "0", Number), end("a1", "0"), closed("a1")}},
		{zoo.FieldsRawNames, "idem", []sealgate.Event{open1, beg("a1", "0", "c1", "g"),
			del("a1", "0", Number), end("a1", "0"), closed("a1")}},
		{zoo.NoncharBMPOnly, "per-call", []sealgate.Event{open1, beg("a1", "0", "c1", "f"),
			del("a1", "0", Nonchar), end("a1", "0")}},
		{zoo.FirstSecretPerMember, "after-turn", []sealgate.Event{open1, beg("a1", "0", "c1", "f"),
			del("a1", "0", whole), sealgate.PeekEvent("a1", "0")}},
		{zoo.AckOkForgetsRelease, "per-call", []sealgate.Event{open1, beg("a1", "0", "c1", "f"),
			del("a1", "0", whole), end("a1", "0"), sealgate.AckEvent("#0", true),
			beg("a1", "1", "c2", "f"), del("a1", "1", whole), end("a1", "1")}},
		{zoo.AckFailClearsAll, "idem", []sealgate.Event{open1, beg("a1", "0", "c1", "g"),
			del("a1", "0", whole), end("a1", "0"), beg("a1", "1", "c2", "g"), del("a1", "1", Number),
			end("a1", "1"), closed("a1"), sealgate.AckEvent("#0", false),
			open2, beg("a2", "0", "c1", "g"), del("a2", "0", Number), end("a2", "0"), closed("a2")}},
	} {
		t.Run(c.bug.Name, func(t *testing.T) {
			s := setup(t, c.setup)
			seq := inAlphabet(t, s, c.seq)
			if err := check.All(s.Config, seq); err != nil {
				t.Fatalf("real gate: %v", err)
			}
			err := c.bug.Checker().All(s.Config, seq)
			if err == nil {
				t.Fatalf("%s passes its own counterexample", c.bug.Name)
			}
			t.Logf("%d events, %s: %.200s", len(seq), c.setup, err)
		})
	}
}

// TestFindsVocabularyBugs: the bugs that need the wider alphabet (two secret
// paths through one member, a noncharacter outside the BMP, a long number
// with an escaped name) are found by the enumeration at the length of their
// hand-written counterexample, under the setup that holds the shape, with
// the extra shapes only where they start a call of the setup's ExtraTool.
func TestFindsVocabularyBugs(t *testing.T) {
	for _, c := range []struct {
		bug    zoo.Bug
		setup  string
		events int
	}{{zoo.FirstSecretPerMember, "after-turn", 4}, {zoo.NoncharBMPOnly, "per-call", 4},
		{zoo.KeyNumbersParseFloat, "idem", 5}, {zoo.FieldsRawNames, "idem", 5}} {
		t.Run(c.bug.Name, func(t *testing.T) {
			r := Explore(setup(t, c.setup), Options{Events: c.events, Check: c.bug.Checker().All})
			if r.Failure == nil {
				t.Fatalf("not found in %d sequences of at most %d events", r.Sequences, c.events)
			}
			if len(r.Failure.Events) != c.events {
				t.Errorf("counterexample of %d events, want %d", len(r.Failure.Events), c.events)
			}
			t.Logf("%v", r.Failure.Err)
		})
	}
}

// TestPruneLosesNothing compares merging with -no-prune at a small bound:
// under every setup, at 4 events, the pruned enumeration reaches exactly the states of
// the whole tree of canonical sequences (the key determines the next
// key), both pass the real gate, and for zoo bugs of 3 events both stop at
// a counterexample of the same length under the same setup.
func TestPruneLosesNothing(t *testing.T) {
	bound := 4
	for _, s := range Setups() {
		pruned, whole := newExplorer(&s, Options{Events: bound}), newExplorer(&s, Options{Events: bound, NoPrune: true})
		for depth := 1; depth <= bound; depth++ {
			if pruned.level(depth) || whole.level(depth) {
				t.Fatalf("setup %s: the real gate fails: %v / %v", s.Name, pruned.rep.Failure, whole.rep.Failure)
			}
		}
		if len(pruned.seen) != len(whole.seen) {
			t.Errorf("setup %s: pruned reaches %d states, the whole tree %d", s.Name, len(pruned.seen), len(whole.seen))
		}
		for k := range whole.seen {
			if _, ok := pruned.seen[k]; !ok {
				t.Errorf("setup %s: a state of the whole tree is missing from the pruned enumeration", s.Name)
				break
			}
		}
		if pruned.rep.Sequences >= whole.rep.Sequences {
			t.Errorf("setup %s: pruned checked %d sequences, the whole tree %d: nothing was pruned", s.Name, pruned.rep.Sequences, whole.rep.Sequences)
		}
		t.Logf("setup %s: %d states; %d sequences pruned, %d unpruned", s.Name, len(pruned.seen), pruned.rep.Sequences, whole.rep.Sequences)
	}
	bound = 3
	for _, b := range []zoo.Bug{zoo.ReleaseAtEnd, zoo.DisconnectedIsComplete, zoo.Unbounded} {
		var got [2]string
		for i, np := range []bool{false, true} {
			for _, r := range ExploreAll(Setups(), Options{Events: bound, Check: b.Checker().All, NoPrune: np}) {
				if r.Failure != nil {
					got[i] = fmt.Sprintf("%d events under %s", len(r.Failure.Events), r.Setup)
				}
			}
		}
		if got[0] == "" || got[0] != got[1] {
			t.Errorf("%s: pruned found %q, unpruned %q", b.Name, got[0], got[1])
		}
	}
}

// TestFreshCalls: an extra shape is a letter only where it starts a call
// of the setup's ExtraTool in a live attempt (the call has no bytes, no end
// and no verdict), and room.fresh follows the model's state there.
func TestFreshCalls(t *testing.T) {
	s := setup(t, "idem") // ExtraTool g
	open1, beg := sealgate.OpenEvent("a1", "t1"), sealgate.BeginEvent
	extra := func(seq []sealgate.Event) []string {
		_, r := s.stateKey(seq, used{})
		var at []string
		for a := range attemptNames {
			for i := range itemNames {
				if r.fresh&(1<<(a*maxItems+i)) != 0 {
					at = append(at, attemptNames[a]+" "+itemNames[i])
				}
			}
		}
		return at
	}
	for _, c := range []struct {
		name string
		seq  []sealgate.Event
		want string
	}{
		{"none begun", []sealgate.Event{open1}, ""},
		{"a call of g", []sealgate.Event{open1, beg("a1", "0", "c1", "g")}, "a1 0"},
		{"a call of f", []sealgate.Event{open1, beg("a1", "0", "c1", "f")}, ""},
		{"after an empty delta", []sealgate.Event{open1, beg("a1", "0", "c1", "g"), sealgate.DeltaEvent("a1", "0", nil)}, "a1 0"},
		{"after bytes", []sealgate.Event{open1, beg("a1", "0", "c1", "g"), sealgate.DeltaEvent("a1", "0", whole)}, ""},
		{"after its end", []sealgate.Event{open1, beg("a1", "0", "c1", "g"), sealgate.EndEvent("a1", "0")}, ""},
		{"second item", []sealgate.Event{open1, beg("a1", "0", "c1", "f"), beg("a1", "1", "c2", "g")}, "a1 1"},
		{"closed attempt", []sealgate.Event{open1, beg("a1", "0", "c1", "g"), sealgate.CloseEvent("a1", sealgate.Cancelled)}, ""},
		{"superseded", []sealgate.Event{open1, beg("a1", "0", "c1", "g"), sealgate.OpenEvent("a2", "t1"), beg("a2", "0", "c1", "g")}, "a2 0"},
	} {
		if got := strings.Join(extra(c.seq), ", "); got != c.want {
			t.Errorf("%s: extra shapes at %q, want %q", c.name, got, c.want)
		}
	}
}

// BenchmarkExplore is the enumeration at N=5 under each setup, with the
// real gate: the cost per sequence is what sets the default bound
// (docs/research/exhaust.md has the N=7 and N=8 runs).
func BenchmarkExplore(b *testing.B) {
	for _, s := range Setups() {
		b.Run(s.Name, func(b *testing.B) {
			seqs := 0
			for b.Loop() {
				r := Explore(s, Options{Events: 5, Workers: 1})
				if r.Failure != nil {
					b.Fatalf("the real gate fails: %v", r.Failure.Err)
				}
				seqs = r.Sequences
			}
			b.ReportMetric(float64(b.Elapsed().Microseconds())/float64(b.N*seqs), "µs/sequence")
		})
	}
}
