package model

import (
	"sort"
	"strconv"
	"strings"

	"github.com/sealgate/sealgate"
)

// State runs the model like Run and also returns its whole state after the
// last event, as text: the ledger, the released set, and every attempt
// opened since the last restart with its phase and, while it is live, its
// turn, calls (bytes, end, verdict, too-large, early release) and received
// count. The configuration and the
// compiled tools are not in it: they never change during a run. Two event
// sequences with the same State get the same decisions, event for event,
// for every continuation, so exhaustive checking (package exhaust) may
// explore only one of them further. A refused configuration has the empty
// state.
func State(cfg sealgate.Config, events []sealgate.Event) (string, []sealgate.Decision) {
	r, refusal := newRunner(cfg)
	if r == nil {
		return "", refusal
	}
	r.feed(events)
	return r.state(), r.out
}

// state renders the runner's memory: maps in sorted order, attempts and
// calls in their own (open, begin) order, which the decisions follow.
func (r *runner) state() string {
	var b strings.Builder
	b.WriteString("ledger")
	for _, k := range sortedKeys(r.ledger) {
		b.WriteString(" " + k + "=" + r.ledger[k])
	}
	b.WriteString("\nreleased")
	rel := make([]string, 0, len(r.released))
	for k := range r.released {
		rel = append(rel, k)
	}
	sort.Strings(rel)
	for _, k := range rel {
		b.WriteString(" " + k)
	}
	for _, a := range r.attempts {
		if a.phase != live {
			// Every call of an attempt that is not live is decided, and no
			// event reads its turn, bytes or calls again: a dead attempt
			// ignores what it is sent until its close, an ended one answers
			// after-close, and only a live attempt is superseded. Only its
			// id and phase still decide anything.
			b.WriteString("\nattempt " + strconv.Quote(a.id) + " phase=" + strconv.Itoa(int(a.phase)))
			continue
		}
		b.WriteString("\nattempt " + strconv.Quote(a.id) + " turn=" + strconv.Quote(a.turn) +
			" phase=" + strconv.Itoa(int(a.phase)) + " received=" + strconv.Itoa(a.received))
		for _, c := range a.calls {
			b.WriteString("\n call item=" + strconv.Quote(c.item) + " id=" + strconv.Quote(c.id) +
				" tool=" + strconv.Quote(c.tool) + " buf=" + strconv.Quote(string(c.buf)))
			for _, f := range []struct {
				on   bool
				name string
			}{{c.ended, "ended"}, {c.decided, "decided"}, {c.tooLarge, "too-large"}, {c.releasedEarly, "released-early"}} {
				if f.on {
					b.WriteString(" " + f.name)
				}
			}
		}
	}
	return b.String()
}

func sortedKeys(m map[string]string) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
