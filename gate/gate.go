// Package gate is the commit line for streamed tool calls: it takes the
// normalized events of the contract's section 2 (docs/SPEC.md in this
// module, https://github.com/sealgate/sealgate/blob/main/docs/SPEC.md) and
// releases a call's arguments to an executor only after the seal of section
// 5. It retains each call's raw
// bytes within the configured limits and frees them as soon as the call is
// decided; previews are built incrementally and are a separate type that the
// release path never accepts.
//
// # The ack loop
//
// A release is an instruction to execute, once. The gate writes the call's
// idempotency key to the Ledger as intent before it returns the release;
// the executor reports the outcome with Gate.Ack: ok once the effect
// happened (the key is done: a replay of the call is refused
// duplicate-effect), fail once it did not happen or was undone (the key is
// cleared: a retry may run it). Two other decisions ask the executor to act:
//
//   - Reconcile: the key is in intent and this gate did not release it, so
//     an earlier process released it and died before its ack (or the ack
//     was lost). The outcome is unknown and the gate will not guess: it
//     never releases the call again blindly. The executor must find out
//     from the effect's own system whether it happened (look the key up in
//     the effect's log, the payment's idempotency record, the file), then
//     Ack(key, true) if it did and Ack(key, false) if it did not, so that a
//     later retry may run it. Until then every call with that key gets
//     reconcile again.
//   - Compensate: a call released early (per-call release) belongs to an
//     attempt that then ended badly (cut, failed, cancelled, disconnected,
//     poisoned or superseded). The decision names the attempt, the item and
//     the key of the release it undoes, so the executor needs no record of
//     its own: it undoes the effect (or cancels it if it has not run) and
//     sends Ack(d.Key, false). Ack an early
//     release ok only once its attempt has closed complete: a key already
//     done cannot be cleared (its ack fail answers unknown-ack).
//
// Keys left in intent by a crash are the reason for a durable ledger: with
// MemoryLedger a new process forgets them and releases again. Package
// boltledger keeps them in a file.
package gate

import (
	"bytes"
	"errors"
	"fmt"

	"github.com/sealgate/sealgate"
	"github.com/sealgate/sealgate/gate/internal/partial"
	"github.com/sealgate/sealgate/internal/zoo/faults"
)

type attemptState uint8

const (
	live  attemptState = iota + 1
	dead               // poisoned, waiting for its close
	ended              // closed or superseded
)

// attempt is one response attempt. Once it is no longer live its calls are
// all decided and its records are dropped; only its state is kept, to tell
// after-close and reopen apart from no-open.
type attempt struct {
	id      string
	turn    string
	state   attemptState
	calls   []*call // begin order
	items   map[string]*call
	callIDs map[string]struct{}
	bytes   int // bytes received by the attempt; never shrinks
}

// call is one tool call's record, keyed by (attempt, item), never by tool.
type call struct {
	item     string
	id       string // vendor call id
	tool     string
	buf      []byte // raw bytes received; nil once decided
	preview  *partial.Parser
	parsed   int  // buf[:parsed] has been written to preview
	ended    bool // its first end was accepted
	decided  bool
	tooLarge bool   // rejected too-large: later deltas are dropped
	released bool   // released early: compensated if its attempt ends badly
	key      string // its release's key, which that compensate carries
	carried  int    // fault CallBytesByItem: bytes counted from a superseded call
}

// previewed brings the call's preview up to date with its bytes and returns
// it. Only peeks and preview streams read a preview, so Feed leaves the
// parsing to them: a call that no one looks at is never parsed, one looked
// at after every delta is parsed delta by delta, and either way each byte
// is parsed once.
func (c *call) previewed() *partial.Parser {
	if c.parsed < len(c.buf) {
		c.preview.Write(c.buf[c.parsed:])
		c.parsed = len(c.buf)
	}
	return c.preview
}

