package machine

import (
	"fmt"
	"sort"
	"strconv"
	"strings"

	"pgregory.net/rapid"

	"github.com/sealgate/sealgate"
	"github.com/sealgate/sealgate/internal/gen"
	"github.com/sealgate/sealgate/model"
)

// Swarm testing in the machine: each run draws whether its configuration
// is one of the fixed ones (drawConfig) or generated (gen.DrawSwarm, with
// its value shapes), and which actions it runs, each with a weight of 0
// to 3. A run without "ack" or without "restart" spends its steps on what
// is left, so a rare combination of the rest becomes common in some runs.

// docChooser is the source of one generated document's (or swarm's)
// choices: a generator seeded by one draw. A document takes dozens of
// choices, and one rapid draw each halved the machine reading's execs
// (rapid logs every draw under go fuzz); the reducer, not rapid's
// shrinker, makes a failing document or configuration small.
func docChooser(t *rapid.T) gen.Chooser {
	return &gen.MixChooser{State: rapid.Uint64().Draw(t, "doc-seed")}
}

// drawRunConfig draws the run's configuration: fixed half of the time (the
// shapes the zoo's counterexamples have), generated otherwise.
func drawRunConfig(t *rapid.T) (sealgate.Config, *gen.Swarm) {
	if rapid.IntRange(0, 1).Draw(t, "swarm") == 0 {
		return drawConfig(t), nil
	}
	sw := gen.DrawSwarm(docChooser(t))
	return sw.Config, sw
}

// drawTool names the tool of a new call: one the configuration declares,
// mostly, or one it does not.
func (m *machine) drawTool(t *rapid.T) string {
	if m.sw == nil {
		return drawTool(t)
	}
	return rapid.SampledFrom(m.sw.ToolNames()).Draw(t, "tool")
}

// drawDoc is the text a call of tool grows toward: under a generated
// configuration mostly a document grown for that tool's schema, secrets
// and allow-list, in the run's value shapes.
func (m *machine) drawDoc(t *rapid.T, tool string) []byte {
	if m.sw != nil && rapid.IntRange(0, 3).Draw(t, "swarm-doc") != 0 {
		return m.sw.Doc(docChooser(t), tool)
	}
	return drawDoc(t)
}

// alwaysOn are the actions no run leaves out: without them a run could not
// open an attempt or make a call, and every other action would skip.
var alwaysOn = map[string]bool{"open": true, "turn": true, "call": true, "noop": true, "": true}

// swarmActions adds the actions aimed at state that spans two keys or two
// attempts, then draws the run's weight of each action (0: left out; k:
// k entries in the map, which rapid samples uniformly).
func (m *machine) swarmActions(t *rapid.T, acts map[string]func(*rapid.T)) map[string]func(*rapid.T) {
	acts["ack-replay"] = m.ackReplay
	acts["budget-retry"] = m.budgetRetry
	names := make([]string, 0, len(acts))
	for n := range acts {
		names = append(names, n)
	}
	sort.Strings(names)
	out := map[string]func(*rapid.T){}
	var weights []string
	c := docChooser(t)
	m.budget = runBudgets[c.Intn(len(runBudgets), "events-budget")]
	for _, n := range names {
		w := 1
		switch {
		case n == "ack-replay" && m.sw != nil:
			// Under a generated configuration, the one action that sends
			// two keys, an ack and a resend of the same values spelled
			// otherwise is never left out: the keys' canonical form and
			// an ack's reach over other keys are what generated values
			// test, and a run without it tests neither.
			w = []int{1, 1, 2, 3}[c.Intn(4, "weight "+n)]
		case !alwaysOn[n]:
			w = []int{0, 1, 1, 2, 3}[c.Intn(5, "weight "+n)]
		}
		if w != 1 && n != "" {
			weights = append(weights, fmt.Sprintf("%s=%d", n, w))
		}
		for k := 0; k < w; k++ {
			key := n
			if k > 0 {
				key = n + " " + strconv.Itoa(k+1)
			}
			out[key] = acts[n]
			if n != "" && m.mode == fuzzed {
				out[key] = m.withinBudget(acts[n])
			}
		}
	}
	m.swarm = "actions " + strings.Join(weights, " ")
	if m.mode == fuzzed && m.budget < 1<<30 {
		m.swarm = "events-budget " + strconv.Itoa(m.budget) + "; " + m.swarm
	}
	if m.sw != nil {
		m.swarm += "; generated configuration; shapes " + m.sw.Shapes.String()
	}
	return out
}

// runBudgets are the lengths a fuzzed run may draw, in events: past its
// budget it stops at the next step (runOver). The swarm's heavy actions
// (whole turns, replays, two-key and budget retries) made runs of rapid's
// 30 steps average 286 events, 2.8 times the fixed machine's. Under go
// fuzz, which keeps what adds coverage and mutates it, an exec is one of
// millions and short ones are worth more (libFuzzer prefers short inputs
// too): most fuzzed runs are short now, one in six still runs to the end,
// and a mutation can change the budget. Under rapid (Run, Hunt, Observe),
// where a seed has 100 runs, each runs to rapid's end.
var runBudgets = []int{32, 64, 64, 128, 256, 1 << 30}

// runOver is the panic that ends a run whose stream has reached its
// budget; noActionIsInvalid ends the run there, as passed so far.
type runOver struct{}

// withinBudget runs act unless the run's stream has reached its budget.
// The check is before the step, so every event emitted was checked (after
// each step, or at the run's end) before the run stops.
func (m *machine) withinBudget(act func(*rapid.T)) func(*rapid.T) {
	return func(t *rapid.T) {
		if len(m.events) >= m.budget {
			panic(runOver{})
		}
		act(t)
	}
}

