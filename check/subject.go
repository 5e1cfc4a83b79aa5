package check

import (
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"

	"github.com/sealgate/sealgate"
)

// A Subject is a gate under test: anything that takes normalized events one
// at a time and answers each with its decisions. The real gate is one; a
// gate in another language behind the stdio protocol, or an official SDK
// idiom behind a peer adapter, are others. A subject says what it can
// express in its Capabilities, and the checks hold it only to what it
// claims, so that a violation is never a missing capability.
type Subject interface {
	// Capabilities is what this subject claims; it must not change during
	// a run.
	Capabilities() Capabilities
	// Feed gives the subject the next event and returns the decisions that
	// event caused, in order; their At is filled in by the checker. An
	// error is the subject failing (a gate failing closed, a process that
	// crashed or broke its protocol): the run stops at that event.
	Feed(sealgate.Event) ([]sealgate.Decision, error)
}

// Retainer is a subject that reports how many raw argument bytes it holds
// (I9). Only a subject whose Capabilities claim Retained is asked.
type Retainer interface {
	Retained() int
}

// Streamer is a subject that can be given a whole run at once and answers
// it event by event, as a process behind a pipe can (the events go out
// without waiting on each round trip). Its answers must be what Feed would
// give: answer is called with each event's index (0-based) and decisions,
// in order, and Retained (if claimed) is read during the call. It stops at
// the first error, its own or answer's.
type Streamer interface {
	FeedAll(events []sealgate.Event, answer func(i int, ds []sealgate.Decision) error) error
}

// SubjectFactory builds a fresh subject for one run of a configuration: no
// memory of earlier runs, an empty ledger. An error is the subject refusing
// the configuration, unless it wraps ErrSubjectFailed (a process that would
// not start or answered nonsense), which is a failure of the subject. A
// refusal that has a Capabilities() Capabilities method says what the
// subject claims, so that a full subject's refusal is compared with the
// model's. When the subject holds resources (a process), it may
// implement io.Closer; the checker closes it after the run.
type SubjectFactory func(sealgate.Config) (Subject, error)

// ErrSubjectFailed marks an error of a subject that is not a verdict: a
// crash, a hang, a broken protocol. The run stops there and All reports it
// (ID "SUBJECT"), with the event.
var ErrSubjectFailed = errors.New("subject failed")

// DecisionSet is a set of decision kinds.
type DecisionSet uint16

// Decisions builds a set from kinds.
func Decisions(kinds ...sealgate.DecisionKind) DecisionSet {
	var s DecisionSet
	for _, k := range kinds {
		s |= 1 << k
	}
	return s
}

// has reports whether k is in the set.
func (s DecisionSet) has(k sealgate.DecisionKind) bool { return s&(1<<k) != 0 }

// kinds lists the set's kinds in the order of sealgate's constants.
func (s DecisionSet) kinds() []sealgate.DecisionKind {
	var out []sealgate.DecisionKind
	for k := sealgate.Release; k <= sealgate.Refused; k++ {
		if s.has(k) {
			out = append(out, k)
		}
	}
	return out
}

func (s DecisionSet) names() string {
	var w []string
	for _, k := range s.kinds() {
		w = append(w, k.String())
	}
	return strings.Join(w, ",")
}

// allDecisions is every decision kind of SPEC section 7, refusal included.
var allDecisions = Decisions(sealgate.Release, sealgate.Reject, sealgate.Anomaly,
	sealgate.Compensate, sealgate.Reconcile, sealgate.PreviewAnswer, sealgate.Refused)

