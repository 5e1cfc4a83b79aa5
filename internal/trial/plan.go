package trial

import (
	"time"

	"github.com/sealgate/sealgate"
	"github.com/sealgate/sealgate/scn"
)

// The phases of a trial, in the order Plan.Run runs them.
const (
	PhaseCorpus    = "corpus"
	PhaseMachine   = "machine"
	PhaseGenerated = "generated"
)

// Stream is one input of a trial.
type Stream struct {
	Phase  string // PhaseCorpus, PhaseMachine or PhaseGenerated
	Source string // for reports: "corpus FILE", "machine seed N", "generated #N"
	Config sealgate.Config
	Events []sealgate.Event
	// Scenario is the corpus file (PhaseCorpus), with its expected
	// decisions; ConfigErr is its configuration's refusal by the scenario
	// format itself, when Config could not be built.
	Scenario  *scn.Scenario
	ConfigErr error
	// Err is what the state machine found (a machine stream that hunts):
	// nil when its run passed. Events and Config are then the failing
	// run's, if it got that far; Took is how long the hunt took to fail.
	Err  error
	Took time.Duration
}

// Plan is one trial: the corpus, then Machines streams of the state
// machine (or fewer, when MachineBudget is spent), then generated streams
// until Budget is spent.
type Plan struct {
	Corpus   []*scn.Scenario
	Machines int
	// MachineBudget, when positive, bounds the machine phase: once it is
	// spent, the run in progress finishes and no other starts. One machine
	// run checks a stream at every step, so its cost is the subject's: a
	// slow gate process would otherwise hold the trial for many minutes.
	MachineBudget time.Duration
	// Machine makes the i-th machine stream (0-based) and Generate the
	// i-th generated one; false skips it (it still counts as run).
	Machine  func(i int) (Stream, bool)
	Generate func(i int) (Stream, bool)
	Budget   time.Duration
	// Begin and End, when set, are told when a phase starts and ends, with
	// how many streams it ran and how long it took.
	Begin func(phase string)
	End   func(phase string, streams int, took time.Duration)
	// Now is the clock the budgets are measured on; nil is time.Now.
	Now func() time.Time
}

func (p Plan) now() time.Time {
	if p.Now != nil {
		return p.Now()
	}
	return time.Now()
}

// Run gives each stream of the plan to each, phase after phase, until
// each returns true (stop). A phase with nothing to run (no corpus, no
// machine function) is left out; a zero budget runs no generated stream.
func (p Plan) Run(each func(Stream) (stop bool)) {
	if len(p.Corpus) > 0 {
		stop := p.phase(PhaseCorpus, func(i int) (Stream, bool, bool) {
			if i >= len(p.Corpus) {
				return Stream{}, false, true
			}
			s := p.Corpus[i]
			cfg, err := s.Config()
			return Stream{Phase: PhaseCorpus, Source: "corpus " + s.Name, Config: cfg, ConfigErr: err, Events: s.Events, Scenario: s}, true, false
		}, each)
		if stop {
			return
		}
	}
	if p.Machine != nil {
		deadline := p.now().Add(p.MachineBudget)
		stop := p.phase(PhaseMachine, func(i int) (Stream, bool, bool) {
			if i >= p.Machines || (p.MachineBudget > 0 && i > 0 && !p.now().Before(deadline)) {
				return Stream{}, false, true
			}
			s, ok := p.Machine(i)
			return s, ok, false
		}, each)
		if stop {
			return
		}
	}
	if p.Generate != nil {
		deadline := p.now().Add(p.Budget)
		p.phase(PhaseGenerated, func(i int) (Stream, bool, bool) {
			if !p.now().Before(deadline) {
				return Stream{}, false, true
			}
			s, ok := p.Generate(i)
			return s, ok, false
		}, each)
	}
}

// phase runs next(0), next(1), ... until it says done or each says stop,
// between Begin and End; it reports whether each said stop.
func (p Plan) phase(name string, next func(i int) (s Stream, ok, done bool), each func(Stream) bool) bool {
	if p.Begin != nil {
		p.Begin(name)
	}
	start := p.now()
	n, stop := 0, false
	for ; !stop; n++ {
		s, ok, done := next(n)
		if done {
			break
		}
		if ok {
			stop = each(s)
		}
	}
	if p.End != nil {
		p.End(name, n, p.now().Sub(start))
	}
	return stop
}
