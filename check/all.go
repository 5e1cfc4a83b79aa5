package check

import (
	"github.com/sealgate/sealgate"
)

// All checks one (configuration, events) run with everything the suite
// knows: the gate against the model (I12), the gate against itself
// (determinism, I12), the invariant catalog, and the metamorphic relations
// I5 and I6. It returns nil or the first failure, a *Violation.
func All(cfg sealgate.Config, events []sealgate.Event) error { return Default.All(cfg, events) }

// All runs every check against this Checker's gate.
func (c *Checker) All(cfg sealgate.Config, events []sealgate.Event) error {
	t := c.Record(cfg, events)
	if t.Err != nil {
		return &Violation{ID: "ledger", Name: "gate failed closed", Msg: t.Err.Error()}
	}
	m := RunModel(cfg, events)
	if err := Compare("gate", t.Decisions, "model", m); err != nil {
		return &Violation{ID: "I12", Name: "gate == model", Event: firstAt(err), Msg: err.Error()}
	}
	if t.Refused {
		return nil
	}
	again := c.Record(cfg, events)
	if err := Compare("first run", t.Decisions, "second run", again.Decisions); err != nil {
		return &Violation{ID: "I12", Name: "determinism", Event: firstAt(err), Msg: err.Error()}
	}
	if err := Invariants(t); err != nil {
		return err
	}
	if err := c.CheckChunking(cfg, events, t.Decisions, SingleBytes); err != nil {
		return err
	}
	if err := c.CheckChunking(cfg, events, t.Decisions, RandomCuts(int64(len(events)))); err != nil {
		return err
	}
	return c.CheckIsolation(cfg, events, t.Decisions)
}
