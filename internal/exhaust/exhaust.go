// Package exhaust is small-scope exhaustive checking: over a small
// abstract alphabet of events and each of a few small configurations, it
// checks every event sequence up to a bound with check.All, the suite's
// own checker. Ids are renamed into first-use order (symmetry reduction),
// and a prefix whose state was already reached by a sequence no longer than
// it is not extended again (docs/research/exhaust.md says why that is sound, and
// under which assumption). Most bugs have a small counterexample; this
// finds every one within the bound, where random generation finds it only
// when the dice allow.
package exhaust

import (
	"crypto/sha256"
	"fmt"
	"runtime"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/sealgate/sealgate"
	"github.com/sealgate/sealgate/check"
	"github.com/sealgate/sealgate/internal/reduce"
	"github.com/sealgate/sealgate/model"
)

// Checker says why a sequence fails, or nil: check.All, or a zoo bug's
// Checker().All.
type Checker func(sealgate.Config, []sealgate.Event) error

// Options bound one enumeration.
type Options struct {
	Events int     // the bound N: sequences of 1..N events
	Check  Checker // nil: check.All (the real gate)
	// NoPrune extends every sequence, merging no states: the enumeration
	// is then the whole tree of canonical sequences (much slower).
	NoPrune bool
	// Workers checks this many sequences at once (0: GOMAXPROCS).
	Workers int
}

// Report is what one enumeration of one setup found.
type Report struct {
	Setup     string
	Events    int // the bound
	Sequences int // sequences checked with the checker
	States    int // distinct states reached (the root's included)
	// Closed is the length after which no new state appeared: every
	// sequence then only revisits states, so the verdict holds for any
	// length. 0 when new states were still appearing at the bound.
	Closed  int
	Elapsed time.Duration
	// PerLength is, for each length 1..Events, the sequences checked and
	// the new states kept to extend (at the bound: none).
	PerLength []Level
	Failure   *Failure // the first failing sequence in length order, or nil
}

// Level is what one length of the enumeration did.
type Level struct {
	Sequences, NewStates int
}

// Failure is a sequence the checker rejects.
type Failure struct {
	Config sealgate.Config
	Events []sealgate.Event
	Err    error
}

// node is a sequence still to extend: its last event and the node of the
// sequence before it, so that a frontier of a million sequences holds one
// event each rather than a copy of every prefix.
type node struct {
	parent *node
	last   sealgate.Event
	length int
	used   used
	room   room
}

// events is the node's whole sequence.
func (n *node) events() []sealgate.Event {
	out := make([]sealgate.Event, n.length, n.length+1)
	for p := n; p != nil && p.length > 0; p = p.parent {
		out[p.length-1] = p.last
	}
	return out
}

// child is one extension of a node, checked.
type child struct {
	parent *node
	events []sealgate.Event
	used   used
	err    error
	key    string
	room   room
}

// chunk is how many nodes are extended between two merges: it bounds the
// memory of one round while keeping both workers busy.
const chunk = 64

// Explore enumerates every canonical sequence of 1..o.Events events over
// the alphabet for setup s, in length order, checking each, and stops at
// the first failure.
func Explore(s Setup, o Options) Report { return ExploreAll([]Setup{s}, o)[0] }

// ExploreAll explores the setups in lockstep, one length at a time for all
// of them, and stops at the first failure: the counterexample it reports
// is a shortest one over every setup (the first found among the shortest).
// It returns one report per setup; those after a failure stopped there.
func ExploreAll(setups []Setup, o Options) []Report {
	es := make([]*explorer, len(setups))
	for i := range setups {
		es[i] = newExplorer(&setups[i], o)
	}
	for depth := 1; depth <= o.Events; depth++ {
		for _, e := range es {
			if e.level(depth) {
				return reports(es)
			}
		}
	}
	return reports(es)
}

func reports(es []*explorer) []Report {
	out := make([]Report, len(es))
	for i, e := range es {
		e.rep.States = len(e.seen)
		out[i] = e.rep
	}
	return out
}

// explorer is the breadth-first enumeration of one setup.
type explorer struct {
	s        *Setup
	o        Options
	check    Checker
	workers  int
	seen     map[string]struct{}
	frontier []*node
	rep      Report
}