// hotCall is a delta's route remembered: attempt id and item to the call.
type hotCall struct {
	attempt, item string
	a             *attempt
	c             *call
}

// Gate is the real gate. Build one with New.
//
// A Gate is not safe for concurrent use: one goroutine owns it and makes
// every call (Feed, FeedDelta, Ack, and reads such as Retained). Tool calls
// may still execute in parallel: their goroutines send their outcomes to
// the owner (a channel of results), which calls Ack for each; see the
// example of Gate.Ack. The Ledger, by contrast, may be shared.
type Gate struct {
	limits  sealgate.Limits
	release sealgate.ReleasePolicy
	batch   sealgate.BatchPolicy
	tools   map[string]*tool
	ledger  Ledger

	n   int   // events fed so far
	err error // sticky ledger failure

	// spare is the largest buffer a decided call left, empty, for the next
	// call to fill: a stream of long calls grows one buffer, not one each.
	// It is never larger than the call-bytes limit.
	spare []byte
	// sparePreview is the same for the preview's output buffer, kept only
	// when it is at most twice preview-bytes (plus 64): a preview holds
	// about preview-bytes and grows by doubling. Neither spare counts as
	// retained: they hold no bytes, only room.
	sparePreview []byte
	// material is the scratch buffer of args-mode key material.
	material []byte
	// hot is where the last delta went: the next delta to the same call,
	// the usual case, skips both map lookups. Both maps only grow until a
	// restart, which clears it.
	hot hotCall

	attempts map[string]*attempt // every attempt opened since the last restart
	turns    map[string]*attempt // turn -> its live attempt
	released map[string]struct{} // keys this process released and no ack fail cleared
	retained int                 // raw bytes held by undecided calls
	gen      int                 // restarts so far: a PreviewStream from an older generation is over

	faults faults.Set        // deliberate bugs, for the suite's own tests only
	stale  map[string][]byte // faults StaleAcrossAttempts, ReuseSuperseded: bytes by item
	counts map[string]int    // fault CallBytesByItem: byte counts by item
}

// New builds a gate over a ledger; an invalid configuration is refused with
// an error saying what is wrong.
func New(cfg sealgate.Config, l Ledger) (*Gate, error) {
	if l == nil {
		return nil, errors.New("ledger: nil")
	}
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	tools, err := compileTools(&cfg)
	if err != nil {
		return nil, err
	}
	g := &Gate{limits: cfg.Limits, release: cfg.Release, batch: cfg.Batch, tools: tools, ledger: l}
	g.forget()
	return g, nil
}

// forget drops all memory but the ledger and the event count.
func (g *Gate) forget() {
	g.attempts = map[string]*attempt{}
	g.turns = map[string]*attempt{}
	g.released = map[string]struct{}{}
	g.retained = 0
	g.hot = hotCall{}
	g.counts = nil
	g.gen++
}

// Retained returns the raw argument bytes the gate holds right now.
func (g *Gate) Retained() int { return g.retained }

// Feed takes the next event and returns the decisions it causes, each with
// At = the 1-based count of events fed so far. The error is non-nil when the
// ledger fails (then the gate fails closed: nothing is released and every
// later Feed returns the same error) or when the event itself is not one
// the SPEC can express (unknown kind or status); such an event changes
// nothing. A delta goes the way FeedDelta's do.
func (g *Gate) Feed(ev sealgate.Event) ([]sealgate.Decision, error) {
	if ev.Kind == sealgate.Delta {
		return g.delta(&deltaArgs{ev.Attempt, ev.Item, ev.Bytes})
	}
	if g.err != nil {
		return nil, g.err
	}
	g.n++
	var out []sealgate.Decision
	var err error
	switch ev.Kind {
	case sealgate.Open:
		out, err = g.open(&ev)
	case sealgate.Begin:
		out = g.begin(&ev)
	case sealgate.End:
		out, err = g.end(&ev)
	case sealgate.Close:
		if !ev.Status.Valid() {
			return nil, fmt.Errorf("event %d: close with unknown status %d", g.n, ev.Status)
		}
		out, err = g.close(&ev)
	case sealgate.Ack:
		out, err = g.ack(&ev)
	case sealgate.Restart:
		g.forget()
		if g.faults.ForgetLedgerOnRestart {
			g.ledger = NewMemoryLedger()
		}
	case sealgate.Peek:
		out = g.peek(&ev)
	default:
		return nil, fmt.Errorf("event %d: unknown event kind %d", g.n, ev.Kind)
	}
	if err != nil {
		g.err = fmt.Errorf("event %d: ledger failed, gate closed: %w", g.n, err)
		g.forget()
		return nil, g.err
	}
	return out, nil
}

