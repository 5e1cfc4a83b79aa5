package gate_test

import (
	"testing"

	"github.com/sealgate/sealgate/internal/suite"
)

// TestSuite judges the gate by the whole suite (the corpus through every
// check, generated scenarios, the state machine) from inside package gate,
// where mutation testing looks for the tests that kill a mutant
// (docs/research/power/mutants.md).
func TestSuite(t *testing.T) { suite.Run(t, "../corpus", suite.Quick) }
