package check

import (
	"errors"
	"fmt"

	"github.com/sealgate/sealgate"
	"github.com/sealgate/sealgate/model"
)

// Trace is one run of the gate, event by event, with what the invariants
// need to see: the decisions each event caused and the raw bytes the gate
// retained after it.
type Trace struct {
	Config    sealgate.Config
	Events    []sealgate.Event
	Decisions []sealgate.Decision
	Refused   bool
	// Retained[i] is gate.Retained() after event i+1 (empty when the
	// subject does not report it).
	Retained []int
	// Err is set when the gate failed closed (ledger error), or the
	// subject failed (crashed, hung, broke its protocol).
	Err error
	// Caps is what the subject claimed; the checks hold it to that.
	Caps Capabilities
	// Shape, when set, is the reference model's decisions for Events: the
	// invariants take the stream's anomalies (poisoning, refused acks)
	// from it instead of from Decisions. Record sets it for a subject
	// that does not claim full fidelity, whose own anomaly lines (if any)
	// nothing else vouches for.
	Shape []sealgate.Decision
}

// Record runs a subject over the events it can carry (Capabilities.carry)
// and records a Trace of them.
func (c *Checker) Record(cfg sealgate.Config, events []sealgate.Event) *Trace {
	return c.record(cfg, events, false)
}

// record is Record; swapped sends each delta and ack the other way between
// Feed and the subject's second entry point for it (see feed).
func (c *Checker) record(cfg sealgate.Config, events []sealgate.Event, swapped bool) *Trace {
	t := &Trace{Config: cfg, Events: events}
	// A subject is configured only with what it supports (within), as it
	// would be in use. What it claimed last time says that before it is
	// opened, which saves a gate process a configuration it would only
	// be given to be taken back.
	first, guessed := cfg, false
	if caps, ok := c.known.get(); ok {
		first, guessed = caps.within(cfg)
	}
	s, err := c.open(first)
	if errors.Is(err, ErrSubjectFailed) {
		t.Err = fmt.Errorf("configuration: %w", err)
		return t
	}
	if err != nil {
		t.Refused = true
		t.Decisions = refused(err)
		t.Caps = FullCapabilities()
		if c.NewSubject != nil {
			t.Caps = Capabilities{}
			var known interface{ Capabilities() Capabilities }
			if errors.As(err, &known) {
				t.Caps = known.Capabilities() // a full subject's refusal answers to I12
			}
		}
		return t
	}
	t.Caps = s.Capabilities()
	c.known.set(t.Caps)
	within, changed := t.Caps.within(cfg)
	if changed != guessed {
		// The guess was wrong: open it again with what it claims now.
		closeSubject(s)
		if s, err = c.open(within); err != nil {
			t.Err = fmt.Errorf("configuration without schemas: %w", err)
			return t
		}
	}
	if changed {
		// Judged by the model under the configuration it was given.
		t.Config, cfg = within, within
	}
	defer closeSubject(s)
	t.Events = t.Caps.carry(events)
	if !t.Caps.Full {
		t.Shape = model.Run(cfg, t.Events)
	}
	ret, _ := s.(Retainer)
	what := "gate failed closed"
	if !t.Caps.Full {
		what = "subject failed"
	}
	retains := t.Caps.Full || t.Caps.Retained
	if retains {
		// One allocation: a re-split run is hundreds of events.
		t.Retained = make([]int, 0, len(t.Events))
	}
	took := func(i int, ds []sealgate.Decision) error {
		t.Decisions = append(t.Decisions, ds...)
		if retains {
			t.Retained = append(t.Retained, ret.Retained())
		}
		return nil
	}
	if st, ok := s.(Streamer); ok {
		cur := -1
		err := st.FeedAll(t.Events, func(i int, ds []sealgate.Decision) error {
			cur = i
			ds, err := numbered(i, t.Events[i], ds)
			took(i, ds)
			return err
		})
		if err != nil {
			at := "before event 1"
			if cur >= 0 {
				at = fmt.Sprintf("event %d (%s)", cur+1, t.Events[cur].Kind)
			}
			t.Err = fmt.Errorf("%s: %s: %w", at, what, err)
		}
		return t
	}
	for i, ev := range t.Events {
		ds, err := feed(s, i, ev, swapped)
		took(i, ds)
		if err != nil {
			t.Err = fmt.Errorf("event %d (%s): %s: %w", i+1, ev.Kind, what, err)
			return t
		}
	}
	return t
}

// byEvent groups decisions by the event that caused them (index 0 = event 1).
func (t *Trace) byEvent() [][]sealgate.Decision { return byEvent(t.Decisions, len(t.Events)) }

// byEvent groups decisions by the event that caused them, for n events.
func byEvent(ds []sealgate.Decision, n int) [][]sealgate.Decision {
	out := make([][]sealgate.Decision, n)
	for _, d := range ds {
		if d.At >= 1 && d.At <= n {
			out[d.At-1] = append(out[d.At-1], d)
		}
	}
	return out
}
