package coverage

import (
	"bytes"
	"encoding/json"
	"strings"
	"unicode/utf8"

	"github.com/sealgate/sealgate"
)

// Refused reports whether decisions are a refused configuration's single
// line.
func Refused(ds []sealgate.Decision) bool {
	return len(ds) == 1 && ds[0].Kind == sealgate.Refused
}

// Extract returns the features one scenario reached: cfg and events as a
// generator produced them, ds what the reference model decided on them
// (model.Run). A refused configuration reaches nothing (nil): it decides
// no event, so it pairs with nothing.
//
// Stream situations (a supersede, a byte count at its limit, a key still
// in intent) are read by following the attempts and the ledger along the
// events, with the model's decisions saying what each event did (an
// anomaly, a verdict, a too-large): the rules followed are the SPEC's,
// but only as far as telling features apart needs; the model stays the
// one reference.
func Extract(cfg sealgate.Config, events []sealgate.Event, ds []sealgate.Decision) Set {
	if Refused(ds) {
		return nil
	}
	x := &extractor{cfg: cfg, s: Set{}, at: map[int][]sealgate.Decision{},
		ledger: map[string]*ledgerKey{}, supersedes: map[string]int{}}
	for _, d := range ds {
		x.at[d.At] = append(x.at[d.At], d)
	}
	x.config()
	for i, e := range events {
		x.event(i+1, e)
	}
	for _, c := range x.all {
		x.shapes(c)
	}
	return x.s
}

type phase uint8

const (
	live phase = iota
	dead
	ended
)

type callRec struct {
	item, call, tool string
	buf              []byte
	decided          bool
	tooLarge         bool
}

type attemptRec struct {
	id, turn     string
	phase        phase
	calls        []*callRec
	received     int
	releases     int
	lastCall     *callRec // the call of its last accepted fragment
	superseded   []*attemptRec
	regeneration bool // it superseded a live attempt
}

type ledgerKey struct {
	intent        bool
	beforeRestart bool // written before the last restart
	failed        bool // an ack fail cleared it once
	reconciles    int
}

type extractor struct {
	cfg        sealgate.Config
	s          Set
	at         map[int][]sealgate.Decision
	attempts   []*attemptRec // opened since the last restart
	all        []*callRec
	ledger     map[string]*ledgerKey // every key released in the run
	supersedes map[string]int        // per turn
}

func (x *extractor) add(name string) { x.s[Feature(name)] = true }

func (x *extractor) config() {
	c := x.cfg
	x.add("policy:" + c.Release.String())
	x.add("policy:" + c.Batch.String())
	if len(c.Tools) >= 3 {
		x.add("config:tools-several")
	}
	for _, t := range c.Tools {
		if t.Allow != nil {
			x.add("config:allow")
			if len(t.Allow.Values) >= 2 {
				x.add("config:allow-several")
			}
		}
		if t.Early {
			x.add("config:early")
		}
		switch t.Idem.Mode {
		case sealgate.IdemArgs:
			x.add("config:idem-args")
		case sealgate.IdemCall:
			x.add("config:idem-call")
		case sealgate.IdemFields:
			x.add("config:idem-fields")
			if len(t.Idem.Fields) >= 2 {
				x.add("config:idem-fields-several")
			}
		}
		x.schema(t.Schema)
		first := map[string]int{}
		for _, sec := range t.Secrets {
			path, err := sealgate.SecretPath(sec)
			if err != nil || len(path) == 0 {
				continue
			}
			if strings.HasPrefix(sec, "/") {
				x.add("secret:pointer")
				if len(path) >= 2 {
					x.add("secret:nested-pointer")
				}
				if strings.Contains(sec, "~") {
					x.add("secret:pointer-escape")
				}
			} else {
				x.add("secret:name")
			}
			if first[path[0]]++; first[path[0]] == 2 {
				x.add("secret:two-paths-one-member")
			}
		}
	}
	d := sealgate.DefaultLimits()
	for i, v := range limitValues(c.Limits) {
		if v != limitValues(d)[i] {
			x.add("limit:" + limitNames[i] + "-set")
		}
	}
}

func limitValues(l sealgate.Limits) []int {
	return []int{l.CallBytes, l.TurnBytes, l.Calls, l.Depth, l.PreviewBytes}
}

// schemaKeywords maps the JSON Schema keywords the issue asks generated
// schemas to use onto their features.
var schemaKeywords = map[string]string{
	"const": "config:schema-const", "enum": "config:schema-enum", "pattern": "config:schema-pattern",
	"minimum": "config:schema-bounds", "maximum": "config:schema-bounds",
	"exclusiveMinimum": "config:schema-bounds", "exclusiveMaximum": "config:schema-bounds",
	"multipleOf": "config:schema-bounds", "uniqueItems": "config:schema-unique-items",
	"$ref": "config:schema-ref",
}

// nameMaps are the keywords whose value maps names to schemas: their keys
// are property names, not keywords.
var nameMaps = map[string]bool{"properties": true, "patternProperties": true, "$defs": true,
	"definitions": true, "dependentSchemas": true}