// FeedDelta is Feed(sealgate.DeltaEvent(attemptID, item, b)), the same in
// every way, without the event. Deltas are nearly every event of a stream,
// and building a 168-byte Event for each costs more than the gate's own
// work on it (BenchmarkFloor/event against BenchmarkFloor/delta-args): an
// adapter on the hot path calls this instead. The suite feeds deltas both
// ways and holds both to the model.
func (g *Gate) FeedDelta(attemptID, item string, b []byte) ([]sealgate.Decision, error) {
	return g.delta(&deltaArgs{attemptID, item, b})
}

// Ack tells the gate what became of a released key, and is
// Feed(sealgate.AckEvent(key, ok)) in every way: ok after the effect
// happened (the ledger marks the key done: a later call with that key is
// refused, duplicate-effect once this process has restarted), !ok after it
// did not happen or was undone (the ledger and the released set forget the
// key, so a retry may run it). The ledger's write is
// durable, for a durable ledger, when Ack returns. An ack of a key that is
// not in intent answers an unknown-ack anomaly and changes nothing.
func (g *Gate) Ack(key string, ok bool) ([]sealgate.Decision, error) {
	return g.Feed(sealgate.AckEvent(key, ok))
}

// route finds the live attempt an event names. For any other attempt it
// handles the event itself: unknown -> no-open, ended -> after-close, dead ->
// dropped (its first close ends it).
func (g *Gate) route(ev *sealgate.Event, out []sealgate.Decision) (*attempt, []sealgate.Decision) {
	a := g.attempts[ev.Attempt]
	switch {
	case a == nil:
		return nil, append(out, g.anomaly(ev, sealgate.NoOpen))
	case a.state == ended:
		return nil, append(out, g.anomaly(ev, sealgate.AfterClose))
	case a.state == dead:
		if ev.Kind == sealgate.Close {
			a.state = ended
		}
		return nil, out
	}
	return a, out
}

func (g *Gate) anomaly(ev *sealgate.Event, kind sealgate.AnomalyKind) sealgate.Decision {
	d := sealgate.Decision{At: g.n, Kind: sealgate.Anomaly, Attempt: ev.Attempt, Anomaly: kind}
	if ev.Kind.NamesItem() {
		d.Item, d.HasItem = ev.Item, true
	}
	return d
}

// poison reports an anomaly and, the attempt being live, decides all its
// calls turn-anomaly and makes it dead.
func (g *Gate) poison(a *attempt, ev *sealgate.Event, kind sealgate.AnomalyKind, out []sealgate.Decision) []sealgate.Decision {
	out = append(out, g.anomaly(ev, kind))
	return g.endBadly(a, dead, sealgate.TurnAnomaly, out)
}

// endBadly ends an attempt that will release nothing more: undecided calls
// are rejected with reason, early releases are compensated (ledger and
// released set unchanged), in begin order.
func (g *Gate) endBadly(a *attempt, to attemptState, reason sealgate.Reason, out []sealgate.Decision) []sealgate.Decision {
	for _, c := range a.calls {
		switch {
		case !c.decided:
			if g.faults.ReuseSuperseded && reason == sealgate.Superseded {
				g.keepStale(c)
			}
			if g.faults.CallBytesByItem && reason == sealgate.Superseded {
				g.keepCount(c)
			}
			out = append(out, g.reject(a, c, reason))
		case c.released && !g.faults.NoCompensate:
			out = append(out, sealgate.Decision{At: g.n, Kind: sealgate.Compensate, Attempt: a.id, Item: c.item, Key: c.key})
		}
	}
	g.retire(a, to)
	return out
}

