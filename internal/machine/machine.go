// Package machine is the suite's rapid state machine: actions that grow a
// stream of events (interleaved calls, fragments of valid and malformed
// JSON, closes of every status, late events, supersede and reopen,
// restarts, acks, peeks) under a drawn configuration, with every check of
// package check run after every step. Tests (props_test.go), the bug-zoo
// meta-test and the power benchmark all run the same machine.
package machine

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"pgregory.net/rapid"

	"github.com/sealgate/sealgate"
	"github.com/sealgate/sealgate/check"
	"github.com/sealgate/sealgate/internal/gen"
	"github.com/sealgate/sealgate/model"
	"github.com/sealgate/sealgate/internal/reduce"
)

// The rapid state machine: actions append events to a growing stream, and
// after every step the whole stream is checked — gate against model, the
// invariant catalog, chunking and isolation.

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

func drawConfig(t *rapid.T) sealgate.Config {
	cfg := sealgate.DefaultConfig()
	cfg.Tools = gen.Tools()
	if rapid.Bool().Draw(t, "allow") {
		cfg.Tools[0].Allow = &sealgate.Allow{Field: "path", Values: []string{"notes.md", "日记.md"}}
	}
	switch rapid.IntRange(0, 2).Draw(t, "idem") {
	case 1:
		cfg.Tools[2].Idem = sealgate.Idem{Mode: sealgate.IdemCall}
	case 2:
		cfg.Tools[2].Idem = sealgate.Idem{Mode: sealgate.IdemFields, Fields: []string{"n", "m"}}
	}
	switch rapid.IntRange(0, 2).Draw(t, "policy") {
	case 1:
		cfg.Release = sealgate.PerCall
		cfg.Tools[1].Early = rapid.Bool().Draw(t, "early")
		cfg.Tools[2].Early = rapid.Bool().Draw(t, "early2")
	case 2:
		cfg.Batch = sealgate.Atomic
	}
	if rapid.IntRange(0, 3).Draw(t, "small-limits") == 0 {
		cfg.Limits = sealgate.Limits{
			CallBytes:    rapid.IntRange(1, 120).Draw(t, "call-bytes"),
			TurnBytes:    rapid.IntRange(1, 300).Draw(t, "turn-bytes"),
			Calls:        rapid.IntRange(1, 4).Draw(t, "calls"),
			Depth:        rapid.IntRange(1, 5).Draw(t, "depth"),
			PreviewBytes: rapid.IntRange(1, 80).Draw(t, "preview-bytes"),
		}
	}
	return cfg
}

// drawDoc is the argument text a call grows toward: a generated valid
// object, one of the fixed documents (each a way to pass or fail a
// check), nothing at all, or a corrupted object.
func drawDoc(t *rapid.T) []byte {
	switch rapid.IntRange(0, 7).Draw(t, "doc-kind") {
	case 0, 1:
		return []byte(jsonObject(docChooser(t)))
	case 2, 3, 4:
		return []byte(rapid.SampledFrom(gen.Docs).Draw(t, "fixed-doc"))
	case 5:
		return nil // a call that names its tool and sends nothing (F11, F46)
	}
	b := []byte(jsonObject(docChooser(t)))
	i := rapid.IntRange(0, len(b)-1).Draw(t, "corrupt-at")
	b[i] = rapid.SampledFrom([]byte("{}[]\",:\\ x0-\xff\xc3")).Draw(t, "corrupt-byte")
	return b
}

func (m *machine) emit(t *rapid.T, a *attempt, e sealgate.Event) {
	m.events = append(m.events, e)
	if a != nil {
		a.events = append(a.events, e)
	}
}

// ledgerKeys are the keys the model has written to the ledger so far
// (model.LedgerKeys of the stream), from a model that catches up on the
// events emitted since the last ask: one model run per machine run, not
// one per ack, and none in a run that never acks.
func (m *machine) ledgerKeys() []string {
	if m.model == nil {
		m.model = model.NewStepper(m.cfg)
	}
	for ; m.fed < len(m.events); m.fed++ {
		m.model.Feed(m.events[m.fed])
	}
	return m.model.LedgerKeys()
}

