package check

import (
	"fmt"

	"github.com/sealgate/sealgate"
)

// Trace is one run of the gate, event by event, with what the invariants
// need to see: the decisions each event caused and the raw bytes the gate
// retained after it.
type Trace struct {
	Config    sealgate.Config
	Events    []sealgate.Event
	Decisions []sealgate.Decision
	Refused   bool
	// Retained[i] is gate.Retained() after event i+1.
	Retained []int
	// Err is set when the gate failed closed (ledger error).
	Err error
}

// Record runs the real gate over events and records a Trace.
func Record(cfg sealgate.Config, events []sealgate.Event) *Trace {
	return Default.Record(cfg, events)
}

// Record runs a gate over events and records a Trace.
func (c *Checker) Record(cfg sealgate.Config, events []sealgate.Event) *Trace {
	t := &Trace{Config: cfg, Events: events}
	g, err := c.NewGate(cfg)
	if err != nil {
		t.Refused = true
		t.Decisions = refused(err)
		return t
	}
	for i, ev := range events {
		ds, err := feed(g, i, ev)
		t.Decisions = append(t.Decisions, ds...)
		t.Retained = append(t.Retained, g.Retained())
		if err != nil {
			t.Err = fmt.Errorf("event %d (%s): gate failed closed: %w", i+1, ev.Kind, err)
			return t
		}
	}
	return t
}

// byEvent groups decisions by the event that caused them (index 0 = event 1).
func (t *Trace) byEvent() [][]sealgate.Decision {
	out := make([][]sealgate.Decision, len(t.Events))
	for _, d := range t.Decisions {
		if d.At >= 1 && d.At <= len(t.Events) {
			out[d.At-1] = append(out[d.At-1], d)
		}
	}
	return out
}
