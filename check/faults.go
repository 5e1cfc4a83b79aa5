package check

import (
	"fmt"
	"os"

	"sealgate"
	"sealgate/internal/faults"
)

// WithFaults checks the real gate with deliberate bugs switched on; the
// suite's own tests use it to prove that the checks catch them.
func WithFaults(s faults.Set) *Checker {
	return &Checker{NewGate: func(cfg sealgate.Config) (Gate, error) { return faults.New(cfg, s) }}
}

// FaultsEnv names the environment variable that plants bugs in the gate
// under go fuzz and the campaign (a fuzz worker is a separate process, so
// the choice has to travel by environment).
const FaultsEnv = "SEALGATE_FAULTS"

// faultNames are the values FaultsEnv may take.
var faultNames = map[string]faults.Set{
	"release-at-end": {ReleaseAtEnd: true},
}

// FromEnv returns Default, or a checker with the bugs FaultsEnv names.
func FromEnv() (*Checker, error) {
	v := os.Getenv(FaultsEnv)
	if v == "" {
		return Default, nil
	}
	s, ok := faultNames[v]
	if !ok {
		return nil, fmt.Errorf("%s=%q: unknown fault", FaultsEnv, v)
	}
	return WithFaults(s), nil
}
