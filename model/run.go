// Package model is the reference model of sealgate: docs/SPEC.md as the plainest
// Go, re-scanning and re-parsing instead of being clever, so that the real
// gate can be compared with something obviously right. It never imports the
// gate.
package model

import (
	"bytes"
	"errors"
	"strings"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/sealgate/sealgate"
)

type attemptPhase uint8

const (
	live attemptPhase = iota + 1
	dead
	ended
)

type call struct {
	item, id, tool string
	buf            []byte
	ended          bool   // its own end was seen
	decided        bool   // it has its verdict
	tooLarge       bool   // rejected too-large (still waits for its end)
	releasedEarly  bool   // released at its own end under per-call
	key            string // its release's key, which a compensate carries
}

type attempt struct {
	id, turn string
	phase    attemptPhase
	calls    []*call // begin order
	received int     // bytes accepted by this attempt
}

type toolInfo struct {
	decl    *sealgate.Tool
	schema  *jsonschema.Schema
	secrets [][]string
}

const (
	ledgerIntent = "intent"
	ledgerDone   = "done"
)

type runner struct {
	cfg      sealgate.Config
	tools    map[string]*toolInfo
	ledger   map[string]string // survives restarts
	released map[string]bool   // this process's released keys
	attempts []*attempt        // opened since the last restart, in open order
	out      []sealgate.Decision
	at       int // 1-based index of the current event
}

// LedgerKeys lists the idempotency keys the run writes to the ledger
// (released or reconciled), in decision order, repeats kept: the keys an
// ack can name. Generators and the reducer ask it for keys worth acking.
func LedgerKeys(cfg sealgate.Config, events []sealgate.Event) []string {
	return appendLedgerKeys(nil, Run(cfg, events))
}

// appendLedgerKeys appends the keys of ds's releases and reconciles.
func appendLedgerKeys(keys []string, ds []sealgate.Decision) []string {
	for _, d := range ds {
		if d.Kind == sealgate.Release || d.Kind == sealgate.Reconcile {
			keys = append(keys, d.Key)
		}
	}
	return keys
}

// Stepper is Run one event at a time, for a generator that asks after each
// event what the model has decided so far: the ledger keys worth acking,
// without running the whole stream again at every step. After events e1..en
// its decisions are Run's on those events (the model decides online).
type Stepper struct {
	r       *runner
	refusal []sealgate.Decision
	keys    []string
}

// NewStepper starts a run of cfg with no events.
func NewStepper(cfg sealgate.Config) *Stepper {
	r, refusal := newRunner(cfg)
	return &Stepper{r: r, refusal: refusal}
}

// Feed decides the next event.
func (s *Stepper) Feed(e sealgate.Event) {
	if s.r == nil {
		return
	}
	n := len(s.r.out)
	s.r.at++
	s.r.event(e)
	s.keys = appendLedgerKeys(s.keys, s.r.out[n:])
}

// Decisions are the decisions so far: Run's on the events fed (for a
// refused configuration, its one Refused decision).
func (s *Stepper) Decisions() []sealgate.Decision {
	if s.r == nil {
		return s.refusal
	}
	return s.r.out
}

// LedgerKeys are LedgerKeys of the events fed so far. The slice is the
// stepper's own: it grows as events are fed.
func (s *Stepper) LedgerKeys() []string { return s.keys }

// Run returns the decisions for cfg and events (SPEC sections 2-8). A
// configuration that breaks SPEC section 4 gives exactly one Refused
// decision at event 0.
func Run(cfg sealgate.Config, events []sealgate.Event) []sealgate.Decision {
	r, refusal := newRunner(cfg)
	if r == nil {
		return refusal
	}
	r.feed(events)
	return r.out
}

// newRunner validates cfg and compiles its tools (through the schema cache);
// a configuration that breaks SPEC section 4 gives a nil runner and the
// one Refused decision.
func newRunner(cfg sealgate.Config) (*runner, []sealgate.Decision) {
	r := &runner{cfg: cfg, tools: map[string]*toolInfo{}, ledger: map[string]string{},
		released: map[string]bool{}}
	if err := cfg.Validate(); err != nil {
		return nil, refused(err.Error())
	}
	for i := range cfg.Tools {
		t := &cfg.Tools[i]
		s, err := compiled.get(t.Schema)
		if err != nil {
			return nil, refused("tool " + t.Name + ": schema: " + err.Error())
		}
		ti := &toolInfo{decl: t, schema: s}
		for _, sec := range t.Secrets {
			p, _ := sealgate.SecretPath(sec) // checked by Validate
			ti.secrets = append(ti.secrets, p)
		}
		r.tools[t.Name] = ti
	}
	return r, nil
}