// Capabilities is what a subject can express. The zero value is a subject
// that only releases and takes only open, begin, delta, end and close: the
// least any gate under test can do.
type Capabilities struct {
	// Full claims the whole SPEC: the subject's decisions must equal the
	// reference model's, line for line (I12). Only the project's own gate
	// (and its deliberately broken variants) claim it.
	Full bool
	// Decides is the decision kinds the subject emits. Release is always
	// in it. A subject that emits a kind it does not claim breaks its own
	// declaration, which is reported (ID "CAPS").
	Decides DecisionSet
	// Peeks, Acks and Restarts: the subject takes peek, ack and restart
	// events. Events of a kind it does not take are left out of its runs
	// (carry), and so are the checks that need them. Restarts claims a
	// ledger that outlives the restart (I7 across restarts).
	Peeks, Acks, Restarts bool
	// Schemas: the subject validates arguments against the tools' JSON
	// Schemas (SPEC 5). Reasons: its reject lines carry the SPEC's
	// reasons. Both matter only to the gate == model comparison today;
	// a subject states them so that a report can say what it skipped.
	Schemas, Reasons bool
	// Retained: the subject reports the raw bytes it holds (Retainer),
	// so I9 (bounded) applies.
	Retained bool
	// SplitRunes: the subject takes fragments that split a UTF-8 sequence
	// (SPEC 2). Without it, I6 re-splits fragments only at rune
	// boundaries, and a caller must not give it such fragments (an SDK
	// decodes its fragments as JSON strings, which cannot carry them).
	SplitRunes bool
}

// FullCapabilities is what the real gate claims: everything.
func FullCapabilities() Capabilities {
	return Capabilities{Full: true, Decides: allDecisions, Peeks: true, Acks: true, Restarts: true,
		Schemas: true, Reasons: true, Retained: true, SplitRunes: true}
}

// emits reports whether the subject claims decisions of kind k; a release
// and a refusal of the configuration are always claimed.
func (c Capabilities) emits(k sealgate.DecisionKind) bool {
	return k == sealgate.Release || k == sealgate.Refused || c.Full || c.Decides.has(k)
}

// takes reports whether the subject takes events of kind k.
func (c Capabilities) takes(k sealgate.EventKind) bool {
	switch k {
	case sealgate.Peek:
		return c.Full || c.Peeks
	case sealgate.Ack:
		return c.Full || c.Acks
	case sealgate.Restart:
		return c.Full || c.Restarts
	}
	return true
}

// carry returns the events this subject can be given: events leaves it
// unchanged when the subject takes every kind in it, and otherwise it is
// a new slice without the events of the kinds it does not take. The
// checks judge the carried stream, against the model run on the same
// stream, so what is left out is neither held against the subject nor
// credited to it.
// noSchema is the schema of a tool given to a subject that validates none:
// any value (the seal still wants an object).
const noSchema = `{}`

// within is cfg as a subject with these capabilities can take it: a
// subject that validates no schemas gets none, so that a call the model
// would reject for its schema is not held against it. changed says whether
// anything was taken out.
func (c Capabilities) within(cfg sealgate.Config) (sealgate.Config, bool) {
	if c.Full || c.Schemas {
		return cfg, false
	}
	changed := false
	tools := append([]sealgate.Tool(nil), cfg.Tools...)
	for i := range tools {
		if tools[i].Schema != noSchema {
			tools[i].Schema, changed = noSchema, true
		}
	}
	if changed {
		cfg.Tools = tools
	}
	return cfg, changed
}

func (c Capabilities) carry(events []sealgate.Event) []sealgate.Event {
	for i, ev := range events {
		if c.takes(ev.Kind) {
			continue
		}
		out := append([]sealgate.Event(nil), events[:i]...)
		for _, ev := range events[i:] {
			if c.takes(ev.Kind) {
				out = append(out, ev)
			}
		}
		return out
	}
	return events
}

func (c Capabilities) String() string {
	if c.Full {
		return "full"
	}
	return c.partial()
}

// partial lists what the capabilities claim, leaving Full aside.
func (c Capabilities) partial() string {
	w := []string{"decides=" + Decisions(sealgate.Release).names()}
	if c.Decides != 0 {
		w[0] = "decides=" + (c.Decides | Decisions(sealgate.Release)).names()
	}
	for _, f := range []struct {
		on   bool
		name string
	}{{c.Peeks, "peeks"}, {c.Acks, "acks"}, {c.Restarts, "restarts"}, {c.Schemas, "schemas"},
		{c.Reasons, "reasons"}, {c.Retained, "retained"}, {c.SplitRunes, "split-runes"}} {
		if f.on {
			w = append(w, f.name)
		}
	}
	return strings.Join(w, " ")
}