// schema notes the keywords a tool's schema uses. A schema that is not
// JSON adds nothing (a configuration refused for it has no features).
func (x *extractor) schema(text string) {
	var v any
	if json.Unmarshal([]byte(text), &v) != nil {
		return
	}
	var walk func(v any, names bool)
	walk = func(v any, names bool) {
		switch v := v.(type) {
		case map[string]any:
			for k, sub := range v {
				if !names {
					if f, ok := schemaKeywords[k]; ok {
						x.add(f)
					}
				}
				walk(sub, !names && nameMaps[k])
			}
		case []any:
			for _, sub := range v {
				walk(sub, false)
			}
		}
	}
	walk(v, false)
}

func (x *extractor) find(id string) *attemptRec {
	for _, a := range x.attempts {
		if a.id == id {
			return a
		}
	}
	return nil
}

func (a *attemptRec) call(item string) *callRec {
	for _, c := range a.calls {
		if c.item == item {
			return c
		}
	}
	return nil
}

func (x *extractor) liveCount() int {
	n := 0
	for _, a := range x.attempts {
		if a.phase == live {
			n++
		}
	}
	return n
}

// poisons is every anomaly kind that poisons a live attempt.
var poisons = map[sealgate.AnomalyKind]bool{sealgate.Reopen: true, sealgate.UnknownCall: true,
	sealgate.AfterEnd: true, sealgate.DuplicateBegin: true, sealgate.IdentityConflict: true,
	sealgate.TooManyCalls: true, sealgate.TurnTooLarge: true, sealgate.FinalMismatch: true}

func (x *extractor) event(at int, e sealgate.Event) {
	x.add("event:" + e.Kind.String())
	ds := x.at[at]
	anomalous := false
	for _, d := range ds {
		anomalous = anomalous || d.Kind == sealgate.Anomaly
	}
	for _, d := range ds {
		x.decision(e, anomalous, d)
	}
	a := x.find(e.Attempt)
	switch e.Kind {
	case sealgate.Open:
		x.open(e, a, anomalous)
	case sealgate.Begin:
		if a != nil && a.phase == live && !anomalous {
			c := &callRec{item: e.Item, call: e.Call, tool: e.Tool}
			a.calls = append(a.calls, c)
			x.all = append(x.all, c)
			if _, ok := x.cfg.Tool(e.Tool); !ok {
				x.add("stream:unknown-tool")
			}
			if len(a.calls) == x.cfg.Limits.Calls {
				x.add("limit:calls-edge")
			}
			for _, old := range a.superseded {
				for _, oc := range old.calls {
					if oc.item == c.item && oc.call == c.call {
						x.add("supersede:regenerated-call")
					}
				}
			}
		}
	case sealgate.Delta:
		if len(e.Bytes) == 0 {
			x.add("stream:delta-empty")
		}
		if a == nil || a.phase != live || anomalous {
			break
		}
		c := a.call(e.Item)
		if c == nil || c.decided || c.tooLarge || len(ds) > 0 {
			break // dropped, or rejected too-large at this event
		}
		resumed := len(c.buf) > 0 && a.lastCall != nil && a.lastCall != c
		c.buf = append(c.buf, e.Bytes...)
		a.received += len(e.Bytes)
		if len(c.buf) == x.cfg.Limits.CallBytes {
			x.add("limit:call-bytes-edge")
		}
		if a.received == x.cfg.Limits.TurnBytes {
			x.add("limit:turn-bytes-edge")
			if a.regeneration {
				x.add("supersede:regeneration-at-budget")
			}
		}
		if len(e.Bytes) > 0 {
			if resumed { // back to a call after another call's fragment
				x.add("stream:interleaved")
			}
			a.lastCall = c
			if splitsRune(c.buf) {
				x.add("stream:split-rune")
			}
			if insideEscape(c.buf) {
				x.add("stream:split-escape")
			}
		}
	case sealgate.End:
		if e.HasFinal {
			x.add("stream:end-final")
		}
		if a == nil || a.phase != live || anomalous {
			break
		}
		if c := a.call(e.Item); c != nil && !c.tooLarge {
			if e.HasFinal && bytes.Equal(e.Final, c.buf) {
				x.add("stream:end-final-match")
			}
			if len(c.buf) == 0 {
				x.add("stream:call-no-bytes")
			}
		}
	case sealgate.Close:
		x.add("status:" + e.Status.String())
		if a != nil && a.phase != ended {
			a.phase = ended
		}
	case sealgate.Ack:
		x.ack(e)
	case sealgate.Restart:
		if x.liveCount() > 0 {
			x.add("stream:restart-mid-stream")
		}
		x.attempts = nil
		for _, k := range x.ledger {
			k.beforeRestart = true
		}
	}
	// Poisoning, after the event's own bookkeeping: the anomaly names the
	// attempt it poisons.
	for _, d := range ds {
		if d.Kind == sealgate.Anomaly && poisons[d.Anomaly] {
			if p := x.find(d.Attempt); p != nil && p.phase == live {
				p.phase = dead
			}
		}
	}
}

