package check

import "github.com/sealgate/sealgate"

// The tests of package check_test reach a few unexported helpers through
// these names; they are no part of the API.
var (
	Rechunk      = rechunk
	Serialize    = serialize
	Applicable   = applicable
	AllDecisions = allDecisions
)

func (c Capabilities) Emits(k sealgate.DecisionKind) bool             { return c.emits(k) }
func (c Capabilities) Carry(events []sealgate.Event) []sealgate.Event { return c.carry(events) }
