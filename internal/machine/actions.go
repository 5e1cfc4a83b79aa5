package machine

import (
	"strconv"

	"pgregory.net/rapid"

	"github.com/sealgate/sealgate"
	"github.com/sealgate/sealgate/internal/gen"
	"github.com/sealgate/sealgate/model"
)

// action is one step the machine can take. Its name is its key in the map
// rapid's Repeat samples, and rapid draws an action by its place among the
// sorted names: a name is part of every run's draws, never to be changed.
type action struct {
	name   string
	step   func(*machine, *rapid.T)
	weight weighting
}

// weighting is how a run draws the weight of an action (swarmActions).
type weighting uint8

const (
	// drawn: weight 0 to 3 ({0, 1, 1, 2, 3}), so that a run without some
	// actions spends its steps on the rest.
	drawn weighting = iota
	// always: weight 1 in every run; without these a run could not open
	// an attempt or make a call, and every other action would skip.
	always
	// keptUnderSwarm: as drawn, but never left out ({1, 1, 2, 3}) under a
	// generated configuration. ack-replay is the one action that sends two
	// keys, an ack and a resend of the same values spelled otherwise: the
	// keys' canonical form and an ack's reach over other keys are what
	// generated values test, and a run without it tests neither.
	keptUnderSwarm
)

// actions is the machine's table of steps. The action "" is rapid's check
// after every step.
var actions = []action{
	{"open", (*machine).openTurn, always},
	{"reopen", (*machine).reopen, drawn},
	{"begin", (*machine).beginCall, drawn},
	{"delta", (*machine).delta, drawn},
	{"delta-peek", (*machine).deltaPeek, drawn},
	{"send-all", (*machine).sendAllOfCall, drawn},
	{"end", (*machine).endCall, drawn},
	{"close", (*machine).closeAttempt, drawn},
	{"replay", (*machine).replay, drawn},
	{"late", (*machine).late, drawn},
	{"ack", (*machine).ack, drawn},
	{"restart", (*machine).restart, drawn},
	{"peek", (*machine).peek, drawn},
	{"call", (*machine).wholeCall, always},
	{"turn", (*machine).wholeTurn, always},
	{"retry", (*machine).retry, drawn},
	{"ack-replay", (*machine).ackReplay, keptUnderSwarm},
	{"budget-retry", (*machine).budgetRetry, drawn},
	{"noop", (*machine).noop, always},
	{"", (*machine).stepDone, always},
}

// openTurn opens an attempt: of a new turn, or, one time in four, of a
// live attempt's turn, which it supersedes.
func (m *machine) openTurn(t *rapid.T) {
	turn := ""
	if live := m.live(); len(live) > 0 && rapid.IntRange(0, 3).Draw(t, "supersede") == 0 {
		turn = rapid.SampledFrom(live).Draw(t, "superseded").turn
	} else {
		m.nextTurn++
		turn = "t" + strconv.Itoa(m.nextTurn)
	}
	m.open(t, turn)
}

// reopen sends an open of an attempt already opened (live or not).
func (m *machine) reopen(t *rapid.T) {
	if len(m.attempts) == 0 {
		t.Skip("nothing opened")
	}
	a := rapid.SampledFrom(m.attempts).Draw(t, "reopened")
	m.emit(t, a, sealgate.OpenEvent(a.id, a.turn))
}

// beginCall begins a call on the target attempt, sometimes reusing an
// item or a call id.
func (m *machine) beginCall(t *rapid.T) {
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
	tool := gen.DrawTool(t, m.sw)
	c := &call{attempt: id, item: item, id: cid, tool: tool, doc: gen.DrawDoc(t, m.sw, tool)}
	if a != nil {
		a.calls = append(a.calls, c)
	}
	m.emit(t, a, sealgate.BeginEvent(id, item, cid, tool))
}

// delta sends the next fragment of a call.
func (m *machine) delta(t *rapid.T) {
	c := m.callOrSkip(t)
	m.chunk(t, c)
}

// deltaPeek sends the next fragment of a call, then peeks at it.
func (m *machine) deltaPeek(t *rapid.T) {
	c := m.callOrSkip(t)
	m.chunk(t, c)
	m.emit(t, m.attemptOf(c.attempt), sealgate.PeekEvent(c.attempt, c.item))
}

// sendAllOfCall sends the rest of a call's document, in fragments.
func (m *machine) sendAllOfCall(t *rapid.T) {
	c := m.callOrSkip(t)
	m.sendRest(t, c)
}