func (x *extractor) open(e sealgate.Event, a *attemptRec, anomalous bool) {
	if a != nil || anomalous {
		return // reopen: opens and supersedes nothing (poisoning below)
	}
	n := &attemptRec{id: e.Attempt, turn: e.Turn}
	for _, old := range x.attempts {
		if old.turn != e.Turn {
			continue
		}
		switch old.phase {
		case live:
			old.phase = ended
			n.superseded = append(n.superseded, old)
			n.regeneration = true
			x.add("supersede")
			if x.supersedes[e.Turn]++; x.supersedes[e.Turn] >= 2 {
				x.add("supersede:chain")
			}
		case dead:
			x.add("supersede:dead-not-superseded")
		}
	}
	x.attempts = append(x.attempts, n)
	if x.liveCount() >= 2 {
		x.add("stream:two-live-attempts")
	}
}

// decision notes what one decision shows, before the event's bookkeeping.
func (x *extractor) decision(e sealgate.Event, anomalous bool, d sealgate.Decision) {
	if d.Kind == sealgate.Refused {
		return
	}
	x.add("decision:" + d.Kind.String())
	a := x.find(d.Attempt)
	var c *callRec
	if a != nil {
		c = a.call(d.Item)
	}
	switch d.Kind {
	case sealgate.Reject:
		x.add("reason:" + string(d.Reason))
		if c != nil {
			c.decided = true
			if d.Reason == sealgate.TooLarge {
				c.tooLarge = true
			}
		}
		switch d.Reason {
		case sealgate.TooLarge:
			x.add("limit:call-bytes-hit")
		case sealgate.TooDeep:
			x.add("limit:depth-hit")
		}
	case sealgate.Anomaly:
		x.add("anomaly:" + string(d.Anomaly))
		switch d.Anomaly {
		case sealgate.TurnTooLarge:
			x.add("limit:turn-bytes-hit")
			if a != nil && a.regeneration {
				x.add("supersede:regeneration-at-budget")
			}
		case sealgate.TooManyCalls:
			x.add("limit:calls-hit")
		}
	case sealgate.Release:
		if c != nil {
			c.decided = true
		}
		if a != nil {
			if a.releases++; a.releases >= 2 {
				x.add("keys:two-in-one-attempt")
			}
		}
		k := x.ledger[d.Key]
		if k == nil {
			k = &ledgerKey{}
			x.ledger[d.Key] = k
		}
		if len(x.ledger) >= 2 {
			x.add("keys:two-released")
		}
		if k.failed {
			x.add("ack:fail-rereleased")
		}
		k.intent, k.beforeRestart = true, false
	case sealgate.Reconcile:
		if c != nil {
			c.decided = true
		}
		if k := x.ledger[d.Key]; k != nil {
			if k.reconciles++; k.reconciles >= 2 {
				x.add("keys:reconcile-shared")
			}
		}
	case sealgate.Compensate:
		if e.Kind == sealgate.Open && !anomalous { // not a reopen's poisoning
			x.add("supersede:compensate")
		}
	case sealgate.PreviewAnswer:
		p := d.Preview
		switch {
		case p.Bytes > x.cfg.Limits.PreviewBytes:
			x.add("limit:preview-bytes-hit")
		case p.Bytes == x.cfg.Limits.PreviewBytes:
			x.add("limit:preview-bytes-edge")
		}
		if strings.Contains(p.Value, `"[redacted]"`) {
			x.add("secret:peek-redacted")
		}
		if p.Bytes == 0 && p.Value == "-" {
			x.add("stream:peek-empty")
		}
	}
}

func (x *extractor) ack(e sealgate.Event) {
	k := x.ledger[e.Key]
	if k == nil || !k.intent {
		return // unknown-ack: the model's anomaly says so
	}
	if k.beforeRestart {
		x.add("ack:after-restart")
	}
	if e.OK {
		x.add("ack:ok")
		k.intent = false // done
		return
	}
	x.add("ack:fail")
	for other, o := range x.ledger {
		if other != e.Key && o.intent {
			x.add("ack:fail-second-key-held")
			break
		}
	}
	k.intent, k.failed = false, true
}

// splitsRune reports whether b ends inside a UTF-8 sequence: its last lead
// byte announces more bytes than follow it.
func splitsRune(b []byte) bool {
	for i := len(b) - 1; i >= 0 && i >= len(b)-3; i-- {
		c := b[i]
		if c < 0x80 {
			return false
		}
		if c >= 0xC0 { // a lead byte
			need := 2
			switch {
			case c >= 0xF0:
				need = 4
			case c >= 0xE0:
				need = 3
			}
			return len(b)-i < need && !utf8.FullRune(b[i:])
		}
	}
	return false
}

// insideEscape reports whether b ends inside a string's backslash escape
// (after the backslash, or within the four hex digits of \u).
func insideEscape(b []byte) bool {
	inString := false
	for i := 0; i < len(b); i++ {
		c := b[i]
		if !inString {
			inString = c == '"'
			continue
		}
		switch c {
		case '"':
			inString = false
		case '\\':
			if i == len(b)-1 {
				return true
			}
			if b[i+1] == 'u' {
				if len(b)-(i+2) < 4 {
					return true
				}
				i += 5
			} else {
				i++
			}
		}
	}
	return false
}
