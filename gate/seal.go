package gate

import (
	"bytes"

	"github.com/sealgate/sealgate"
)

// verdict is the outcome of the seal checks for one call: a reason to
// reject, or reconcile, or (neither) release under key.
type verdict struct {
	reason    sealgate.Reason
	reconcile bool
	key       string
	compact   bool // the call's bytes are already in compact form
}

func (v verdict) fails() bool { return v.reason != "" || v.reconcile }

// seal runs the checks of SPEC section 5 in order. pending holds keys an
// atomic batch would release before this call (nil otherwise). It reads the
// ledger but writes nothing.
func (g *Gate) seal(a *attempt, c *call, pending map[string]struct{}) (verdict, error) {
	if !c.ended {
		return verdict{reason: sealgate.Incomplete}, nil
	}
	if g.faults.EmptyAsObject && len(c.buf) == 0 {
		c.buf = []byte("{}")
	}
	if g.faults.LenientJSON {
		if b, ok := lenientText(c.buf); ok {
			c.buf = b
		}
	}
	doc, size, ok := sealTextFaulty(c.buf, g.limits.Depth, g.faults.NoncharBMPOnly)
	if !ok {
		r, err := ValidJSON(c.buf, g.limits.Depth)
		if err == nil {
			// The decoding pass refused what the exact check accepts:
			// unreachable (a test holds the two equal), and refusing is
			// the only safe answer.
			r = sealgate.MalformedJSON
		}
		return verdict{reason: r}, nil
	}
	obj, isObject := doc.(map[string]any)
	if !isObject {
		return verdict{reason: sealgate.NotObject}, nil
	}
	t := g.tools[c.tool]
	if t == nil {
		return verdict{reason: sealgate.SchemaFailed}, nil
	}
	// The key reads the document before the schema check rewrites its
	// numbers.
	key, err := g.key(a, c, t, obj)
	if err != nil {
		// Unreachable for a document sealText decoded; refuse rather
		// than guess.
		return verdict{reason: sealgate.MalformedJSON}, nil
	}
	if !schemaAccepts(t, schemaNumbers(doc)) {
		return verdict{reason: sealgate.SchemaFailed}, nil
	}
	if t.allow != nil && !allowed(t.allow, doc) {
		return verdict{reason: sealgate.Unauthorized}, nil
	}
	if _, ok := g.released[key]; ok {
		return verdict{reason: sealgate.Duplicate, key: key}, nil
	}
	if _, ok := pending[key]; ok {
		return verdict{reason: sealgate.Duplicate, key: key}, nil
	}
	st, err := g.ledger.State(key)
	if err != nil {
		return verdict{}, err
	}
	switch st {
	case Done:
		return verdict{reason: sealgate.DuplicateEffect, key: key}, nil
	case Intent:
		return verdict{reconcile: true, key: key}, nil
	}
	return verdict{key: key, compact: size == len(c.buf)}, nil
}

// schemaAccepts validates decoded arguments. The library panics on a number
// that math/big refuses (an exponent beyond 1e6, such as 1e-9999999, which
// the strict grammar allows because it underflows to 0): the gate fails
// closed on it instead of crashing.
func schemaAccepts(t *tool, doc any) (ok bool) {
	defer func() {
		if recover() != nil {
			ok = false
		}
	}()
	return t.schema.Validate(doc) == nil
}

// firstByte is the first non-space byte of b (0 if none).
func firstByte(b []byte) byte {
	for _, c := range b {
		if !isSpace(c) {
			return c
		}
	}
	return 0
}

// allowed applies an authorization rule to decoded arguments: the top-level
// field must be a string equal to one allowed value (already unescaped by
// the decoder).
func allowed(rule *sealgate.Allow, doc any) bool {
	obj, _ := doc.(map[string]any)
	s, ok := obj[rule.Field].(string)
	if !ok {
		return false
	}
	for _, v := range rule.Values {
		if s == v {
			return true
		}
	}
	return false
}

