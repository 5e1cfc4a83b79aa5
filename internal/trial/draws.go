package trial

import (
	"fmt"
	"math/rand"

	"github.com/sealgate/sealgate/check"
	"github.com/sealgate/sealgate/internal/gen"
	"github.com/sealgate/sealgate/internal/machine"
)

// Hunt runs the rapid state machine, which checks after every step, for
// checks runs from seed, and returns the first failing run as a stream
// (Err set; Config and Events are its counterexample) or a passing one.
// An error is the machine itself failing (it could not run).
func Hunt(chk *check.Checker, seed uint64, checks int) (Stream, error) {
	s := Stream{Phase: PhaseMachine, Source: fmt.Sprintf("machine seed %d", seed)}
	f, after, err := machine.Hunt(chk, seed, checks)
	if err != nil {
		return s, err
	}
	if f != nil {
		s.Config, s.Events, s.Err, s.Took = f.Config, f.Events, f.Err, after
	}
	return s, nil
}

// Hunts is Plan.Machine for one machine run per seed, from seed on, so
// that every failing run counts. A machine that cannot run is reported
// as the stream's failure, with no events.
func Hunts(chk *check.Checker, seed uint64) func(i int) (Stream, bool) {
	return func(i int) (Stream, bool) {
		s, err := Hunt(chk, seed+uint64(i), 1)
		if err != nil {
			s.Err = err
		}
		return s, true
	}
}

// Replay runs the state machine on a bitstream and returns the stream it
// made, whatever its own checks said about it (false when it made none).
func Replay(chk *check.Checker, bits []byte) (Stream, bool) {
	f, err := machine.Replay(chk, bits)
	if err != nil || f == nil {
		return Stream{}, false
	}
	return Stream{Phase: PhaseMachine, Config: f.Config, Events: f.Events}, true
}

// Bytes is Plan.Generate for streams gen.FromBytes makes of r's bytes,
// 16 to 511 of them each.
func Bytes(r *rand.Rand) func(i int) (Stream, bool) {
	return func(i int) (Stream, bool) {
		b := make([]byte, 16+r.Intn(496))
		r.Read(b)
		cfg, evs := gen.FromBytes(b)
		return Stream{Phase: PhaseGenerated, Source: fmt.Sprintf("generated #%d", i+1), Config: cfg, Events: evs}, true
	}
}