// endCall ends a call: plainly, or with a final text of what was sent or
// of the whole document.
func (m *machine) endCall(t *rapid.T) {
	c := m.callOrSkip(t)
	a := m.attemptOf(c.attempt)
	switch rapid.IntRange(0, 5).Draw(t, "final") {
	case 0:
		m.emit(t, a, sealgate.EndFinalEvent(c.attempt, c.item, c.doc[:c.sent]))
	case 1:
		m.emit(t, a, sealgate.EndFinalEvent(c.attempt, c.item, c.doc))
	default:
		m.emit(t, a, sealgate.EndEvent(c.attempt, c.item))
	}
}

// closeAttempt closes the target attempt with a drawn status.
func (m *machine) closeAttempt(t *rapid.T) {
	a, id := m.target(t)
	if a == nil {
		m.emit(t, nil, sealgate.CloseEvent(id, drawStatus(t)))
		return
	}
	m.closeWith(t, a, drawStatus(t))
}

// replay is a retry or a duplicate dispatch: an attempt that closed
// complete is sent again, whole, in a new attempt of its turn (across a
// restart too: history survives it). Sometimes it is sent in a new turn
// instead: the agent repeats the same calls on purpose, which the args key
// lets run again.
func (m *machine) replay(t *rapid.T) {
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
}

// late sends a fragment, an end or a close to the target attempt, which
// may have ended.
func (m *machine) late(t *rapid.T) {
	a, id := m.target(t)
	switch rapid.IntRange(0, 2).Draw(t, "late-kind") {
	case 0:
		m.emit(t, a, sealgate.DeltaEvent(id, "0", []byte(`{}`)))
	case 1:
		m.emit(t, a, sealgate.EndEvent(id, "0"))
	default:
		m.emit(t, a, sealgate.CloseEvent(id, sealgate.Complete))
	}
}

// ack acks a key the ledger holds, or one nobody holds, ok or failed.
func (m *machine) ack(t *rapid.T) {
	keys := append([]string{"0123456789abcdef"}, m.ledgerKeys()...)
	m.emit(t, nil, sealgate.AckEvent(rapid.SampledFrom(keys).Draw(t, "key"), rapid.Bool().Draw(t, "ok")))
}

// restart restarts the process, half as often as it is drawn.
func (m *machine) restart(t *rapid.T) {
	if rapid.IntRange(0, 1).Draw(t, "restart-rarely") != 0 {
		t.Skip("restart kept rare")
	}
	m.emit(t, nil, sealgate.RestartEvent())
	m.attempts = nil
}

// peek peeks at a call, or at an item of the target attempt when there is
// no call.
func (m *machine) peek(t *rapid.T) {
	if c := m.pickCall(t); c != nil {
		m.emit(t, m.attemptOf(c.attempt), sealgate.PeekEvent(c.attempt, c.item))
	} else {
		_, id := m.target(t)
		m.emit(t, nil, sealgate.PeekEvent(id, "0"))
	}
}

// wholeCall makes one whole call on a live attempt: begin, every byte, end.
func (m *machine) wholeCall(t *rapid.T) {
	live := m.live()
	if len(live) == 0 {
		t.Skip("no live attempt")
	}
	a := rapid.SampledFrom(live).Draw(t, "attempt")
	tool := gen.DrawTool(t, m.sw)
	c := m.begin(t, a, strconv.Itoa(len(a.calls)), tool, gen.DrawDoc(t, m.sw, tool))
	m.sendAll(t, []*call{c}, false)
	m.trailing(t, a, []*call{c})
}

// wholeTurn sends a whole turn: a new attempt, one to three calls streamed
// interleaved (peeks between fragments), their ends, a close.
func (m *machine) wholeTurn(t *rapid.T) {
	m.nextTurn++
	a := m.open(t, "t"+strconv.Itoa(m.nextTurn))
	n := rapid.IntRange(1, 3).Draw(t, "calls")
	var cs []*call
	for i := 0; i < n; i++ {
		tool := gen.DrawTool(t, m.sw)
		cs = append(cs, m.begin(t, a, strconv.Itoa(i), tool, gen.DrawDoc(t, m.sw, tool)))
	}
	m.sendAll(t, cs, true)
	m.trailing(t, a, cs)
	m.closeWith(t, a, drawStatus(t))
}

// retry is a regeneration (F44): a live attempt is superseded by a new
// attempt of its turn that sends the same calls again, whole.
func (m *machine) retry(t *rapid.T) {
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
	m.maybeEndEarlyCall(t, old)
	a := m.open(t, old.turn)
	var cs []*call
	for _, c := range old.calls {
		cs = append(cs, m.beginAs(t, a, c.item, c.id, c.tool, c.doc))
	}
	m.sendAll(t, cs, true)
	m.trailing(t, a, cs)
	m.closeWith(t, a, drawStatus(t))
}

