package check

import (
	"github.com/sealgate/sealgate"
	"github.com/sealgate/sealgate/model"
)

// All checks one (configuration, events) run with everything the suite
// knows: the gate against the model (I12), the gate against itself
// (determinism, I12), the invariant catalog, and the metamorphic relations
// I5 and I6. It returns nil or the first failure, a *Violation.
func All(cfg sealgate.Config, events []sealgate.Event) error { return Default.All(cfg, events) }

// All runs every check that applies to this Checker's subject (Checks),
// on the events it can carry. Determinism is asked of every subject: the
// metamorphic relations compare runs, and a subject that answers one
// stream two ways cannot be held to them.
func (c *Checker) All(cfg sealgate.Config, events []sealgate.Event) error {
	t := c.Record(cfg, events)
	if t.Err != nil {
		if !t.Caps.Full {
			return &Violation{ID: "SUBJECT", Name: "the subject failed", Msg: t.Err.Error()}
		}
		return &Violation{ID: "ledger", Name: "gate failed closed", Msg: t.Err.Error()}
	}
	if t.Caps.Full {
		m := model.Run(cfg, t.Events)
		if err := Compare("gate", t.Decisions, "model", m); err != nil {
			return &Violation{ID: "I12", Name: "gate == model", Event: firstAt(err), Msg: err.Error()}
		}
	}
	if t.Refused {
		return nil
	}
	if !c.picked(t.Events) {
		// Sampled out (Checker.Sample): the cheap checks only.
		if err := Invariants(t); err != nil {
			return err
		}
		shape := t.Decisions
		if t.Shape != nil {
			shape = t.Shape
		}
		return c.isolation(cfg, t.Events, t.Decisions, shape)
	}
	// The rerun sends every delta and ack through the entry point the
	// first run did not (Feed, or FeedDelta and Ack), so a subject whose
	// two entry points answer differently fails here even where the
	// model agrees with the first run.
	again := c.record(cfg, t.Events, true)
	if again.Err != nil && !t.Caps.Full {
		return &Violation{ID: "SUBJECT", Name: "the subject failed", Msg: "second run: " + again.Err.Error()}
	}
	if err := Compare("first run", t.Decisions, "second run", again.Decisions); err != nil {
		id := "DET"
		if t.Caps.Full {
			id = "I12"
		}
		return &Violation{ID: id, Name: "determinism", Event: firstAt(err), Msg: err.Error() + rerunNote(t.Events)}
	}
	if err := Invariants(t); err != nil {
		return err
	}
	shape := t.Decisions
	if t.Shape != nil {
		shape = t.Shape
	}
	runeSafe := !t.Caps.Full && !t.Caps.SplitRunes
	if err := c.chunking(cfg, t.Events, t.Decisions, shape, SingleBytes, runeSafe); err != nil {
		return err
	}
	if err := c.chunking(cfg, t.Events, t.Decisions, shape, RandomCuts(int64(len(t.Events))), runeSafe); err != nil {
		return err
	}
	return c.isolation(cfg, t.Events, t.Decisions, shape)
}

// rerunNote says, after a determinism failure, that the second run took the
// other entry point for the stream's deltas and acks, when it had any: a
// subject whose Feed and FeedDelta (or Ack) disagree fails this way.
func rerunNote(events []sealgate.Event) string {
	for _, ev := range events {
		if ev.Kind == sealgate.Delta || ev.Kind == sealgate.Ack {
			return " (the second run sends each delta and ack through the other entry point: Feed, or FeedDelta and Ack where the subject has them)"
		}
	}
	return ""
}