func newExplorer(s *Setup, o Options) *explorer {
	e := &explorer{s: s, o: o, check: o.Check, workers: o.Workers, rep: Report{Setup: s.Name, Events: o.Events}}
	if e.check == nil {
		e.check = check.All
	}
	if e.workers <= 0 {
		e.workers = runtime.GOMAXPROCS(0)
	}
	rootKey, rootRoom := s.stateKey(nil, used{})
	e.seen = map[string]struct{}{rootKey: {}}
	e.frontier = []*node{{room: rootRoom}}
	return e
}

// level checks every extension of the frontier, the sequences of length
// depth, and keeps those that reach a new state as the next frontier. It
// reports whether it found a failure.
func (e *explorer) level(depth int) bool {
	if len(e.frontier) == 0 || e.rep.Failure != nil {
		return false
	}
	start := time.Now()
	defer func() { e.rep.Elapsed += time.Since(start) }()
	expand := depth < e.o.Events
	var next []*node
	seqs0 := e.rep.Sequences
	defer func() {
		e.rep.PerLength = append(e.rep.PerLength, Level{Sequences: e.rep.Sequences - seqs0, NewStates: len(next)})
	}()
	for lo := 0; lo < len(e.frontier); lo += chunk {
		kids := e.s.extend(e.frontier[lo:min(lo+chunk, len(e.frontier))])
		run(e.workers, len(kids), func(i int) {
			k := &kids[i]
			k.err = e.check(e.s.Config, k.events)
			if k.err == nil && expand {
				k.key, k.room = e.s.stateKey(k.events, k.used)
			}
		})
		for i := range kids {
			k := &kids[i]
			e.rep.Sequences++
			if k.err != nil {
				e.rep.Failure = &Failure{Config: e.s.Config, Events: k.events, Err: k.err}
				return true
			}
			if !expand {
				continue
			}
			if !e.o.NoPrune {
				if _, ok := e.seen[k.key]; ok {
					continue
				}
			}
			e.seen[k.key] = struct{}{}
			next = append(next, &node{parent: k.parent, last: k.events[len(k.events)-1], length: len(k.events), used: k.used, room: k.room})
		}
	}
	if len(next) == 0 && expand && !e.o.NoPrune {
		e.rep.Closed = depth
	}
	e.frontier = next
	return false
}

// extend lists every one-event extension of the nodes, in order.
func (s *Setup) extend(nodes []*node) []child {
	var kids []child
	for _, n := range nodes {
		prefix := n.events()
		evs, us := s.letters(n.used, n.room)
		for i, e := range evs {
			seq := make([]sealgate.Event, len(prefix)+1)
			copy(seq, prefix)
			seq[len(prefix)] = e
			kids = append(kids, child{parent: n, events: seq, used: us[i]})
		}
	}
	return kids
}

// run calls f(0..n-1) on the given number of goroutines.
func run(workers, n int, f func(int)) {
	if workers <= 1 || n < 2 {
		for i := 0; i < n; i++ {
			f(i)
		}
		return
	}
	var wg sync.WaitGroup
	var mu sync.Mutex
	nextIdx := 0
	for w := 0; w < min(workers, n); w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				mu.Lock()
				i := nextIdx
				nextIdx++
				mu.Unlock()
				if i >= n {
					return
				}
				f(i)
			}
		}()
	}
	wg.Wait()
}

