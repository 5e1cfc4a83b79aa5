package machine

import (
	"errors"
	"fmt"

	"pgregory.net/rapid"

	"github.com/sealgate/sealgate"
	"github.com/sealgate/sealgate/check"
)

// Observe runs the state machine as Hunt does (rapid with a fixed seed, at
// most runs runs, no shrinking, no fail files) but checks each run once,
// when it is over, as Fuzz does, and hands every run's configuration and
// events to see. The streams are the ones Run draws for that seed: the
// checks draw nothing, so when they run does not change what is generated.
// Generator coverage (package coverage) reads what the machine reaches this
// way. A run that fails its checks stops the seed and is returned as the
// error, after see has had it (rapid may replay a failing run, so see
// can get it twice).
func Observe(chk *check.Checker, seed uint64, runs int, see func(sealgate.Config, []sealgate.Event)) error {
	huntMu.Lock()
	defer huntMu.Unlock()
	initFlags()
	restore, err := setFlags(map[string]string{
		"rapid.seed": fmt.Sprint(seed), "rapid.checks": fmt.Sprint(runs),
		"rapid.nofailfile": "true", "rapid.shrinktime": "1ns",
	})
	if err != nil {
		return err
	}
	defer restore()
	rec := &Recorder{}
	rapid.Check(rec, func(t *rapid.T) {
		var seen Failure
		defer func() {
			// After the deferred end-of-run check has set seen, whether
			// the run passed, failed or skipped.
			if seen.Config.Tools != nil {
				see(seen.Config, seen.Events)
			}
		}()
		run(chk, nil, &seen, atEnd)(t)
	})
	if rec.Failed() {
		return errors.New(rapidFailure(rec.Out.String()))
	}
	return nil
}