func (r *runner) feed(events []sealgate.Event) {
	for _, e := range events {
		r.at++
		r.event(e)
	}
}

func refused(why string) []sealgate.Decision {
	return []sealgate.Decision{{At: 0, Kind: sealgate.Refused, Text: why}}
}

func (r *runner) emit(d sealgate.Decision) {
	d.At = r.at
	r.out = append(r.out, d)
}

func (r *runner) find(id string) *attempt {
	for _, a := range r.attempts {
		if a.id == id {
			return a
		}
	}
	return nil
}

func (a *attempt) call(item string) *call {
	for _, c := range a.calls {
		if c.item == item {
			return c
		}
	}
	return nil
}

// anomaly reports a shape violation of event e, then poisons a if it is
// live.
func (r *runner) anomaly(e sealgate.Event, k sealgate.AnomalyKind, a *attempt) {
	d := sealgate.Decision{Kind: sealgate.Anomaly, Attempt: e.Attempt, Anomaly: k}
	if e.Kind.NamesItem() {
		d.HasItem, d.Item = true, e.Item
	}
	if k == sealgate.UnknownAck {
		d.Attempt, d.Key = "", e.Key
	}
	r.emit(d)
	if a != nil && a.phase == live {
		r.endBadly(a, sealgate.TurnAnomaly)
		a.phase = dead
	}
}

// endBadly decides every call of a at this event, in begin order.
func (r *runner) endBadly(a *attempt, why sealgate.Reason) {
	for _, c := range a.calls {
		if c.releasedEarly {
			r.emit(sealgate.Decision{Kind: sealgate.Compensate, Attempt: a.id, Item: c.item, Key: c.key})
		} else if !c.decided {
			r.reject(a, c, why)
		}
	}
}

func (r *runner) reject(a *attempt, c *call, why sealgate.Reason) {
	c.decided = true
	c.buf = nil
	r.emit(sealgate.Decision{Kind: sealgate.Reject, Attempt: a.id, Item: c.item, Reason: why})
}

func (r *runner) event(e sealgate.Event) {
	switch e.Kind {
	case sealgate.Open:
		r.open(e)
	case sealgate.Begin, sealgate.Delta, sealgate.End, sealgate.Close:
		a := r.find(e.Attempt)
		switch {
		case a == nil:
			r.anomaly(e, sealgate.NoOpen, nil)
		case a.phase == ended:
			r.anomaly(e, sealgate.AfterClose, nil)
		case a.phase == dead:
			if e.Kind == sealgate.Close {
				a.phase = ended // its first close ends it silently
			}
		case e.Kind == sealgate.Begin:
			r.begin(a, e)
		case e.Kind == sealgate.Delta:
			r.delta(a, e)
		case e.Kind == sealgate.End:
			r.end(a, e)
		default:
			r.close(a, e)
		}
	case sealgate.Ack:
		r.ack(e)
	case sealgate.Restart:
		r.attempts = nil
		r.released = map[string]bool{}
	case sealgate.Peek:
		r.peek(e)
	}
}

func (r *runner) open(e sealgate.Event) {
	if a := r.find(e.Attempt); a != nil {
		r.anomaly(e, sealgate.Reopen, a)
		return
	}
	for _, old := range r.attempts {
		if old.phase == live && old.turn == e.Turn {
			r.endBadly(old, sealgate.Superseded)
			old.phase = ended
		}
	}
	r.attempts = append(r.attempts, &attempt{id: e.Attempt, turn: e.Turn, phase: live})
}

func (r *runner) begin(a *attempt, e sealgate.Event) {
	if a.call(e.Item) != nil {
		r.anomaly(e, sealgate.DuplicateBegin, a)
		return
	}
	for _, c := range a.calls {
		if c.id == e.Call {
			r.anomaly(e, sealgate.IdentityConflict, a)
			return
		}
	}
	if len(a.calls)+1 > r.cfg.Limits.Calls {
		r.anomaly(e, sealgate.TooManyCalls, a)
		return
	}
	a.calls = append(a.calls, &call{item: e.Item, id: e.Call, tool: e.Tool})
}