// retire takes an attempt out of service; its call records are no longer
// needed.
func (g *Gate) retire(a *attempt, to attemptState) {
	a.state = to
	if g.turns[a.turn] == a {
		delete(g.turns, a.turn)
	}
	a.calls, a.items, a.callIDs = nil, nil, nil
}

// free decides a call and drops its buffer and preview.
func (g *Gate) free(c *call) {
	if g.faults.StaleAcrossAttempts {
		g.keepStale(c)
	}
	g.retained -= len(c.buf)
	if cap(c.buf) > cap(g.spare) {
		g.spare = c.buf[:0]
	}
	if c.preview != nil {
		if b := c.preview.Recycle(); cap(b) > cap(g.sparePreview) && cap(b) <= 2*g.limits.PreviewBytes+64 {
			g.sparePreview = b
		}
	}
	c.buf, c.preview, c.decided = nil, nil, true
}

func (g *Gate) reject(a *attempt, c *call, r sealgate.Reason) sealgate.Decision {
	g.free(c)
	return sealgate.Decision{At: g.n, Kind: sealgate.Reject, Attempt: a.id, Item: c.item, Reason: r}
}

func (g *Gate) open(ev *sealgate.Event) ([]sealgate.Decision, error) {
	var out []sealgate.Decision
	if a := g.attempts[ev.Attempt]; a != nil {
		if a.state == live {
			return g.poison(a, ev, sealgate.Reopen, out), nil
		}
		return append(out, g.anomaly(ev, sealgate.Reopen)), nil
	}
	a := &attempt{id: ev.Attempt, turn: ev.Turn, state: live}
	if prev := g.turns[ev.Turn]; prev != nil {
		out = g.endBadly(prev, ended, sealgate.Superseded, out)
		if g.faults.TurnBytesPerTurn {
			a.bytes = prev.bytes
		}
	}
	g.attempts[ev.Attempt] = a
	g.turns[ev.Turn] = a
	return out, nil
}

func (g *Gate) begin(ev *sealgate.Event) []sealgate.Decision {
	a, out := g.route(ev, nil)
	if a == nil {
		return out
	}
	if _, ok := a.items[ev.Item]; ok {
		return g.poison(a, ev, sealgate.DuplicateBegin, out)
	}
	if _, ok := a.callIDs[ev.Call]; ok {
		return g.poison(a, ev, sealgate.IdentityConflict, out)
	}
	if len(a.calls) >= g.limits.Calls {
		return g.poison(a, ev, sealgate.TooManyCalls, out)
	}
	var secrets [][]string
	if t := g.tools[ev.Tool]; t != nil && !g.faults.LeakSplitSecret {
		secrets = t.secrets
		if g.faults.FirstSecretPerMember {
			secrets = firstPerMember(secrets)
		}
	}
	c := &call{item: ev.Item, id: ev.Call, tool: ev.Tool,
		preview: partial.New(g.limits.Depth, g.limits.PreviewBytes, secrets)}
	c.preview.Reuse(g.sparePreview)
	g.sparePreview = nil
	if a.items == nil {
		a.items, a.callIDs = map[string]*call{}, map[string]struct{}{}
	}
	if g.faults.KeyByTool {
		if shared := a.byTool(ev.Tool); shared != nil {
			a.items[ev.Item] = shared
			a.callIDs[ev.Call] = struct{}{}
			return out
		}
	}
	if b, ok := g.stale[ev.Item]; ok {
		delete(g.stale, ev.Item)
		c.buf = b
		a.bytes += len(b)
		g.retained += len(b)
		if g.faults.LeakSplitSecret {
			c.previewed() // that fault writes its preview as bytes arrive
		}
	}
	if n, ok := g.counts[ev.Item]; ok {
		delete(g.counts, ev.Item)
		c.carried = n
	}
	a.calls = append(a.calls, c)
	a.items[ev.Item] = c
	a.callIDs[ev.Call] = struct{}{}
	return out
}

