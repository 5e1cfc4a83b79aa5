package machine

import (
	"strconv"

	"pgregory.net/rapid"

	"github.com/sealgate/sealgate"
	"github.com/sealgate/sealgate/model"
)

// The machine's stream: what it has sent, what it intended, and the
// helpers actions build on to send more.

// emit appends e to the stream, and to a's own events when a is not nil.
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

// live are the attempts opened since the last restart that have not ended.
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

// callOrSkip is pickCall for an action that needs a call: with none yet,
// rapid skips the action (it is not valid in this state).
func (m *machine) callOrSkip(t *rapid.T) *call {
	c := m.pickCall(t)
	if c == nil {
		t.Skip("no call")
	}
	return c
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

// attemptOf is the attempt of that id since the last restart, or nil.
func (m *machine) attemptOf(id string) *attempt {
	for _, a := range m.attempts {
		if a.id == id {
			return a
		}
	}
	return nil
}

// open opens a new attempt of turn, superseding the live ones of that turn.
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

// drawStatus is a close's status: complete three times in eight, else
// each way of ending early.
func drawStatus(t *rapid.T) sealgate.Status {
	return rapid.SampledFrom([]sealgate.Status{sealgate.Complete, sealgate.Complete, sealgate.Complete,
		sealgate.Disconnected, sealgate.Disconnected, sealgate.Truncated, sealgate.Failed, sealgate.Cancelled}).Draw(t, "status")
}

// closeWith closes a with status st; a live attempt that closes complete
// goes to the history, to be replayed.
func (m *machine) closeWith(t *rapid.T, a *attempt, st sealgate.Status) {
	m.emit(t, a, sealgate.CloseEvent(a.id, st))
	if a.live {
		a.live = false
		if st == sealgate.Complete {
			m.history = append(m.history, a)
		}
	}
}

// begin begins a call of item on a with the next call id, growing toward doc.
func (m *machine) begin(t *rapid.T, a *attempt, item, tool string, doc []byte) *call {
	m.nextCall++
	return m.beginAs(t, a, item, "c"+strconv.Itoa(m.nextCall), tool, doc)
}

// beginAs begins a call of item on a with call id id, growing toward doc.
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

// calls are a's calls (none for an attempt never opened).
func (m *machine) calls(a *attempt) []*call {
	if a == nil {
		return nil
	}
	return a.calls
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