func (m *machine) live() []*attempt {
	var out []*attempt
	for _, a := range m.attempts {
		if a.live {
			out = append(out, a)
		}
	}
	return out
}

// target picks the attempt an event goes to: mostly a live one, sometimes
// one that ended, sometimes one never opened.
func (m *machine) target(t *rapid.T) (*attempt, string) {
	live := m.live()
	switch k := rapid.IntRange(0, 19).Draw(t, "target"); {
	case k < 17 && len(live) > 0:
		a := rapid.SampledFrom(live).Draw(t, "live-attempt")
		return a, a.id
	case k < 19 && len(m.attempts) > 0:
		a := rapid.SampledFrom(m.attempts).Draw(t, "any-attempt")
		return a, a.id
	}
	return nil, rapid.SampledFrom([]string{"ghost", "r1"}).Draw(t, "stray-attempt")
}

// pickCall picks a call, mostly one of a live attempt.
func (m *machine) pickCall(t *rapid.T) *call {
	var pending, all []*call
	for _, a := range m.attempts {
		for _, c := range a.calls {
			all = append(all, c)
			if a.live {
				pending = append(pending, c)
			}
		}
	}
	if len(pending) > 0 && rapid.IntRange(0, 9).Draw(t, "pending-call") > 0 {
		return rapid.SampledFrom(pending).Draw(t, "call")
	}
	if len(all) == 0 {
		return nil
	}
	return rapid.SampledFrom(all).Draw(t, "call")
}

func (m *machine) attemptOf(id string) *attempt {
	for _, a := range m.attempts {
		if a.id == id {
			return a
		}
	}
	return nil
}

func (m *machine) open(t *rapid.T, turn string) *attempt {
	m.nextID++
	a := &attempt{id: "r" + strconv.Itoa(m.nextID), turn: turn, live: true}
	for _, b := range m.attempts {
		if b.live && b.turn == turn {
			b.live = false // superseded
		}
	}
	m.attempts = append(m.attempts, a)
	m.emit(t, a, sealgate.OpenEvent(a.id, turn))
	return a
}

// chunk sends the next piece of a call's document.
func (m *machine) chunk(t *rapid.T, c *call) {
	n := rapid.IntRange(0, len(c.doc)-c.sent).Draw(t, "chunk")
	if n > 8 && rapid.Bool().Draw(t, "small-chunk") {
		n = rapid.IntRange(0, 8).Draw(t, "small")
	}
	m.emit(t, m.attemptOf(c.attempt), sealgate.DeltaEvent(c.attempt, c.item, c.doc[c.sent:c.sent+n]))
	c.sent += n
}

// sendRest sends the rest of a call's document, in fragments.
func (m *machine) sendRest(t *rapid.T, c *call) {
	for c.sent < len(c.doc) {
		m.chunk(t, c)
	}
}

// finish sends the rest of a call of attempt a, then its end.
func (m *machine) finish(t *rapid.T, a *attempt, c *call) {
	m.sendRest(t, c)
	m.emit(t, a, sealgate.EndEvent(a.id, c.item))
}

func drawStatus(t *rapid.T) sealgate.Status {
	return rapid.SampledFrom([]sealgate.Status{sealgate.Complete, sealgate.Complete, sealgate.Complete,
		sealgate.Disconnected, sealgate.Disconnected, sealgate.Truncated, sealgate.Failed, sealgate.Cancelled}).Draw(t, "status")
}

func drawTool(t *rapid.T) string {
	return rapid.SampledFrom([]string{"save_file", "save_file", "login", "calc", "unknown"}).Draw(t, "tool")
}

func (m *machine) closeWith(t *rapid.T, a *attempt, st sealgate.Status) {
	m.emit(t, a, sealgate.CloseEvent(a.id, st))
	if a.live {
		a.live = false
		if st == sealgate.Complete {
			m.history = append(m.history, a)
		}
	}
}