// deltaArgs is what a delta event says, without the rest of an Event.
type deltaArgs struct {
	attempt, item string
	bytes         []byte
}

// event is the delta as an Event, for route and the anomalies, which read
// one: made only when a delta misses the remembered route or is refused.
func (d *deltaArgs) event() *sealgate.Event {
	ev := sealgate.DeltaEvent(d.attempt, d.item, d.bytes)
	return &ev
}

// delta is Feed for a delta: it applies the byte budgets of SPEC section 3
// and appends the fragment. It takes a delta's three fields rather than an
// Event, so that a delta on the remembered route (nearly all of them) never
// needs one.
func (g *Gate) delta(d *deltaArgs) ([]sealgate.Decision, error) {
	if g.err != nil {
		return nil, g.err
	}
	g.n++
	var a *attempt
	var c *call
	var out []sealgate.Decision
	if h := &g.hot; h.a != nil && h.a.state == live && d.attempt == h.attempt && d.item == h.item {
		a, c = h.a, h.c
	} else {
		if a, out = g.route(d.event(), nil); a == nil {
			return out, nil
		}
		if c = a.items[d.item]; c != nil {
			g.hot = hotCall{attempt: d.attempt, item: d.item, a: a, c: c}
		}
	}
	switch {
	case c == nil:
		return g.poison(a, d.event(), sealgate.UnknownCall, out), nil
	case c.tooLarge:
		return out, nil
	case c.ended && !(g.faults.AppendAfterEnd && !c.decided):
		return g.poison(a, d.event(), sealgate.AfterEnd, out), nil
	}
	b := d.bytes
	n := len(b)
	if c.carried+len(c.buf)+n > g.limits.CallBytes && !g.faults.Unbounded {
		c.tooLarge = true
		return append(out, g.reject(a, c, sealgate.TooLarge)), nil
	}
	if a.bytes+n > g.limits.TurnBytes && !g.faults.Unbounded {
		return g.poison(a, d.event(), sealgate.TurnTooLarge, out), nil
	}
	if n == 0 {
		return out, nil
	}
	if c.buf == nil {
		c.buf, g.spare = g.spare, nil
	}
	c.buf = append(partial.Reserve(c.buf, n, g.limits.CallBytes), b...)
	a.bytes += n
	g.retained += n
	if g.faults.LeakSplitSecret {
		// The fault's preview sees each fragment redacted on its own, so
		// it is written now, fragment by fragment.
		c.preview.Write(redactFragment(topSecrets(g.tools[c.tool].secretsOrNil()), b))
		c.parsed = len(c.buf)
	}
	if g.faults.ReleaseWhenParses && !c.ended && firstByte(c.buf) == '{' {
		if r, _ := ValidJSON(c.buf, g.limits.Depth); r == "" {
			c.ended = true
			out, _ = g.decide(a, c, out)
		}
	}
	return out, nil
}

func (g *Gate) end(ev *sealgate.Event) ([]sealgate.Decision, error) {
	a, out := g.route(ev, nil)
	if a == nil {
		return out, nil
	}
	c := a.items[ev.Item]
	switch {
	case c == nil:
		return g.poison(a, ev, sealgate.UnknownCall, out), nil
	case c.ended:
		return g.poison(a, ev, sealgate.AfterEnd, out), nil
	case c.tooLarge:
		c.ended = true // accepted with no final check
		return out, nil
	case ev.HasFinal && !bytes.Equal(ev.Final, c.buf) && !g.faults.IgnoreFinal:
		return g.poison(a, ev, sealgate.FinalMismatch, out), nil
	}
	c.ended = true
	if t := g.tools[c.tool]; (t != nil && t.early) || g.faults.ReleaseAtEnd {
		return g.decide(a, c, out)
	}
	return out, nil
}