// key is the call's idempotency key (SPEC section 4), from the decoded
// arguments.
func (g *Gate) key(a *attempt, c *call, t *tool, args map[string]any) (string, error) {
	if g.faults.KeyNumbersParseFloat {
		args = parseFloatNumbers(args).(map[string]any)
	}
	if g.faults.FieldsRawNames && t.idem.Mode == sealgate.IdemFields {
		args = byRawNames(c.buf, args)
	}
	switch t.idem.Mode {
	case sealgate.IdemCall:
		return sealgate.Key(sealgate.CallMaterial(a.turn, c.id)), nil
	case sealgate.IdemFields:
		fs := make([][]byte, len(t.idem.Fields))
		for i, name := range t.idem.Fields {
			v, ok := args[name]
			if !ok {
				fs[i] = []byte("null")
				continue
			}
			var err error
			if fs[i], err = appendCanonical(nil, v); err != nil {
				return "", err
			}
		}
		return sealgate.Key(sealgate.FieldsMaterial(t.name, fs)), nil
	}
	// sealgate.ArgsMaterial's layout (turn, zero byte, name, zero byte,
	// canonical form), written into a buffer the gate keeps: no copy, and
	// no allocation once it has grown.
	m := append(append(append(append(g.material[:0], a.turn...), 0), t.name...), 0)
	m, err := appendCanonical(m, args)
	if err != nil {
		return "", err
	}
	if cap(m) <= 2*g.limits.CallBytes {
		g.material = m
	}
	return sealgate.Key(m), nil
}

// decide seals one call and acts on the verdict at once.
func (g *Gate) decide(a *attempt, c *call, out []sealgate.Decision) ([]sealgate.Decision, error) {
	v, err := g.seal(a, c, nil)
	if err != nil {
		return out, err
	}
	return g.act(a, c, v, out)
}

// act turns a verdict into the call's decision. A release writes intent to
// the ledger first, then joins the released set.
func (g *Gate) act(a *attempt, c *call, v verdict, out []sealgate.Decision) ([]sealgate.Decision, error) {
	switch {
	case v.reason != "":
		return append(out, g.reject(a, c, v.reason)), nil
	case v.reconcile:
		g.free(c)
		return append(out, sealgate.Decision{At: g.n, Kind: sealgate.Reconcile, Attempt: a.id, Item: c.item, Key: v.key}), nil
	}
	if err := g.ledger.Intent(v.key); err != nil {
		return out, err
	}
	g.released[v.key] = struct{}{}
	args := c.buf
	if v.compact {
		args = bytes.Clone(args)
	} else {
		args = sealgate.Compact(args)
	}
	d := sealgate.Decision{At: g.n, Kind: sealgate.Release, Attempt: a.id, Item: c.item, Call: c.id,
		Tool: c.tool, Key: v.key, Args: sealgate.Sealed(args)}
	c.released, c.key = true, v.key
	g.free(c)
	return append(out, d), nil
}

// decideAtomic runs the seal for every undecided call in begin order as if
// releasing; any failure (a call already rejected too-large included, and a
// would-be reconcile) aborts the batch.
func (g *Gate) decideAtomic(a *attempt, out []sealgate.Decision) ([]sealgate.Decision, error) {
	verdicts := make([]verdict, len(a.calls))
	var pending map[string]struct{}
	failed := false
	for i, c := range a.calls {
		if c.decided {
			failed = true // only too-large decides a call early under atomic
			continue
		}
		v, err := g.seal(a, c, pending)
		if err != nil {
			return out, err
		}
		verdicts[i] = v
		if v.fails() {
			failed = true
		} else {
			if pending == nil {
				pending = map[string]struct{}{}
			}
			pending[v.key] = struct{}{}
		}
	}
	for i, c := range a.calls {
		if c.decided {
			continue
		}
		v := verdicts[i]
		if failed && !v.fails() {
			v = verdict{reason: sealgate.BatchAborted}
		}
		var err error
		if out, err = g.act(a, c, v, out); err != nil {
			return out, err
		}
	}
	return out, nil
}