// stateKey is what a sequence's continuations depend on: the model's whole
// state, plus what the checks read from history (docs/research/exhaust.md), plus
// what the alphabet depends on (the ids used, the keys acks may name, the
// calls a long shape may start). It also returns those last two, which the
// key determines.
func (s *Setup) stateKey(events []sealgate.Event, u used) (string, room) {
	st, ds := model.State(s.Config, events)
	byEvent := make([][]sealgate.Decision, len(events))
	for _, d := range ds {
		if d.At >= 1 && d.At <= len(events) {
			byEvent[d.At-1] = append(byEvent[d.At-1], d)
		}
	}
	var keys []string
	written := map[string]bool{}
	unacked := map[string]bool{} // I7: released, and no accepted ack fail since
	anomaly, limit := false, false
	for i, ev := range events {
		refusedAck := false
		for _, d := range byEvent[i] {
			switch {
			case d.Kind == sealgate.Anomaly:
				anomaly = true
				refusedAck = refusedAck || d.Anomaly == sealgate.UnknownAck
				limit = limit || d.Anomaly == sealgate.TurnTooLarge
			case d.Kind == sealgate.Reject && d.Reason == sealgate.TooLarge:
				limit = true
			}
		}
		if ev.Kind == sealgate.Ack && !ev.OK && !refusedAck {
			delete(unacked, ev.Key)
		}
		for _, d := range byEvent[i] {
			if d.Kind != sealgate.Release && d.Kind != sealgate.Reconcile {
				continue
			}
			if !written[d.Key] {
				written[d.Key] = true
				keys = append(keys, d.Key)
			}
			if d.Kind == sealgate.Release {
				unacked[d.Key] = true
			}
		}
	}
	var b strings.Builder
	fmt.Fprintf(&b, "used %d %d %d %d %d\n", u.attempts, u.turns, u.items, u.calls, u.tools)
	b.WriteString(st)
	b.WriteString("\nack-keys " + strings.Join(sorted(keys), " "))
	b.WriteString("\nI7-unacked " + strings.Join(sorted(mapKeys(unacked)), " "))
	fmt.Fprintf(&b, "\nI5-off %t I6-off %t", anomaly || limit, limit)
	if !anomaly && !limit {
		b.WriteString(windows(events))
	}
	// The key is kept for every state reached: its digest, not its text
	// (a call's bytes alone may be 800 bytes long).
	sum := sha256.Sum256([]byte(b.String()))
	return string(sum[:]), room{keys: keys, fresh: freshCalls(st, s.ExtraTool)}
}

// windows renders what check's serialize reads of each window still open
// (an attempt opened, not closed, no restart since): its calls in the
// order it first names them, each with the begin that named it, the bytes
// its deltas carried, concatenated, and whether (and with which final) it
// ended. serialize puts each call's events one after another in that
// order, so the interleaving of calls is not something it keeps; while I5
// is on no delta is refused or cut short, so the bytes a call carried are
// their concatenation however they were split.
func windows(events []sealgate.Event) string {
	type call struct {
		begin, end string
		bytes      []byte
	}
	type window struct {
		order []string
		calls map[string]*call
	}
	open := map[string]*window{}
	for _, ev := range events {
		switch ev.Kind {
		case sealgate.Restart:
			open = map[string]*window{}
		case sealgate.Open:
			if _, ok := open[ev.Attempt]; !ok {
				open[ev.Attempt] = &window{calls: map[string]*call{}}
			}
		case sealgate.Close:
			delete(open, ev.Attempt)
		case sealgate.Begin, sealgate.Delta, sealgate.End:
			w := open[ev.Attempt]
			if w == nil {
				continue
			}
			c := w.calls[ev.Item]
			if c == nil {
				c = &call{}
				w.calls[ev.Item] = c
				w.order = append(w.order, ev.Item)
			}
			switch ev.Kind {
			case sealgate.Begin:
				c.begin += ev.String() + "; "
			case sealgate.Delta:
				c.bytes = append(c.bytes, ev.Bytes...)
			default:
				c.end += ev.String() + "; "
			}
		}
	}
	var b strings.Builder
	for _, id := range sorted(mapKeys(open)) {
		b.WriteString("\nwindow " + id + ":")
		w := open[id]
		for _, item := range w.order {
			c := w.calls[item]
			fmt.Fprintf(&b, " [item %q %sbytes %q %s]", item, c.begin, c.bytes, c.end)
		}
	}
	return b.String()
}

func sorted(s []string) []string {
	out := append([]string(nil), s...)
	sort.Strings(out)
	return out
}

func mapKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	return out
}

// Scenario renders the failure as a .scn file, reduced first when the
// reducer can do so within tries checks (0: not reduced); chk must be the
// checker that found it (nil: check.All).
func (f *Failure) Scenario(chk Checker, tries int) []byte {
	if chk == nil {
		chk = check.All
	}
	cfg, evs, err := f.Config, f.Events, f.Err
	if tries > 0 {
		if r, rerr := reduce.Reduce(cfg, evs, reduce.Checker(chk), reduce.Options{MaxTries: tries}); rerr == nil {
			cfg, evs, err = r.Config, r.Events, r.Err
		}
	}
	return []byte(reduce.Text(cfg, evs, err))
}
