package check

import (
	"github.com/sealgate/sealgate"
	"github.com/sealgate/sealgate/internal/zoo/faults"
)

// WithFaults checks the real gate with deliberate bugs switched on; the
// suite's own tests use it to prove that the checks catch them.
func WithFaults(s faults.Set) *Checker {
	return &Checker{NewGate: func(cfg sealgate.Config) (Gate, error) { return faults.New(cfg, s) }}
}
