package coverage_test

import (
	"os"
	"strings"
	"testing"

	"github.com/sealgate/sealgate/internal/coverage"
)

func set(names ...string) coverage.Set {
	s := coverage.Set{}
	for _, n := range names {
		s[coverage.Feature(n)] = true
	}
	return s
}

// TestPairsAcrossGroupsOnly: three features of three groups make three
// pairs; two of one group make none between them.
func TestPairsAcrossGroupsOnly(t *testing.T) {
	ps := coverage.Pairs(set("ack:fail", "keys:two-released", "supersede", "supersede:chain"))
	want := []coverage.Pair{
		coverage.PairOf("ack:fail", "keys:two-released"),
		coverage.PairOf("ack:fail", "supersede"),
		coverage.PairOf("ack:fail", "supersede:chain"),
		coverage.PairOf("keys:two-released", "supersede"),
		coverage.PairOf("keys:two-released", "supersede:chain"),
	}
	if len(ps) != len(want) {
		t.Fatalf("got %d pairs %v, want %d", len(ps), ps.Sorted(), len(want))
	}
	for _, p := range want {
		if !ps[p] {
			t.Errorf("missing %s", p)
		}
	}
	if ps[coverage.PairOf("supersede", "supersede:chain")] {
		t.Error("a pair within one group")
	}
	if coverage.PairOf("b:x", "a:y") != coverage.PairOf("a:y", "b:x") {
		t.Error("PairOf depends on argument order")
	}
}

// TestPairSpaceArithmetic: the pair space is the sum over group pairs of
// the product of their sizes, and the reachable space is that less the
// unreachable table.
func TestPairSpaceArithmetic(t *testing.T) {
	size := map[coverage.Group]int{}
	for _, s := range coverage.Catalog() {
		size[s.Group]++
	}
	total, sum := 0, 0
	for _, n := range size {
		total += n
	}
	for _, n := range size {
		sum += n * (total - n)
	}
	if got := len(coverage.AllPairs()); got != sum/2 {
		t.Fatalf("%d pairs, want %d", got, sum/2)
	}
	all, reach, un := coverage.AllPairs(), coverage.Reachable(), coverage.UnreachablePairs()
	for p := range un {
		if !all[p] {
			t.Errorf("unreachable %s is not in the pair space (unknown feature or one group)", p)
		}
		if reach[p] {
			t.Errorf("unreachable %s counted reachable", p)
		}
	}
	if len(reach) != len(all)-len(un) {
		t.Fatalf("%d reachable, want %d - %d", len(reach), len(all), len(un))
	}
}

// TestTallyShareMissedAndContradictions: a tally counts the reachable pairs
// it reached, lists the others, skips refused scenarios, and flags a
// reached unreachable pair.
func TestTallyShareMissedAndContradictions(t *testing.T) {
	a := coverage.NewTally("a")
	a.Add(set("ack:fail", "keys:two-released", "policy:after-turn"), false)
	a.Add(set("event:open", "status:complete", "reason:batch-aborted"), true) // refused: not counted
	r, of := a.Share()
	if r != 3 || of != len(coverage.Reachable()) {
		t.Fatalf("share %d/%d, want 3/%d", r, of, len(coverage.Reachable()))
	}
	if a.Refused != 1 || a.Scenarios != 2 {
		t.Fatalf("scenarios %d refused %d, want 2 and 1", a.Scenarios, a.Refused)
	}
	if got := len(a.Missed()); got != of-3 {
		t.Fatalf("%d missed, want %d", got, of-3)
	}
	if len(a.Contradictions()) != 0 {
		t.Fatal("contradiction without an unreachable pair")
	}
	b := coverage.NewTally("b")
	b.Add(set("policy:independent", "reason:batch-aborted"), false)
	m := coverage.Merge("ab", a, b)
	if r, _ := m.Share(); r != 3 {
		t.Fatalf("merged share %d, want 3 (the unreachable pair is not counted)", r)
	}
	if len(m.Contradictions()) != 1 {
		t.Fatalf("contradictions %v, want the one unreachable pair", m.Contradictions())
	}
	if got := coverage.Percent(1, 4); got != 25 {
		t.Fatalf("Percent(1,4) = %v", got)
	}
}

// normalize collapses whitespace, so a quote may cross the SPEC's line
// breaks.
func normalize(s string) string { return strings.Join(strings.Fields(s), " ") }

// TestUnreachableQuotesAreSpecText: every row of the unreachable table
// quotes docs/SPEC.md exactly, names real features, and says why.
func TestUnreachableQuotesAreSpecText(t *testing.T) {
	src, err := os.ReadFile("../../docs/SPEC.md")
	if err != nil {
		t.Fatal(err)
	}
	spec := normalize(string(src))
	for i, u := range coverage.Unreachable {
		if len(u.Quotes) == 0 || u.Why == "" || u.Section == "" {
			t.Errorf("row %d: needs quotes, a section and a reason", i)
		}
		for _, q := range u.Quotes {
			if !strings.Contains(spec, normalize(q)) {
				t.Errorf("row %d: %q is not in docs/SPEC.md", i, q)
			}
		}
		for _, f := range append(append([]coverage.Feature(nil), u.A...), u.B...) {
			if !coverage.Known(f) {
				t.Errorf("row %d: %s is not a catalog feature", i, f)
			}
		}
	}
}

// TestWatchedPairsAreReachable: the pairs the issue names are pairs of the
// space, and none is ruled out.
func TestWatchedPairsAreReachable(t *testing.T) {
	reach := coverage.Reachable()
	for _, w := range coverage.Watched {
		if !reach[w.Pair] {
			t.Errorf("watched %s is not a reachable pair", w.Pair)
		}
	}
}
