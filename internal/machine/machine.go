// Package machine is the suite's rapid state machine: actions that grow a
// stream of events (interleaved calls, fragments of valid and malformed
// JSON, closes of every status, late events, supersede and reopen,
// restarts, acks, peeks) under a drawn configuration, with every check of
// package check run after every step. Tests (props_test.go), the bug-zoo
// meta-test and the power benchmark all run the same machine.
//
// The machine holds only the state of a run; the values it sends (the
// configuration, each call's tool and document) come from package gen.
// Its steps are the named methods of the actions table (actions.go).
package machine

import (
	"fmt"
	"time"

	"pgregory.net/rapid"

	"github.com/sealgate/sealgate"
	"github.com/sealgate/sealgate/check"
	"github.com/sealgate/sealgate/internal/gen"
	"github.com/sealgate/sealgate/internal/reduce"
	"github.com/sealgate/sealgate/model"
)

// The rapid state machine: actions append events to a growing stream, and
// after every step the whole stream is checked — gate against model, the
// invariant catalog, chunking and isolation.

// call is what the machine intended for a call: its document and how
// much of it was sent.
type call struct {
	attempt, item, id, tool string
	doc                     []byte
	sent                    int
}

// attempt is what the machine intended for an attempt; the gate and the
// model decide what really happened, and the checks compare them.
type attempt struct {
	id, turn string
	live     bool
	calls    []*call
	events   []sealgate.Event // its own events, for replays
}

// machine is one run's state: its configuration, the stream so far and
// what the machine intended for it.
type machine struct {
	chk      *check.Checker
	failed   *Failure // where the last failing stream is kept, if not nil
	seen     *Failure // where the stream is kept at each check, if not nil
	mode     mode     // when the run is checked, and whether it keeps to its budget
	done     int      // events of the steps completed so far
	budget   int      // the run's length in events (runBudgets)
	cfg      sealgate.Config
	sw       *gen.Swarm // the run's generated features; nil: the fixed configurations
	swarm    string     // the run's swarm, for failure messages
	events   []sealgate.Event
	model    *model.Stepper // the model, fed the events once an ack asks for keys (ledgerKeys)
	fed      int            // events fed to model
	attempts []*attempt     // opened since the last restart
	history  []*attempt     // closed complete, to replay as retries and duplicates
	nextID   int
	nextTurn int
	nextCall int
}

// check runs every check on evs, a prefix of the stream, and fails the run
// if one fails.
func (m *machine) check(t *rapid.T, evs []sealgate.Event) {
	if m.seen != nil {
		// No copy: events are only ever appended, so this prefix stays.
		*m.seen = Failure{Config: m.cfg, Events: evs}
	}
	if err := m.chk.All(m.cfg, evs); err != nil {
		if m.failed != nil {
			first := m.failed.First
			if first.IsZero() {
				first = time.Now()
			}
			*m.failed = Failure{m.cfg, append([]sealgate.Event(nil), evs...), err, first}
		}
		t.Fatalf("%v\n\nthe stream so far, as a scenario (swarm: %s):\n%s", err, m.swarm, reduce.Text(m.cfg, evs, err))
	}
}

// checkAtEnd, deferred, checks the stream once the run is over: the whole
// run, or, when it stops early (the bits ran out, a panic), the steps it
// completed; then the panic, if any, goes on.
func (m *machine) checkAtEnd(t *rapid.T) {
	r := recover()
	m.check(t, m.events[:m.done])
	if r != nil {
		panic(r)
	}
}

// Failure is a stream that failed a check.
type Failure struct {
	Config sealgate.Config
	Events []sealgate.Event
	Err    error
	First  time.Time // when a check failed for the first time
}

// Run is the state-machine property against a checker's gate; the
// last failing stream (after rapid's shrinking, the smallest) goes to failed.
func Run(chk *check.Checker, failed *Failure) func(*rapid.T) {
	return run(chk, failed, nil, eachStep)
}

// Fuzz is the state-machine property for go fuzz: the same runs as Run,
// checked once, when the run is over (or, when the bits run out, on the
// steps completed), instead of after every step: one check instead of
// thirty, so go fuzz gets through many more runs. The gate and the model
// decide online, so a difference a step shows stays in the whole run's
// decisions; only I5 and I6, which pass over runs that hit a byte limit
// (I5 also an anomaly), could miss one that a later step masks. (On 60
// random runs against each zoo bug, the same runs fail either way.) The
// failing stream is the whole run, which the reducer shrinks. Each run
// also keeps to the events budget it draws (runBudgets): go fuzz gets
// through more, shorter runs.
//
// The run's draws are not logged (quietDraws): rapid.MakeFuzz would format
// each one into the *testing.T's log, most of a run's cost, to print only
// on failure; the failure's message has the stream as a scenario instead.
func Fuzz(chk *check.Checker) func(*rapid.T) {
	return quietDraws(run(chk, nil, nil, fuzzed))
}

// quietDraws runs prop on the same bits without rapid's draw log.
// rapid.MakeFuzz logs every Draw on its T (with the caller's line, through
// testing.T.Logf), but a generator made by rapid.Custom draws on a T of its
// own that does not log, so prop runs as one custom generator: one logged
// draw for the whole run. Custom takes no bits of its own, so the values
// drawn are those prop draws on the outer T (TestReplayMatchesMakeFuzz).
// A failure (Fatalf, a panic) passes through Custom as it is. Custom tries
// again after a skip (the bits ran out, no action applied), which would
// start a second run on the bits left; a second try skips at once instead,
// so the input is skipped as before, with no bits drawn.
func quietDraws(prop func(*rapid.T)) func(*rapid.T) {
	return func(t *rapid.T) {
		ran := false
		rapid.Custom(func(q *rapid.T) bool {
			if ran {
				q.Skip("the run was skipped")
			}
			ran = true
			prop(q)
			return true
		}).Draw(t, "run")
	}
}

// mode is when a run is checked, and whether it keeps to its budget.
type mode uint8

const (
	eachStep mode = iota // Run: checked after every step, run to rapid's end
	atEnd                // Observe: checked once, at the end, run to rapid's end
	fuzzed               // Fuzz and Replay: checked at the end, within the run's events budget
)

// run is Run, Observe's run or Fuzz, by mode; seen, when not nil, keeps
// the stream each check starts on.
func run(chk *check.Checker, failed, seen *Failure, md mode) func(*rapid.T) {
	return func(t *rapid.T) {
		m := &machine{chk: chk, failed: failed, seen: seen, mode: md}
		m.cfg, m.sw = gen.DrawRunConfig(t)
		defer noActionIsInvalid(t)
		if md != eachStep {
			defer m.checkAtEnd(t)
		}
		t.Repeat(m.swarmActions(t))
	}
}

// noValidAction is how rapid's Repeat gives up when 100 actions in a row
// skip before they draw anything. Random bits never get there (in the
// empty state about half the actions skip), but go fuzz, steered by the
// coverage of rapid's own loop, crafts bits that do.
const noValidAction = "can't find a valid (non-skipped) action"

// noActionIsInvalid, deferred, turns rapid's "no valid action" failure into
// an invalid input: the bits found no way forward, the gate did nothing
// wrong. A run stopped at its events budget (runOver) ends as passed. Any
// other panic goes on as it was.
func noActionIsInvalid(t *rapid.T) {
	r := recover()
	if r == nil {
		return
	}
	if _, over := r.(runOver); over {
		return // the run reached its events budget: it is over, passed
	}
	if fmt.Sprint(r) == noValidAction {
		t.Skip("no action applies: " + noValidAction)
	}
	panic(r)
}
