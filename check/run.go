package check

import (
	"fmt"
	"hash/fnv"
	"strconv"

	"github.com/sealgate/sealgate"
	"github.com/sealgate/sealgate/gate"
	"github.com/sealgate/sealgate/model"
	"github.com/sealgate/sealgate/scn"
)

// Result is what both implementations said about one scenario.
type Result struct {
	Gate    []sealgate.Decision
	GateErr error // the gate failed closed (ledger error); Gate holds what it said before
	Model   []sealgate.Decision
}

// refused is the single decision of a refused configuration.
func refused(err error) []sealgate.Decision {
	return []sealgate.Decision{{At: 0, Kind: sealgate.Refused, Text: err.Error()}}
}

// deltaFeeder is a subject with a second entry point for deltas (the real
// gate's FeedDelta), which must answer exactly as Feed does. The checks feed
// every other delta through it, so both entry points answer to the model.
type deltaFeeder interface {
	FeedDelta(attempt, item string, b []byte) ([]sealgate.Decision, error)
}

// acker is a subject with a second entry point for acks (the real gate's
// Ack, the one an executor calls), which must answer exactly as Feed of the
// ack event does. The checks send every other ack through it, as they do
// deltas through FeedDelta.
type acker interface {
	Ack(key string, ok bool) ([]sealgate.Decision, error)
}

// feed gives event i (0-based) to s: a delta or an ack at an odd index goes
// through s's second entry point for it (FeedDelta, Ack) when s has one,
// every other event through Feed. With swapped the parity flips, so a
// second run of the same stream sends each such event the other way: All's
// determinism rerun does, and so every delta and ack of a stream reaches
// both entry points, whatever its index.
// The choice follows the event's index, so when the reducer drops an event
// the later deltas change entry point; the two share one path in the real
// gate, so a failure does not hang on the choice unless an entry point
// itself is wrong. A decision with no At gets event i's; one that names
// another event is the subject breaking its contract.
func feed(s Subject, i int, ev sealgate.Event, swapped bool) ([]sealgate.Decision, error) {
	var ds []sealgate.Decision
	var err error
	second := (i%2 == 1) != swapped
	d, deltas := s.(deltaFeeder)
	a, acks := s.(acker)
	switch {
	case second && deltas && ev.Kind == sealgate.Delta:
		ds, err = d.FeedDelta(ev.Attempt, ev.Item, ev.Bytes)
	case second && acks && ev.Kind == sealgate.Ack:
		ds, err = a.Ack(ev.Key, ev.OK)
	default:
		ds, err = s.Feed(ev)
	}
	ds, nerr := numbered(i, ev, ds)
	if nerr != nil {
		return ds, nerr
	}
	return ds, err
}

// numbered gives event i's decisions their At when they have none; one
// that names another event is the subject breaking its contract.
func numbered(i int, ev sealgate.Event, ds []sealgate.Decision) ([]sealgate.Decision, error) {
	for j := range ds {
		switch ds[j].At {
		case 0:
			ds[j].At = i + 1
		case i + 1:
		default:
			return ds[:j], fmt.Errorf("answered event %d (%s) with a decision for event %d: %s", i+1, ev.Kind, ds[j].At, ds[j])
		}
	}
	return ds, nil
}

// realGate is the project's own gate as a subject: it claims the whole
// SPEC, and its FeedDelta and Ack are the second entry points the checks
// exercise.
type realGate struct{ *gate.Gate }

func (realGate) Capabilities() Capabilities { return FullCapabilities() }

// newRealGate builds the real gate over a fresh in-memory ledger.
func newRealGate(cfg sealgate.Config) (Subject, error) {
	g, err := gate.New(cfg, gate.NewMemoryLedger())
	if err != nil {
		return nil, err
	}
	return realGate{g}, nil
}

// Checker runs the checks against the subjects NewSubject builds.
type Checker struct {
	NewSubject SubjectFactory
	// Sample, above 1, makes All cheaper for fuzzing: the determinism
	// rerun and the two I6 passes (about three fifths of All's time) run
	// on one scenario in Sample, picked by a hash of the events, so an
	// input always gets the same checks and a crash reproduces; gate ==
	// model (I12), the invariants and I5 run on every scenario. Zero or
	// one checks everything. Only fuzz bodies set it (fuzztarget.ForFuzzing),
	// and never with SEALGATE_CHECKS=full.
	Sample int
	known  *knownCaps // set by NewChecker
}

// picked says whether All runs its sampled checks on these events: always
// when c does not sample, else when the events' hash falls in the sample.
func (c *Checker) picked(events []sealgate.Event) bool {
	if c.Sample <= 1 {
		return true
	}
	h := fnv.New64a()
	var b []byte
	for _, e := range events {
		b = append(b[:0], byte(e.Kind), byte(e.Status))
		if e.OK {
			b = append(b, 1)
		}
		for _, f := range [][]byte{[]byte(e.Attempt), []byte(e.Turn), []byte(e.Item), []byte(e.Call), []byte(e.Tool), []byte(e.Key), e.Bytes, e.Final} {
			b = strconv.AppendInt(append(b, '|'), int64(len(f)), 10)
			b = append(append(b, ':'), f...)
		}
		h.Write(b)
	}
	return h.Sum64()%uint64(c.Sample) == 0
}

// Default checks the real gate, over a fresh in-memory ledger per run.
var Default = NewChecker(newRealGate)

// runGate feeds events to a new subject and returns its decisions and
// error (Record without the trace).
func (c *Checker) runGate(cfg sealgate.Config, events []sealgate.Event) ([]sealgate.Decision, error) {
	t := c.Record(cfg, events)
	return t.Decisions, t.Err
}

// Run runs a configuration and events through the subject (Record, whose
// Decisions and Err are Result's Gate and GateErr) and the model.
func (c *Checker) Run(cfg sealgate.Config, events []sealgate.Event) Result {
	var r Result
	r.Gate, r.GateErr = c.runGate(cfg, events)
	r.Model = model.Run(cfg, events)
	return r
}

// RunScenario runs a parsed scenario through both implementations. A
// configuration that the scenario format itself refuses (a second tool
// line, an undeclared tool, a bad limit value) is refused for both.
func (c *Checker) RunScenario(s *scn.Scenario) Result {
	cfg, err := s.Config()
	if err != nil {
		return Result{Gate: refused(err), Model: refused(err)}
	}
	return c.Run(cfg, s.Events)
}

// Agree returns nil when the gate and the model produced the same
// decisions, and otherwise an error naming the first difference.
func (r Result) Agree() error {
	if r.GateErr != nil {
		return r.GateErr
	}
	return Compare("gate", r.Gate, "model", r.Model)
}