// ackReplay: two keys, one ack. A turn of two or three calls closes
// complete (a key each), the executor acks one key (ok or fail), maybe the
// process restarts, and the turn is sent again: only the acked key's
// state may change (SPEC section 7), whatever the other keys are.
func (m *machine) ackReplay(t *rapid.T) {
	m.nextTurn++
	turn := "t" + strconv.Itoa(m.nextTurn)
	a := m.open(t, turn)
	var cs []*call
	var twins [][]byte // the same values spelled otherwise, when the run has them
	twin := m.sw != nil && rapid.IntRange(0, 2).Draw(t, "twins") != 0
	for i, n := 0, rapid.IntRange(2, 3).Draw(t, "calls"); i < n; i++ {
		tool := m.drawTool(t)
		doc := m.drawDoc(t, tool)
		if twin {
			var other []byte
			doc, other = m.sw.Twins(docChooser(t), tool)
			twins = append(twins, other)
		}
		cs = append(cs, m.begin(t, a, strconv.Itoa(i), tool, doc))
	}
	m.sendAll(t, cs, false)
	m.closeWith(t, a, sealgate.Complete)
	// The keys these calls carry, released or not (an ack of a key never
	// released is unknown-ack); model.IdemKey computes them without
	// replaying the stream.
	var keys []string
	for _, c := range cs {
		if k, err := model.IdemKey(m.toolDecl(c.tool), turn, c.id, c.doc); err == nil {
			keys = append(keys, k)
		}
	}
	if len(keys) > 0 {
		m.emit(t, nil, sealgate.AckEvent(rapid.SampledFrom(keys).Draw(t, "acked"), rapid.Bool().Draw(t, "ok")))
	}
	if rapid.IntRange(0, 3).Draw(t, "restart-between") == 0 {
		m.emit(t, nil, sealgate.RestartEvent())
		m.attempts = nil
	}
	if rapid.IntRange(0, 3).Draw(t, "replay-new-turn") == 0 {
		m.nextTurn++
		turn = "t" + strconv.Itoa(m.nextTurn)
	}
	if !twin {
		m.resend(t, a, turn)
		return
	}
	// The same calls, their texts spelled otherwise (the same keys), each
	// in one fragment: no draws, since chunking is I6's to vary.
	b := m.open(t, turn)
	for i, c := range cs {
		cc := m.beginAs(t, b, c.item, c.id, c.tool, twins[i])
		m.emit(t, b, sealgate.DeltaEvent(b.id, cc.item, cc.doc))
		cc.sent = len(cc.doc)
		m.emit(t, b, sealgate.EndEvent(b.id, cc.item))
	}
	m.closeWith(t, b, sealgate.Complete)
}

// toolDecl is the configuration's declaration of tool (a zero Tool, with
// the args key, for one it does not declare).
func (m *machine) toolDecl(tool string) sealgate.Tool {
	for _, tl := range m.cfg.Tools {
		if tl.Name == tool {
			return tl
		}
	}
	return sealgate.Tool{Name: tool}
}

// resend sends an attempt's events again, whole, in a new attempt of turn.
func (m *machine) resend(t *rapid.T, old *attempt, turn string) {
	a := m.open(t, turn)
	for _, e := range old.events[1:] {
		e.Attempt = a.id
		m.emit(t, a, e)
		if e.Kind == sealgate.Close {
			a.live = false
		}
	}
	for _, c := range old.calls {
		cc := *c
		cc.attempt = a.id
		a.calls = append(a.calls, &cc)
	}
}

// budgetRetry: a regeneration under a byte budget. An attempt sends part
// of its calls (an early tool's sometimes whole, to its end); a new open of its turn supersedes it and sends the same
// calls whole, their texts padded so that the new attempt alone meets
// turn-bytes exactly or passes it by one byte. The budget counts the new
// attempt's bytes only (SPEC sections 2, 3): nothing is inherited.
func (m *machine) budgetRetry(t *rapid.T) {
	m.nextTurn++
	turn := "t" + strconv.Itoa(m.nextTurn)
	a := m.open(t, turn)
	n := rapid.IntRange(1, 2).Draw(t, "calls")
	tools, docs := make([]string, n), make([][]byte, n)
	for i := range docs {
		tools[i] = m.drawTool(t)
		docs[i] = m.drawDoc(t, tools[i])
	}
	gen.PadTo(docs, m.cfg.Limits.TurnBytes, rapid.IntRange(0, 1).Draw(t, "over"))
	var cs []*call
	for i := range docs {
		c := m.begin(t, a, strconv.Itoa(i), tools[i], docs[i])
		cs = append(cs, c)
		if m.toolDecl(c.tool).Early && rapid.Bool().Draw(t, "whole-first") {
			// An early tool's call (per-call) ends before the
			// regeneration, half the time: released at its end, it is
			// compensated when the new open supersedes its attempt (SPEC
			// section 6). Other calls stay partial: a call sent whole
			// under a small call-bytes is too-large in both attempts.
			m.finish(t, a, c)
			continue
		}
		for k := rapid.IntRange(0, 2).Draw(t, "partial"); k > 0 && c.sent < len(c.doc); k-- {
			m.chunk(t, c)
		}
	}
	b := m.open(t, turn)
	var again []*call
	for _, c := range cs {
		again = append(again, m.beginAs(t, b, c.item, c.id, c.tool, c.doc))
	}
	m.sendAll(t, again, false)
	st := sealgate.Complete
	if rapid.IntRange(0, 3).Draw(t, "bad-close") == 0 {
		st = drawStatus(t)
	}
	m.closeWith(t, b, st)
}