func (g *Gate) close(ev *sealgate.Event) ([]sealgate.Decision, error) {
	a, out := g.route(ev, nil)
	if a == nil {
		return out, nil
	}
	status := ev.Status
	switch {
	case g.faults.DisconnectedIsComplete && status == sealgate.Disconnected:
		status = sealgate.Complete
	case g.faults.RepairOnDisconnect && status == sealgate.Disconnected:
		for _, c := range a.calls {
			if !c.decided && !c.ended {
				c.buf, c.ended = repairJSON(c.buf), true
			}
		}
		status = sealgate.Complete
	case g.faults.CloseReleasesAll:
		for _, c := range a.calls {
			c.ended = true
		}
		status = sealgate.Complete
	}
	if status != sealgate.Complete {
		return g.endBadly(a, ended, sealgate.TurnReason(status), out), nil
	}
	var err error
	if g.batch == sealgate.Atomic {
		out, err = g.decideAtomic(a, out)
	} else {
		for _, c := range a.calls {
			if c.decided {
				continue
			}
			if out, err = g.decide(a, c, out); err != nil {
				break
			}
		}
	}
	g.retire(a, ended)
	return out, err
}

func (g *Gate) ack(ev *sealgate.Event) ([]sealgate.Decision, error) {
	st, err := g.ledger.State(ev.Key)
	if err != nil {
		return nil, err
	}
	if st != Intent {
		return []sealgate.Decision{{At: g.n, Kind: sealgate.Anomaly, Anomaly: sealgate.UnknownAck, Key: ev.Key}}, nil
	}
	if ev.OK {
		if g.faults.AckOkForgetsRelease {
			delete(g.released, ev.Key)
		}
		return nil, g.ledger.Done(ev.Key)
	}
	if err := g.ledger.Clear(ev.Key); err != nil {
		return nil, err
	}
	if g.faults.AckFailClearsAll {
		clear(g.released)
	}
	delete(g.released, ev.Key)
	return nil, nil
}

// peek answers with the call's preview, or NoPreview for a call that is not
// live. It is a query: never an anomaly, never a change to any answer. (It
// does parse the bytes the preview has not read yet: see previewed.)
func (g *Gate) peek(ev *sealgate.Event) []sealgate.Decision {
	p := sealgate.NoPreview
	if a := g.attempts[ev.Attempt]; a != nil && a.state == live {
		if c := a.items[ev.Item]; c != nil && !c.decided {
			p = sealgate.Preview{Bytes: len(c.buf), Value: c.previewed().Snapshot()}
		}
	}
	return []sealgate.Decision{{At: g.n, Kind: sealgate.PreviewAnswer, Attempt: ev.Attempt, Item: ev.Item, Preview: p}}
}

// keepStale remembers an undecided or just-decided call's bytes by item,
// for the faults that reuse them (StaleAcrossAttempts, ReuseSuperseded).
func (g *Gate) keepStale(c *call) {
	if g.stale == nil {
		g.stale = map[string][]byte{}
	}
	g.stale[c.item] = append([]byte(nil), c.buf...)
}

// keepCount remembers a superseded call's byte count by item, for the
// fault CallBytesByItem.
func (g *Gate) keepCount(c *call) {
	if g.counts == nil {
		g.counts = map[string]int{}
	}
	g.counts[c.item] = c.carried + len(c.buf)
}

// byTool finds a call of the attempt by tool name (fault KeyByTool).
func (a *attempt) byTool(tool string) *call {
	for _, c := range a.calls {
		if c.tool == tool {
			return c
		}
	}
	return nil
}
