package partial_test

import (
	"testing"

	"github.com/sealgate/sealgate/internal/suite"
)

// TestSuite judges the preview parser by the whole suite through the gate
// (every peek of the corpus, the generated scenarios and the state machine
// is compared with the model's from-scratch preview), from inside package
// partial, where mutation testing looks for the tests that kill a mutant
// (docs/research/power/mutants.md).
func TestSuite(t *testing.T) { suite.Run(t, "../../../corpus", suite.Quick) }