// Check is one check the suite can run on a subject: an invariant of the
// catalog, a metamorphic relation, or a comparison. Applies says, from the
// subject's capabilities alone, whether it is run; a check that does not
// apply is never reported.
type Check struct {
	ID, Name string
	Applies  func(Capabilities) bool
	// Partial, when set, says what part of the check is left out for a
	// subject that lacks a capability (the check still applies).
	Partial func(Capabilities) string
}

func always(Capabilities) bool { return true }

// verdicts reports whether the subject can give every verdict a call may
// get: release, reject, reconcile.
func verdicts(c Capabilities) bool { return c.emits(sealgate.Reject) && c.emits(sealgate.Reconcile) }

func previews(c Capabilities) bool { return c.takes(sealgate.Peek) && c.emits(sealgate.PreviewAnswer) }

// before and after are the checks All runs around the catalog: the
// comparisons first (their failure makes the invariants moot), the
// metamorphic relations last (they rerun the subject).
var (
	before = []Check{
		{ID: "CAPS", Name: "decisions within the declared capabilities", Applies: always},
		{ID: "I12", Name: "gate == model, and determinism", Applies: func(c Capabilities) bool { return c.Full }},
		{ID: "DET", Name: "determinism: the same stream gets the same decisions twice", Applies: func(c Capabilities) bool { return !c.Full }},
	}
	after = []Check{
		{ID: "I6", Name: "chunking", Applies: always, Partial: func(c Capabilities) string {
			if c.Full || c.SplitRunes {
				return ""
			}
			return "fragments are re-split only at rune boundaries"
		}},
		{ID: "I5", Name: "isolation", Applies: always},
	}
)

// Checks lists every check All runs, in the order it runs them: the
// comparisons, the invariant catalog, the metamorphic relations.
func Checks() []Check {
	out := append([]Check(nil), before...)
	for _, inv := range catalog {
		out = append(out, inv.Check)
	}
	return append(out, after...)
}

// applicable returns the checks that apply to a subject with these
// capabilities, in the order All runs them.
func applicable(c Capabilities) []Check {
	var out []Check
	for _, ch := range Checks() {
		if ch.Applies(c) {
			out = append(out, ch)
		}
	}
	return out
}

// NewChecker checks the subjects a factory builds.
func NewChecker(f SubjectFactory) *Checker {
	return &Checker{NewSubject: f, known: &knownCaps{}}
}

// knownCaps is what a Checker's subject claimed in its last run. It is
// shared by the copies of a Checker, which check the same subject.
type knownCaps struct {
	mu   sync.Mutex
	caps *Capabilities
}

// get is the last claim; false before the first one, or with no memory.
func (k *knownCaps) get() (Capabilities, bool) {
	if k == nil {
		return Capabilities{}, false
	}
	k.mu.Lock()
	defer k.mu.Unlock()
	if k.caps == nil {
		return Capabilities{}, false
	}
	return *k.caps, true
}

func (k *knownCaps) set(c Capabilities) {
	if k == nil {
		return
	}
	k.mu.Lock()
	defer k.mu.Unlock()
	k.caps = &c
}

// open builds the subject for one run. A subject that claims to report
// its retained bytes must be able to.
func (c *Checker) open(cfg sealgate.Config) (Subject, error) {
	if c.NewSubject == nil {
		return nil, errors.New("check: a Checker with no NewSubject (use NewChecker)")
	}
	s, err := c.NewSubject(cfg)
	if err != nil {
		return nil, err
	}
	if caps := s.Capabilities(); caps.Retained || caps.Full {
		if _, ok := s.(Retainer); !ok {
			closeSubject(s)
			return nil, fmt.Errorf("subject %T claims to report retained bytes but has no Retained method", s)
		}
	}
	return s, nil
}

// closeSubject releases what a subject holds, if anything.
func closeSubject(s Subject) error {
	if cl, ok := s.(io.Closer); ok {
		return cl.Close()
	}
	return nil
}

// outOfCapabilities names the first decision a subject emitted that its
// capabilities do not claim, and its event.
func outOfCapabilities(caps Capabilities, ds []sealgate.Decision) (int, string) {
	for _, d := range ds {
		if !caps.emits(d.Kind) {
			return d.At, fmt.Sprintf("%s, but the subject does not claim %s decisions (it claims %s)", d, d.Kind, caps)
		}
	}
	return 0, ""
}