func (m *machine) begin(t *rapid.T, a *attempt, item, tool string, doc []byte) *call {
	m.nextCall++
	return m.beginAs(t, a, item, "c"+strconv.Itoa(m.nextCall), tool, doc)
}

func (m *machine) beginAs(t *rapid.T, a *attempt, item, id, tool string, doc []byte) *call {
	c := &call{attempt: a.id, item: item, id: id, tool: tool, doc: doc}
	a.calls = append(a.calls, c)
	m.emit(t, a, sealgate.BeginEvent(a.id, item, id, tool))
	return c
}

// sendAll streams calls to their ends, fragments interleaved in random
// order, with a peek after some fragments; ends come in random order too.
func (m *machine) sendAll(t *rapid.T, cs []*call, peeks bool) {
	for {
		var open []*call
		for _, c := range cs {
			if c.sent < len(c.doc) {
				open = append(open, c)
			}
		}
		if len(open) == 0 {
			break
		}
		c := rapid.SampledFrom(open).Draw(t, "next-fragment")
		m.chunk(t, c)
		if peeks && rapid.IntRange(0, 2).Draw(t, "peek-now") == 0 {
			m.emit(t, m.attemptOf(c.attempt), sealgate.PeekEvent(c.attempt, c.item))
		}
	}
	order := rapid.Permutation(cs).Draw(t, "end-order")
	for _, c := range order {
		a := m.attemptOf(c.attempt)
		switch rapid.IntRange(0, 5).Draw(t, "end-final") {
		case 0: // the protocol repeats the whole text (Responses)
			m.emit(t, a, sealgate.EndFinalEvent(c.attempt, c.item, c.doc))
		case 1: // a stale snapshot (F35)
			m.emit(t, a, sealgate.EndFinalEvent(c.attempt, c.item, c.doc[:len(c.doc)/2]))
		default:
			m.emit(t, a, sealgate.EndEvent(c.attempt, c.item))
		}
	}
}

// trailing sometimes sends one more fragment of a call after its end
// (F34, F62: the stream goes on after a done event): after-end, which
// poisons the attempt (SPEC section 3) whether or not the call was
// decided at its end.
func (m *machine) trailing(t *rapid.T, a *attempt, cs []*call) {
	if len(cs) == 0 || rapid.IntRange(0, 7).Draw(t, "trailing-delta") != 0 {
		return
	}
	c := rapid.SampledFrom(cs).Draw(t, "trailing-call")
	m.emit(t, a, sealgate.DeltaEvent(a.id, c.item, []byte(`}`)))
}

func (m *machine) calls(a *attempt) []*call {
	if a == nil {
		return nil
	}
	return a.calls
}

