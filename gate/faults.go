package gate

import (
	"sealgate"
	"sealgate/internal/faults"
)

// The suite proves its power by switching deliberate bugs on in this very
// code; the switches live in an internal package, out of users' reach.
func init() {
	faults.Register(func(cfg sealgate.Config, s faults.Set) (faults.Gate, error) {
		g, err := New(cfg, NewMemoryLedger())
		if err != nil {
			return nil, err
		}
		g.faults = s
		return g, nil
	})
}
