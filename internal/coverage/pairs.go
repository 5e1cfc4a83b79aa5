package coverage

import (
	"fmt"
	"sort"
)

// Pair is two features of different groups, A < B by name.
type Pair struct{ A, B Feature }

// PairOf orders a and b into a pair.
func PairOf(a, b Feature) Pair {
	if b < a {
		a, b = b, a
	}
	return Pair{a, b}
}

func (p Pair) String() string { return string(p.A) + " × " + string(p.B) }

// PairSet is a set of pairs.
type PairSet map[Pair]bool

// Pairs returns every pair of features of s that belong to different
// groups: the pairs one scenario reached together.
func Pairs(s Set) PairSet {
	fs := s.Sorted()
	out := PairSet{}
	for i, a := range fs {
		for _, b := range fs[i+1:] {
			if GroupOf(a) != GroupOf(b) {
				out[Pair{a, b}] = true
			}
		}
	}
	return out
}

// Sorted returns the pairs of ps in name order.
func (ps PairSet) Sorted() []Pair {
	out := make([]Pair, 0, len(ps))
	for p := range ps {
		out = append(out, p)
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].A != out[j].A {
			return out[i].A < out[j].A
		}
		return out[i].B < out[j].B
	})
	return out
}

// AllPairs is the whole pair space: every pair of catalog features of
// different groups.
func AllPairs() PairSet {
	all := Set{}
	for _, s := range catalog {
		all[s.Name] = true
	}
	return Pairs(all)
}

// Reachable is the pair space less the pairs the SPEC makes unreachable
// (Unreachable).
func Reachable() PairSet {
	out := AllPairs()
	for p := range UnreachablePairs() {
		delete(out, p)
	}
	return out
}

// Tally accumulates what one layer (a generator, the corpus) reached over
// its scenarios.
type Tally struct {
	Name      string
	Scenarios int // scenarios seen, refused ones included
	Refused   int // scenarios whose configuration was refused: no features
	Features  Set
	Pairs     PairSet
}

// NewTally starts an empty tally.
func NewTally(name string) *Tally { return &Tally{Name: name, Features: Set{}, Pairs: PairSet{}} }

// Add counts one scenario's features.
func (t *Tally) Add(s Set, refused bool) {
	t.Scenarios++
	if refused {
		t.Refused++
		return
	}
	for f := range s {
		t.Features[f] = true
	}
	for p := range Pairs(s) {
		t.Pairs[p] = true
	}
}

// Merge returns a tally of everything the given tallies reached.
func Merge(name string, ts ...*Tally) *Tally {
	out := NewTally(name)
	for _, t := range ts {
		out.Scenarios += t.Scenarios
		out.Refused += t.Refused
		for f := range t.Features {
			out.Features[f] = true
		}
		for p := range t.Pairs {
			out.Pairs[p] = true
		}
	}
	return out
}

// Share is how many of the reachable pairs t reached, out of how many.
func (t *Tally) Share() (reached, of int) {
	space := Reachable()
	for p := range t.Pairs {
		if space[p] {
			reached++
		}
	}
	return reached, len(space)
}

// Percent is 100·reached/of, 0 for an empty space.
func Percent(reached, of int) float64 {
	if of == 0 {
		return 0
	}
	return 100 * float64(reached) / float64(of)
}

// Missed returns the reachable pairs t never reached.
func (t *Tally) Missed() []Pair {
	var out []Pair
	for _, p := range Reachable().Sorted() {
		if !t.Pairs[p] {
			out = append(out, p)
		}
	}
	return out
}

// Contradictions returns the pairs t reached that the unreachable table
// says cannot be: each is a wrong table entry or a wrong extraction (or a
// bug that the SPEC forbids), never something to count.
func (t *Tally) Contradictions() []error {
	var out []error
	for _, u := range Unreachable {
		for _, p := range u.Pairs() {
			if t.Pairs[p] {
				out = append(out, fmt.Errorf("%s reached %s, which SPEC section %s makes unreachable: %s", t.Name, p, u.Section, u.Why))
			}
		}
	}
	return out
}
