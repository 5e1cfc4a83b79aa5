package trial

import (
	"sync"
	"sync/atomic"
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
	// Index is the stream's place in its phase, from 0: with several
	// workers, streams are checked out of order, and a report that names
	// the first failing stream orders them by it.
	Index  int
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
	// Count, when positive, also ends the generated phase after that many
	// streams, so that a run covers the same streams on any machine.
	Count int
	// Workers, above 1, checks the corpus and the generated streams on
	// that many goroutines (each must be safe for concurrent use then),
	// so that a subject in another process keeps every core busy. The
	// streams are still made in order by one goroutine, so a phase makes
	// the same streams whatever the number of workers. The machine phase
	// stays on one: each of its runs checks as it goes.
	Workers int
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
		stop := p.phase(PhaseCorpus, p.Workers, func(i int) (Stream, bool, bool) {
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
		stop := p.phase(PhaseMachine, 1, func(i int) (Stream, bool, bool) {
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
		p.phase(PhaseGenerated, p.Workers, func(i int) (Stream, bool, bool) {
			if !p.now().Before(deadline) || (p.Count > 0 && i >= p.Count) {
				return Stream{}, false, true
			}
			s, ok := p.Generate(i)
			return s, ok, false
		}, each)
	}
}

// phase runs next(0), next(1), ... until it says done or each says stop,
// between Begin and End, on workers goroutines; it reports whether each
// said stop.
func (p Plan) phase(name string, workers int, next func(i int) (s Stream, ok, done bool), each func(Stream) bool) bool {
	if p.Begin != nil {
		p.Begin(name)
	}
	start := p.now()
	var n int
	var stop bool
	if workers > 1 {
		n, stop = fanOut(workers, next, each)
	} else {
		for ; !stop; n++ {
			s, ok, done := next(n)
			if done {
				break
			}
			if ok {
				s.Index = n
				stop = each(s)
			}
		}
	}
	if p.End != nil {
		p.End(name, n, p.now().Sub(start))
	}
	return stop
}

// fanOut is phase's loop on workers goroutines: this one makes the
// streams in order and hands each to the first free worker, so that no
// more than one stream waits made and unchecked (a time budget is spent
// on checking, not on a queue). After a stop, the streams already handed
// out finish and no other is made.
func fanOut(workers int, next func(i int) (s Stream, ok, done bool), each func(Stream) bool) (int, bool) {
	streams := make(chan Stream)
	var stopped atomic.Bool
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for s := range streams {
				if each(s) {
					stopped.Store(true)
				}
			}
		}()
	}
	n := 0
	for ; !stopped.Load(); n++ {
		s, ok, done := next(n)
		if done {
			break
		}
		if ok {
			s.Index = n
			streams <- s
		}
	}
	close(streams)
	wg.Wait()
	return n, stopped.Load()
}