func (m *machine) actions() map[string]func(*rapid.T) {
	return map[string]func(*rapid.T){
		"open": func(t *rapid.T) {
			turn := ""
			if live := m.live(); len(live) > 0 && rapid.IntRange(0, 3).Draw(t, "supersede") == 0 {
				turn = rapid.SampledFrom(live).Draw(t, "superseded").turn
			} else {
				m.nextTurn++
				turn = "t" + strconv.Itoa(m.nextTurn)
			}
			m.open(t, turn)
		},
		"reopen": func(t *rapid.T) {
			if len(m.attempts) == 0 {
				t.Skip("nothing opened")
			}
			a := rapid.SampledFrom(m.attempts).Draw(t, "reopened")
			m.emit(t, a, sealgate.OpenEvent(a.id, a.turn))
		},
		"begin": func(t *rapid.T) {
			a, id := m.target(t)
			item := strconv.Itoa(len(m.calls(a)))
			if rapid.IntRange(0, 9).Draw(t, "reuse-item") == 0 {
				item = rapid.SampledFrom([]string{"0", "1", "call_x"}).Draw(t, "item")
			}
			m.nextCall++
			cid := "c" + strconv.Itoa(m.nextCall)
			if rapid.IntRange(0, 9).Draw(t, "reuse-call-id") == 0 {
				cid = "c1"
			}
			tool := m.drawTool(t)
			c := &call{attempt: id, item: item, id: cid, tool: tool, doc: m.drawDoc(t, tool)}
			if a != nil {
				a.calls = append(a.calls, c)
			}
			m.emit(t, a, sealgate.BeginEvent(id, item, cid, tool))
		},
		"delta": func(t *rapid.T) {
			c := m.pickCall(t)
			if c == nil {
				t.Skip("no call")
			}
			m.chunk(t, c)
		},
		"delta-peek": func(t *rapid.T) {
			c := m.pickCall(t)
			if c == nil {
				t.Skip("no call")
			}
			m.chunk(t, c)
			m.emit(t, m.attemptOf(c.attempt), sealgate.PeekEvent(c.attempt, c.item))
		},
		"send-all": func(t *rapid.T) {
			c := m.pickCall(t)
			if c == nil {
				t.Skip("no call")
			}
			m.sendRest(t, c)
		},
		"end": func(t *rapid.T) {
			c := m.pickCall(t)
			if c == nil {
				t.Skip("no call")
			}
			a := m.attemptOf(c.attempt)
			switch rapid.IntRange(0, 5).Draw(t, "final") {
			case 0:
				m.emit(t, a, sealgate.EndFinalEvent(c.attempt, c.item, c.doc[:c.sent]))
			case 1:
				m.emit(t, a, sealgate.EndFinalEvent(c.attempt, c.item, c.doc))
			default:
				m.emit(t, a, sealgate.EndEvent(c.attempt, c.item))
			}
		},
		"close": func(t *rapid.T) {
			a, id := m.target(t)
			if a == nil {
				m.emit(t, nil, sealgate.CloseEvent(id, drawStatus(t)))
				return
			}
			m.closeWith(t, a, drawStatus(t))
		},
		"replay": func(t *rapid.T) {
			// A retry or a duplicate dispatch: an attempt that closed
			// complete is sent again, whole, in a new attempt of its turn
			// (across a restart too: history survives it). Sometimes it
			// is sent in a new turn instead: the agent repeats the same
			// calls on purpose, which the args key lets run again.
			if len(m.history) == 0 {
				t.Skip("nothing to replay")
			}
			old := rapid.SampledFrom(m.history).Draw(t, "replayed")
			turn := old.turn
			if rapid.IntRange(0, 2).Draw(t, "new-turn") == 0 {
				m.nextTurn++
				turn = "t" + strconv.Itoa(m.nextTurn)
			}
			m.resend(t, old, turn)
		},
		"late": func(t *rapid.T) {
			a, id := m.target(t)
			switch rapid.IntRange(0, 2).Draw(t, "late-kind") {
			case 0:
				m.emit(t, a, sealgate.DeltaEvent(id, "0", []byte(`{}`)))
			case 1:
				m.emit(t, a, sealgate.EndEvent(id, "0"))
			default:
				m.emit(t, a, sealgate.CloseEvent(id, sealgate.Complete))
			}
		},
		"ack": func(t *rapid.T) {
			keys := append([]string{"0123456789abcdef"}, m.ledgerKeys()...)
			m.emit(t, nil, sealgate.AckEvent(rapid.SampledFrom(keys).Draw(t, "key"), rapid.Bool().Draw(t, "ok")))
		},
		"restart": func(t *rapid.T) {
			if rapid.IntRange(0, 1).Draw(t, "restart-rarely") != 0 {
				t.Skip("restart kept rare")
			}
			m.emit(t, nil, sealgate.RestartEvent())
			m.attempts = nil
		},
		"peek": func(t *rapid.T) {
			if c := m.pickCall(t); c != nil {
				m.emit(t, m.attemptOf(c.attempt), sealgate.PeekEvent(c.attempt, c.item))
			} else {
				_, id := m.target(t)
				m.emit(t, nil, sealgate.PeekEvent(id, "0"))
			}
		},
		"call": func(t *rapid.T) {
			// One whole call on a live attempt: begin, every byte, end.
			live := m.live()
			if len(live) == 0 {
				t.Skip("no live attempt")
			}
			a := rapid.SampledFrom(live).Draw(t, "attempt")
			tool := m.drawTool(t)
			c := m.begin(t, a, strconv.Itoa(len(a.calls)), tool, m.drawDoc(t, tool))
			m.sendAll(t, []*call{c}, false)
			m.trailing(t, a, []*call{c})
		},
		"turn": func(t *rapid.T) {
			// A whole turn: a new attempt, one to three calls streamed
			// interleaved (peeks between fragments), their ends, a close.
			m.nextTurn++
			a := m.open(t, "t"+strconv.Itoa(m.nextTurn))
			n := rapid.IntRange(1, 3).Draw(t, "calls")
			var cs []*call
			for i := 0; i < n; i++ {
				tool := m.drawTool(t)
				cs = append(cs, m.begin(t, a, strconv.Itoa(i), tool, m.drawDoc(t, tool)))
			}
			m.sendAll(t, cs, true)
			m.trailing(t, a, cs)
			m.closeWith(t, a, drawStatus(t))
		},
		"retry": func(t *rapid.T) {
			// A regeneration (F44): a live attempt is superseded by a new
			// attempt of its turn that sends the same calls again, whole.
			var cands []*attempt
			for _, a := range m.live() {
				if len(a.calls) > 0 {
					cands = append(cands, a)
				}
			}
			if len(cands) == 0 {
				t.Skip("no live attempt with calls")
			}
			old := rapid.SampledFrom(cands).Draw(t, "retried")
			var early []*call
			for _, c := range old.calls {
				if m.toolDecl(c.tool).Early {
					early = append(early, c)
				}
			}
			if len(early) > 0 && rapid.Bool().Draw(t, "end-before-retry") {
				// The regeneration comes after an early tool's call ended
				// (per-call): released at its end, it is compensated by
				// the superseding open (SPEC section 6).
				m.finish(t, old, rapid.SampledFrom(early).Draw(t, "ended-first"))
			}
			a := m.open(t, old.turn)
			var cs []*call
			for _, c := range old.calls {
				cs = append(cs, m.beginAs(t, a, c.item, c.id, c.tool, c.doc))
			}
			m.sendAll(t, cs, true)
			m.trailing(t, a, cs)
			m.closeWith(t, a, drawStatus(t))
		},
		"noop": func(t *rapid.T) {},
		"": func(t *rapid.T) {
			m.done = len(m.events)
			if m.mode == eachStep {
				m.check(t, m.events)
			}
		},
	}
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
		m.cfg, m.sw = drawRunConfig(t)
		defer noActionIsInvalid(t)
		if md != eachStep {
			defer m.checkAtEnd(t)
		}
		t.Repeat(m.swarmActions(t, m.actions()))
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

// JSONObject generates strictly valid I-JSON objects: unique names,
// non-ASCII text, escapes (surrogate pairs included), finite numbers,
// nested containers, arbitrary whitespace. Each choice is a rapid draw, so
// rapid shrinks a failing object piece by piece; the machine writes the
// same objects from one seeded draw instead (jsonObject with docChooser).
func JSONObject() *rapid.Generator[string] {
	return rapid.Custom(func(t *rapid.T) string {
		return jsonObject(drawChooser{t})
	})
}

// drawChooser makes each choice a rapid draw.
type drawChooser struct{ t *rapid.T }

// Intn implements gen.Chooser.
func (d drawChooser) Intn(n int, label string) int {
	if n <= 1 {
		return 0
	}
	return rapid.IntRange(0, n-1).Draw(d.t, label)
}

// small is a number in [0, n), small ones the most common (the smaller of
// two choices), as rapid's own integers lean small: objects stay shallow and
// short mostly.
func small(c gen.Chooser, n int, label string) int {
	return min(c.Intn(n, label), c.Intn(n, label))
}

// jsonObject writes one generated object with c's choices.
func jsonObject(c gen.Chooser) string {
	var b strings.Builder
	writeObject(c, &b, 0)
	return b.String()
}

var blanks = []string{"", "", "", " ", "\n  ", "\t", "\r\n"}

func ws(c gen.Chooser) string { return blanks[c.Intn(len(blanks), "ws")] }

var objectNames = []string{"path", "content", "token", "auth", "n", "m", "名字", "a b", "k"}

func writeObject(c gen.Chooser, b *strings.Builder, depth int) {
	b.WriteString("{" + ws(c))
	n := small(c, 5, "members")
	seen := map[string]bool{}
	for i := 0; i < n; i++ {
		name := objectNames[c.Intn(len(objectNames), "name")]
		if seen[name] {
			continue
		}
		seen[name] = true
		if len(seen) > 1 {
			b.WriteString("," + ws(c))
		}
		b.WriteString(quote(c, name) + ws(c) + ":" + ws(c))
		writeValue(c, b, depth+1)
		b.WriteString(ws(c))
	}
	b.WriteString("}")
}

var (
	numberTexts  = []string{"0", "-0", "12", "-7.25", "1e3", "2.5E-3", "9007199254740993", "1e-400", "123456789012345678901234567890"}
	literalTexts = []string{"true", "false", "null"}
)

func writeValue(c gen.Chooser, b *strings.Builder, depth int) {
	k := small(c, 8, "value-kind")
	if depth > 3 && k >= 5 {
		k = 0
	}
	switch k {
	case 0, 1:
		b.WriteString(quote(c, text(c)))
	case 2:
		b.WriteString(numberTexts[c.Intn(len(numberTexts), "number")])
	case 3:
		b.WriteString(literalTexts[c.Intn(len(literalTexts), "literal")])
	case 4:
		b.WriteString(strconv.Itoa(c.Intn(2001, "int") - 1000))
	case 5:
		b.WriteString("[" + ws(c))
		n := small(c, 4, "items")
		for i := 0; i < n; i++ {
			if i > 0 {
				b.WriteString("," + ws(c))
			}
			writeValue(c, b, depth+1)
		}
		b.WriteString("]")
	default:
		writeObject(c, b, depth)
	}
}

// textRunes is the rune pool of generated strings: ASCII with the
// characters that need escaping, CJK, emoji (4-byte, surrogate pairs when
// escaped), combining marks; never noncharacters or surrogates. Each range
// is drawn as often as the others.
var textRunes = [][2]rune{{0x20, 0x7e}, {0x0a, 0x0a}, {0xe9, 0xe9}, {0x301, 0x301}, {0x4e00, 0x4e2f}, {0x1f600, 0x1f60f}}

// text is a string of 0 to 16 runes, mostly short.
func text(c gen.Chooser) string {
	n := c.Intn(5, "text-len")
	if c.Intn(4, "long-text") == 0 {
		n = c.Intn(17, "long-text-len")
	}
	var b strings.Builder
	for ; n > 0; n-- {
		r := textRunes[c.Intn(len(textRunes), "rune-range")]
		b.WriteRune(r[0] + rune(c.Intn(int(r[1]-r[0])+1, "rune")))
	}
	return b.String()
}

// quote writes s as a JSON string, escaping some runes as \uXXXX (pairs
// above the BMP) and the rest as themselves or short escapes.
func quote(c gen.Chooser, s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for _, r := range s {
		switch {
		case r == '"' || r == '\\':
			b.WriteString(`\` + string(r))
		case r < 0x20:
			fmt.Fprintf(&b, `\u%04x`, r)
		case c.Intn(6, "escape") == 0:
			if r > 0xFFFF {
				r -= 0x10000
				fmt.Fprintf(&b, `\u%04X\u%04x`, 0xD800+(r>>10), 0xDC00+(r&0x3FF))
			} else {
				fmt.Fprintf(&b, `\u%04x`, r)
			}
		default:
			b.WriteRune(r)
		}
	}
	b.WriteByte('"')
	return b.String()
}