func (r *runner) delta(a *attempt, e sealgate.Event) {
	c := a.call(e.Item)
	switch {
	case c == nil:
		r.anomaly(e, sealgate.UnknownCall, a)
	case c.tooLarge:
		// dropped silently, before or after its end
	case c.ended:
		r.anomaly(e, sealgate.AfterEnd, a)
	case len(c.buf)+len(e.Bytes) > r.cfg.Limits.CallBytes:
		c.tooLarge = true
		r.reject(a, c, sealgate.TooLarge)
	case a.received+len(e.Bytes) > r.cfg.Limits.TurnBytes:
		r.anomaly(e, sealgate.TurnTooLarge, a)
	default:
		c.buf = append(c.buf, e.Bytes...)
		a.received += len(e.Bytes)
	}
}

func (r *runner) end(a *attempt, e sealgate.Event) {
	c := a.call(e.Item)
	switch {
	case c == nil:
		r.anomaly(e, sealgate.UnknownCall, a)
	case c.ended:
		r.anomaly(e, sealgate.AfterEnd, a)
	case c.tooLarge:
		c.ended = true // accepted with no final check
	case e.HasFinal && !bytes.Equal(e.Final, c.buf):
		r.anomaly(e, sealgate.FinalMismatch, a)
	default:
		c.ended = true
		if t, ok := r.tools[c.tool]; ok && t.decl.Early && r.cfg.Release == sealgate.PerCall {
			o := r.seal(a, c, r.released, r.ledger)
			r.apply(a, c, o)
			if o.kind == sealgate.Release {
				c.releasedEarly, c.key = true, o.key
			}
		}
	}
}

func (r *runner) close(a *attempt, e sealgate.Event) {
	if e.Status != sealgate.Complete {
		r.endBadly(a, sealgate.TurnReason(e.Status))
		a.phase = ended
		return
	}
	a.phase = ended
	if r.cfg.Batch != sealgate.Atomic {
		for _, c := range a.calls {
			if !c.decided {
				r.apply(a, c, r.seal(a, c, r.released, r.ledger))
			}
		}
		return
	}
	// atomic: check every call as if releasing, on copies of the sets.
	rel := map[string]bool{}
	for k, v := range r.released {
		rel[k] = v
	}
	led := map[string]string{}
	for k, v := range r.ledger {
		led[k] = v
	}
	outs := map[*call]outcome{}
	failed := false
	for _, c := range a.calls {
		if c.decided {
			if c.tooLarge {
				failed = true
			}
			continue
		}
		o := r.seal(a, c, rel, led)
		outs[c] = o
		if o.kind == sealgate.Release {
			rel[o.key] = true
			led[o.key] = ledgerIntent
		} else {
			failed = true
		}
	}
	for _, c := range a.calls {
		o, ok := outs[c]
		if !ok {
			continue
		}
		if failed && o.kind == sealgate.Release {
			o = outcome{kind: sealgate.Reject, reason: sealgate.BatchAborted}
		}
		r.apply(a, c, o)
	}
}

// outcome is the seal's verdict on one call.
type outcome struct {
	kind   sealgate.DecisionKind // Release, Reject or Reconcile
	reason sealgate.Reason
	key    string
}

// seal runs the checks of SPEC section 5 in order against the given
// released set and ledger, changing nothing.
func (r *runner) seal(a *attempt, c *call, released map[string]bool, ledger map[string]string) outcome {
	no := func(why sealgate.Reason) outcome { return outcome{kind: sealgate.Reject, reason: why} }
	if !c.ended {
		return no(sealgate.Incomplete)
	}
	root, viol := parse(c.buf, r.cfg.Limits.Depth, false)
	if viol != nil {
		return no(viol.reason)
	}
	if root.kind != kObject {
		return no(sealgate.NotObject)
	}
	t, ok := r.tools[c.tool]
	if !ok || validate(t.schema, toAny(root)) != nil {
		return no(sealgate.SchemaFailed)
	}
	if al := t.decl.Allow; al != nil {
		allowed := false
		for _, m := range root.members {
			if m.name.str == al.Field && m.val.kind == kString {
				for _, want := range al.Values {
					if m.val.str == want {
						allowed = true
					}
				}
			}
		}
		if !allowed {
			return no(sealgate.Unauthorized)
		}
	}
	key := r.key(a, c, t, root)
	if released[key] {
		return no(sealgate.Duplicate)
	}
	switch ledger[key] {
	case ledgerDone:
		return no(sealgate.DuplicateEffect)
	case ledgerIntent:
		return outcome{kind: sealgate.Reconcile, key: key}
	}
	return outcome{kind: sealgate.Release, key: key}
}