// maybeEndEarlyCall, half the time when old has a call of an early tool,
// ends one before the regeneration (per-call): released at its end, it is
// compensated by the superseding open (SPEC section 6).
func (m *machine) maybeEndEarlyCall(t *rapid.T, old *attempt) {
	var early []*call
	for _, c := range old.calls {
		if m.toolDecl(c.tool).Early {
			early = append(early, c)
		}
	}
	if len(early) > 0 && rapid.Bool().Draw(t, "end-before-retry") {
		m.finish(t, old, rapid.SampledFrom(early).Draw(t, "ended-first"))
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
	twin := m.sw != nil && rapid.IntRange(0, 2).Draw(t, "twins") != 0
	cs, twins := m.beginTwoOrThree(t, a, twin)
	m.sendAll(t, cs, false)
	m.closeWith(t, a, sealgate.Complete)
	m.ackOneKey(t, turn, cs)
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
	m.sendTwins(t, turn, cs, twins)
}

// beginTwoOrThree begins two or three calls on a; with twin, each call's
// document comes with its twin (the same values spelled otherwise), which
// twins holds.
func (m *machine) beginTwoOrThree(t *rapid.T, a *attempt, twin bool) (cs []*call, twins [][]byte) {
	for i, n := 0, rapid.IntRange(2, 3).Draw(t, "calls"); i < n; i++ {
		tool := gen.DrawTool(t, m.sw)
		doc := gen.DrawDoc(t, m.sw, tool)
		if twin {
			var other []byte
			doc, other = m.sw.Twins(gen.SeededChooser(t), tool)
			twins = append(twins, other)
		}
		cs = append(cs, m.begin(t, a, strconv.Itoa(i), tool, doc))
	}
	return cs, twins
}

// ackOneKey acks one of the keys the calls of turn carry, released or not
// (an ack of a key never released is unknown-ack); model.IdemKey computes
// them without replaying the stream.
func (m *machine) ackOneKey(t *rapid.T, turn string, cs []*call) {
	var keys []string
	for _, c := range cs {
		if k, err := model.IdemKey(m.toolDecl(c.tool), turn, c.id, c.doc); err == nil {
			keys = append(keys, k)
		}
	}
	if len(keys) > 0 {
		m.emit(t, nil, sealgate.AckEvent(rapid.SampledFrom(keys).Draw(t, "acked"), rapid.Bool().Draw(t, "ok")))
	}
}

// sendTwins sends the calls cs again in a new attempt of turn, their texts
// the twins (the same keys), each in one fragment: no draws, since
// chunking is I6's to vary.
func (m *machine) sendTwins(t *rapid.T, turn string, cs []*call, twins [][]byte) {
	b := m.open(t, turn)
	for i, c := range cs {
		cc := m.beginAs(t, b, c.item, c.id, c.tool, twins[i])
		m.emit(t, b, sealgate.DeltaEvent(b.id, cc.item, cc.doc))
		cc.sent = len(cc.doc)
		m.emit(t, b, sealgate.EndEvent(b.id, cc.item))
	}
	m.closeWith(t, b, sealgate.Complete)
}

// budgetRetry: a regeneration under a byte budget. An attempt sends part
// of its calls (an early tool's sometimes whole, to its end); a new open
// of its turn supersedes it and sends the same calls whole, their texts
// padded so that the new attempt alone meets turn-bytes exactly or passes
// it by one byte. The budget counts the new attempt's bytes only (SPEC
// sections 2, 3): nothing is inherited.
func (m *machine) budgetRetry(t *rapid.T) {
	m.nextTurn++
	turn := "t" + strconv.Itoa(m.nextTurn)
	a := m.open(t, turn)
	cs := m.beginPadded(t, a)
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

// beginPadded begins one or two calls on a, their documents padded to
// meet turn-bytes exactly or by one byte over, and sends part of each.
func (m *machine) beginPadded(t *rapid.T, a *attempt) []*call {
	n := rapid.IntRange(1, 2).Draw(t, "calls")
	tools, docs := make([]string, n), make([][]byte, n)
	for i := range docs {
		tools[i] = gen.DrawTool(t, m.sw)
		docs[i] = gen.DrawDoc(t, m.sw, tools[i])
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
	return cs
}

// noop does nothing: a step that leaves the stream as it is.
func (m *machine) noop(t *rapid.T) {}

// stepDone is rapid's check after every step: the step's events count as
// completed, and a run checked at each step is checked here.
func (m *machine) stepDone(t *rapid.T) {
	m.done = len(m.events)
	if m.mode == eachStep {
		m.check(t, m.events)
	}
}
