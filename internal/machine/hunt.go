package machine

import (
	"flag"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"pgregory.net/rapid"

	"github.com/sealgate/sealgate/check"
)

// Hunt runs the state machine against a checker's gate outside go test:
// rapid with a fixed seed, at most checks runs, no shrinking (the reducer
// does that), no fail files. It reports the first failure and how long it
// took to appear. Hunts (and replays) share rapid's global flags, so they
// run one at a time.
func Hunt(chk *check.Checker, seed uint64, checks int) (found *Failure, after time.Duration, err error) {
	huntMu.Lock()
	defer huntMu.Unlock()
	initFlags()
	restore, err := setFlags(map[string]string{
		"rapid.seed": fmt.Sprint(seed), "rapid.checks": fmt.Sprint(checks),
		"rapid.nofailfile": "true", "rapid.shrinktime": "1ns",
	})
	if err != nil {
		return nil, 0, err
	}
	defer restore()
	var f Failure
	start := time.Now()
	rapid.Check(&Recorder{}, Run(chk, &f))
	if f.Err == nil {
		return nil, 0, nil
	}
	return &f, f.First.Sub(start), nil
}

var huntMu sync.Mutex

// initFlags makes rapid usable outside go test.
func initFlags() {
	if flag.Lookup("test.short") == nil {
		testing.Init() // rapid asks testing.Short(); outside go test nobody has set it up
	}
	if !flag.Parsed() {
		flag.CommandLine.Parse(nil) // likewise: testing.Short() wants parsed flags
	}
}

// setFlags sets rapid's flags and returns a function that restores them.
func setFlags(vals map[string]string) (func(), error) {
	old := map[string]string{}
	restore := func() {
		for k, v := range old {
			flag.Lookup(k).Value.Set(v)
		}
	}
	for k, v := range vals {
		f := flag.Lookup(k)
		if f == nil {
			restore()
			return nil, fmt.Errorf("rapid flag %s is not registered", k)
		}
		old[k] = f.Value.String()
		if err := f.Value.Set(v); err != nil {
			restore()
			return nil, err
		}
	}
	return restore, nil
}

// Recorder is a rapid.TB that keeps a property's failure instead of failing
// a test, so that code can ask whether rapid found a bug.
type Recorder struct {
	failed bool
	Out    strings.Builder
}

func (r *Recorder) Helper()                           {}
func (r *Recorder) Name() string                      { return "machine" }
func (r *Recorder) Logf(format string, args ...any)   { fmt.Fprintf(&r.Out, format+"\n", args...) }
func (r *Recorder) Log(args ...any)                   { fmt.Fprintln(&r.Out, args...) }
func (r *Recorder) Skipf(format string, args ...any)  { r.Logf(format, args...) }
func (r *Recorder) Skip(args ...any)                  { r.Log(args...) }
func (r *Recorder) SkipNow()                          {}
func (r *Recorder) Errorf(format string, args ...any) { r.failed = true; r.Logf(format, args...) }
func (r *Recorder) Error(args ...any)                 { r.failed = true; r.Log(args...) }
func (r *Recorder) Fatalf(format string, args ...any) { r.failed = true; r.Logf(format, args...) }
func (r *Recorder) Fatal(args ...any)                 { r.failed = true; r.Log(args...) }
func (r *Recorder) FailNow()                          { r.failed = true }
func (r *Recorder) Fail()                             { r.failed = true }
func (r *Recorder) Failed() bool                      { return r.failed }