// key is the idempotency key of a call whose arguments parsed as root.
func (r *runner) key(a *attempt, c *call, t *toolInfo, root *value) string {
	return keyOf(t.decl.Idem, a.turn, c.tool, c.id, c.buf, root)
}

// keyOf is the key of SPEC section 4 for arguments buf, parsed as root.
func keyOf(idem sealgate.Idem, turn, tool, callID string, buf []byte, root *value) string {
	switch idem.Mode {
	case sealgate.IdemCall:
		return sealgate.Key(sealgate.CallMaterial(turn, callID))
	case sealgate.IdemFields:
		var parts [][]byte
		for _, f := range idem.Fields {
			part := []byte("null")
			for _, m := range root.members {
				if m.name.str == f {
					var b strings.Builder
					canon(&b, m.val)
					part = []byte(b.String())
				}
			}
			parts = append(parts, part)
		}
		return sealgate.Key(sealgate.FieldsMaterial(tool, parts))
	}
	canonical, _ := Canonical(buf)
	return sealgate.Key(sealgate.ArgsMaterial(turn, tool, canonical))
}

// IdemKey is the idempotency key the SPEC gives a call of tool in turn
// with vendor id callID and argument text args: what a release of those
// arguments must carry, whoever released them. It fails when args are not
// one strictly valid JSON object, which has no key.
func IdemKey(tool sealgate.Tool, turn, callID string, args []byte) (string, error) {
	root, viol := parse(args, sealgate.MaxDepth, false)
	if viol != nil {
		return "", viol
	}
	if root.kind != kObject {
		return "", errors.New("arguments are not a JSON object")
	}
	return keyOf(tool.Idem, turn, tool.Name, callID, args, root), nil
}

// apply makes an outcome real: a release writes intent to the ledger and
// the key to the released set; a reconcile changes nothing.
func (r *runner) apply(a *attempt, c *call, o outcome) {
	switch o.kind {
	case sealgate.Release:
		r.ledger[o.key] = ledgerIntent
		r.released[o.key] = true
		r.emit(sealgate.Decision{Kind: sealgate.Release, Attempt: a.id, Item: c.item, Call: c.id,
			Tool: c.tool, Key: o.key, Args: sealgate.Sealed(sealgate.Compact(c.buf))})
		c.decided = true
		c.buf = nil
	case sealgate.Reconcile:
		c.decided = true
		c.buf = nil
		r.emit(sealgate.Decision{Kind: sealgate.Reconcile, Attempt: a.id, Item: c.item, Key: o.key})
	default:
		r.reject(a, c, o.reason)
	}
}

func (r *runner) ack(e sealgate.Event) {
	if r.ledger[e.Key] != ledgerIntent {
		r.anomaly(e, sealgate.UnknownAck, nil)
		return
	}
	if e.OK {
		r.ledger[e.Key] = ledgerDone
		return
	}
	delete(r.ledger, e.Key)
	delete(r.released, e.Key)
}

func (r *runner) peek(e sealgate.Event) {
	p := sealgate.NoPreview
	if a := r.find(e.Attempt); a != nil && a.phase == live {
		if c := a.call(e.Item); c != nil && !c.decided {
			var secrets [][]string
			if t, ok := r.tools[c.tool]; ok {
				secrets = t.secrets
			}
			p = PreviewOf(c.buf, r.cfg.Limits.Depth, r.cfg.Limits.PreviewBytes, secrets)
		}
	}
	r.emit(sealgate.Decision{Kind: sealgate.PreviewAnswer, Attempt: e.Attempt, Item: e.Item, Preview: p})
}
