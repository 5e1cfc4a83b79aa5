package protocol

import (
	"unicode/utf8"

	"github.com/sealgate/sealgate"
)

// decodeFast reads the lines both sides exchange for every event (event,
// decision, done and error lines) without reflection: the strict decoder's
// cost is most of a gate's and of sealfuzz's own CPU per stream. It reads
// only what it is sure the strict decoder reads the same way (compact
// objects of known members, each once; plain integers; strings whose only
// escapes are the short ones; valid UTF-8) and gives up (ok false) on
// anything else, so that Unmarshal's strict path keeps every rule and every
// error message. FuzzDecodeFast holds it to that.
func decodeFast(line []byte) (m *Message, ok bool) {
	s := scanner{b: line}
	box := new(messageBox)
	if !s.message(box) || s.i != len(s.b) {
		return nil, false
	}
	return &box.m, true
}

// messageBox is a message and the integers it may point to, in one
// allocation.
type messageBox struct {
	m           Message
	n, retained int
}

// scanner is a position in one line.
type scanner struct {
	b []byte
	i int
}

// members of Message, EventJSON, DecisionJSON and PreviewJSON, as bits, so
// that a repeated member is seen (the strict decoder refuses it).
const (
	mV = 1 << iota
	mType
	mN
	mLedger
	mEvent
	mName
	mDecision
	mRetained
	mText
)

func (s *scanner) message(box *messageBox) bool {
	m := &box.m
	seen := 0
	if !s.open() {
		return false
	}
	if s.take('}') {
		return true
	}
	for {
		name, ok := s.name()
		if !ok {
			return false
		}
		var bit int
		switch string(name) {
		case "v":
			bit, ok = mV, s.int(&m.V)
		case "type":
			bit, ok = mType, s.str(&m.Type)
		case "n":
			bit, m.N = mN, &box.n
			ok = s.int(m.N)
		case "ledger":
			bit, ok = mLedger, s.str(&m.Ledger)
		case "event":
			bit, m.Event = mEvent, new(EventJSON)
			ok = s.event(m.Event)
		case "name":
			bit, ok = mName, s.str(&m.Name)
		case "decision":
			bit, m.Decision = mDecision, new(DecisionJSON)
			ok = s.decision(m.Decision)
		case "retained":
			bit, m.Retained = mRetained, &box.retained
			ok = s.int(m.Retained)
		case "text":
			bit, ok = mText, s.str(&m.Text)
		default:
			return false // config, capabilities, or not a member: strict
		}
		if !ok || seen&bit != 0 {
			return false
		}
		seen |= bit
		if more, ok := s.next(); !ok || !more {
			return ok
		}
	}
}

const (
	eKind = 1 << iota
	eAttempt
	eTurn
	eItem
	eCall
	eTool
	eBytes64
	eFinal64
	eStatus
	eKey
	eOK
)

func (s *scanner) event(e *EventJSON) bool {
	seen := 0
	if !s.open() {
		return false
	}
	if s.take('}') {
		return true
	}
	for {
		name, ok := s.name()
		if !ok {
			return false
		}
		var bit int
		switch string(name) {
		case "kind":
			bit, ok = eKind, s.str(&e.Kind)
		case "attempt":
			bit, ok = eAttempt, s.str(&e.Attempt)
		case "turn":
			bit, ok = eTurn, s.str(&e.Turn)
		case "item":
			bit, ok = eItem, s.str(&e.Item)
		case "call":
			bit, ok = eCall, s.str(&e.Call)
		case "tool":
			bit, ok = eTool, s.str(&e.Tool)
		case "bytes64":
			bit, ok = eBytes64, s.str(&e.Bytes64)
		case "final64":
			bit, e.Final64 = eFinal64, new(string)
			ok = s.str(e.Final64)
		case "status":
			bit, ok = eStatus, s.str(&e.Status)
		case "key":
			bit, ok = eKey, s.str(&e.Key)
		case "ok":
			bit, e.OK = eOK, new(bool)
			ok = s.bool(e.OK)
		default:
			return false
		}
		if !ok || seen&bit != 0 {
			return false
		}
		seen |= bit
		if more, ok := s.next(); !ok || !more {
			return ok
		}
	}
}

const (
	dKind = 1 << iota
	dAttempt
	dItem
	dCall
	dTool
	dKey
	dArgs
	dArgs64
	dReason
	dAnomaly
	dPreview
)

func (s *scanner) decision(d *DecisionJSON) bool {
	seen := 0
	if !s.open() {
		return false
	}
	if s.take('}') {
		return true
	}
	for {
		name, ok := s.name()
		if !ok {
			return false
		}
		var bit int
		switch string(name) {
		case "kind":
			bit, ok = dKind, s.str(&d.Kind)
		case "attempt":
			bit, ok = dAttempt, s.str(&d.Attempt)
		case "item":
			bit, d.Item = dItem, new(string)
			ok = s.str(d.Item)
		case "call":
			bit, ok = dCall, s.str(&d.Call)
		case "tool":
			bit, ok = dTool, s.str(&d.Tool)
		case "key":
			bit, ok = dKey, s.str(&d.Key)
		case "args":
			bit, d.Args = dArgs, new(string)
			ok = s.str(d.Args)
		case "args64":
			bit, d.Args64 = dArgs64, new(string)
			ok = s.str(d.Args64)
		case "reason":
			bit, ok = dReason, s.str(&d.Reason)
		case "anomaly":
			bit, ok = dAnomaly, s.str(&d.Anomaly)
		case "preview":
			bit, d.Preview = dPreview, new(PreviewJSON)
			ok = s.preview(d.Preview)
		default:
			return false
		}
		if !ok || seen&bit != 0 {
			return false
		}
		seen |= bit
		if more, ok := s.next(); !ok || !more {
			return ok
		}
	}
}

func (s *scanner) preview(p *PreviewJSON) bool {
	const pBytes, pValue = 1, 2
	seen := 0
	if !s.open() {
		return false
	}
	if s.take('}') {
		return true
	}
	for {
		name, ok := s.name()
		if !ok {
			return false
		}
		var bit int
		switch string(name) {
		case "bytes":
			bit, ok = pBytes, s.int(&p.Bytes)
		case "value":
			bit, ok = pValue, s.str(&p.Value)
		default:
			return false
		}
		if !ok || seen&bit != 0 {
			return false
		}
		seen |= bit
		if more, ok := s.next(); !ok || !more {
			return ok
		}
	}
}

// take consumes c if it is next.
func (s *scanner) take(c byte) bool {
	if s.i < len(s.b) && s.b[s.i] == c {
		s.i++
		return true
	}
	return false
}

func (s *scanner) open() bool { return s.take('{') }

// next consumes what follows a member: more is true after a comma, false
// after the object's closing brace; ok is false for anything else.
func (s *scanner) next() (more, ok bool) {
	switch {
	case s.take(','):
		return true, true
	case s.take('}'):
		return false, true
	}
	return false, false
}

// name reads a member name and its colon. Only names of lower-case
// letters, digits and '_' are read here, as every member's is: an escape
// could spell a member's name another way, so it is the strict decoder's.
func (s *scanner) name() ([]byte, bool) {
	if !s.take('"') {
		return nil, false
	}
	start := s.i
	for s.i < len(s.b) {
		c := s.b[s.i]
		if c == '"' {
			name := s.b[start:s.i]
			s.i++
			return name, s.take(':')
		}
		if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '_') {
			return nil, false
		}
		s.i++
	}
	return nil, false
}

// maxDigits keeps an integer far inside int64, so that one the strict
// decoder would refuse as too large is never read here.
const maxDigits = 15

// int reads a non-negative integer in its shortest form.
func (s *scanner) int(v *int) bool {
	start := s.i
	n := 0
	for s.i < len(s.b) && s.b[s.i] >= '0' && s.b[s.i] <= '9' {
		n = n*10 + int(s.b[s.i]-'0')
		s.i++
	}
	digits := s.i - start
	if digits == 0 || digits > maxDigits || digits > 1 && s.b[start] == '0' {
		return false
	}
	*v = n
	return true
}

func (s *scanner) bool(v *bool) bool {
	rest := s.b[s.i:]
	switch {
	case len(rest) >= 4 && string(rest[:4]) == "true":
		*v, s.i = true, s.i+4
		return true
	case len(rest) >= 5 && string(rest[:5]) == "false":
		*v, s.i = false, s.i+5
		return true
	}
	return false
}

// str reads a string: raw bytes other than control characters, and the
// escapes \" \\ \/ \b \f \n \r \t. A \u escape (which may be half of a
// surrogate pair) is the strict decoder's, as is invalid UTF-8.
func (s *scanner) str(v *string) bool {
	if !s.take('"') {
		return false
	}
	start := s.i
	wide := false
	for s.i < len(s.b) {
		c := s.b[s.i]
		switch {
		case c == '"':
			raw := s.b[start:s.i]
			s.i++
			if wide && !utf8.Valid(raw) {
				return false
			}
			*v = word(raw)
			return true
		case c == '\\':
			return s.escaped(start, v)
		case c < 0x20:
			return false
		case c >= utf8.RuneSelf:
			wide = true
		}
		s.i++
	}
	return false
}

// escaped finishes a string that has an escape at s.i, begun at start.
func (s *scanner) escaped(start int, v *string) bool {
	out := make([]byte, 0, s.i-start+16)
	out = append(out, s.b[start:s.i]...)
	for s.i < len(s.b) {
		c := s.b[s.i]
		switch {
		case c == '"':
			s.i++
			// Escapes add only ASCII, which cannot complete or break a
			// UTF-8 sequence: the output is valid exactly when the input is.
			if !utf8.Valid(out) {
				return false
			}
			*v = string(out)
			return true
		case c == '\\':
			if s.i+1 >= len(s.b) {
				return false
			}
			switch e := s.b[s.i+1]; e {
			case '"', '\\', '/':
				out = append(out, e)
			case 'b':
				out = append(out, '\b')
			case 'f':
				out = append(out, '\f')
			case 'n':
				out = append(out, '\n')
			case 'r':
				out = append(out, '\r')
			case 't':
				out = append(out, '\t')
			default:
				return false
			}
			s.i += 2
			continue
		case c < 0x20:
			return false
		}
		out = append(out, c)
		s.i++
	}
	return false
}

// word is raw as a string, without an allocation for the words lines
// repeat: types, kinds and statuses.
func word(raw []byte) string {
	if len(raw) > len("disconnected") {
		return string(raw)
	}
	switch string(raw) {
	case TypeEvent:
		return TypeEvent
	case TypeDecision:
		return TypeDecision
	case TypeDone:
		return TypeDone
	case TypeError:
		return TypeError
	case "open":
		return "open"
	case "begin":
		return "begin"
	case "delta":
		return "delta"
	case "end":
		return "end"
	case "close":
		return "close"
	case "ack":
		return "ack"
	case "peek":
		return "peek"
	case "release":
		return "release"
	case "reject":
		return "reject"
	case "anomaly":
		return "anomaly"
	case "compensate":
		return "compensate"
	case "reconcile":
		return "reconcile"
	case "preview":
		return "preview"
	case "complete":
		return "complete"
	case "truncated":
		return "truncated"
	case "failed":
		return "failed"
	case "cancelled":
		return "cancelled"
	case "disconnected":
		return "disconnected"
	}
	return string(raw)
}

// DecodeEventLine reads an event line straight into its event: the n and
// event that Unmarshal and DecodeEvent give, without the message and its
// strings in between, because a gate reads one for every event. ok is
// false for any line it does not read exactly so (any other type, a
// member an event line does not take, what decodeFast leaves, bad base64,
// an unknown kind or status, an ack without ok), which the caller then
// reads through Unmarshal and DecodeEvent, with their errors.
// FuzzDecodeEventLine holds it to them.
func DecodeEventLine(line []byte) (n int, e sealgate.Event, ok bool) {
	s := scanner{b: line}
	var v int
	seen := 0
	if !s.open() || s.take('}') {
		return 0, e, false
	}
	for {
		name, ok := s.name()
		if !ok {
			return 0, e, false
		}
		var bit int
		switch string(name) {
		case "v":
			bit, ok = mV, s.int(&v)
		case "type":
			var raw []byte
			raw, ok = s.plain()
			bit, ok = mType, ok && string(raw) == TypeEvent
		case "n":
			bit, ok = mN, s.int(&n)
		case "event":
			bit, ok = mEvent, s.eventOf(&e)
		default:
			return 0, e, false
		}
		if !ok || seen&bit != 0 {
			return 0, e, false
		}
		seen |= bit
		more, ok := s.next()
		if !ok {
			return 0, e, false
		}
		if !more {
			break
		}
	}
	if s.i != len(s.b) || v != Version || seen != mV|mType|mN|mEvent {
		return 0, e, false
	}
	return n, e, true
}

// eventOf reads an event object into e as DecodeEvent would read its
// EventJSON, or reports false.
func (s *scanner) eventOf(e *sealgate.Event) bool {
	seen := 0
	if !s.open() || s.take('}') {
		return false // no kind: DecodeEvent's error
	}
	for {
		name, ok := s.name()
		if !ok {
			return false
		}
		var bit int
		switch string(name) {
		case "kind":
			var raw []byte
			raw, ok = s.plain()
			bit = eKind
			if ok {
				e.Kind, ok = sealgate.ParseEventKind(word(raw))
			}
		case "attempt":
			bit, ok = eAttempt, s.str(&e.Attempt)
		case "turn":
			bit, ok = eTurn, s.str(&e.Turn)
		case "item":
			bit, ok = eItem, s.str(&e.Item)
		case "call":
			bit, ok = eCall, s.str(&e.Call)
		case "tool":
			bit, ok = eTool, s.str(&e.Tool)
		case "bytes64":
			var raw []byte
			raw, ok = s.plain()
			bit = eBytes64
			if ok && len(raw) > 0 {
				e.Bytes, ok = decodeBase64(raw)
			}
		case "final64":
			var raw []byte
			raw, ok = s.plain()
			bit, e.HasFinal = eFinal64, true
			if ok {
				e.Final, ok = decodeBase64(raw)
			}
		case "status":
			var raw []byte
			raw, ok = s.plain()
			bit = eStatus
			if ok && len(raw) > 0 {
				e.Status, ok = sealgate.ParseStatus(word(raw))
			}
		case "key":
			bit, ok = eKey, s.str(&e.Key)
		case "ok":
			bit, ok = eOK, s.bool(&e.OK)
		default:
			return false
		}
		if !ok || seen&bit != 0 {
			return false
		}
		seen |= bit
		more, ok := s.next()
		if !ok {
			return false
		}
		if !more {
			break
		}
	}
	if seen&eKind == 0 || e.Kind == sealgate.Ack && seen&eOK == 0 {
		return false
	}
	return true
}

// plain reads a string of printable ASCII without escapes and returns its
// bytes in the line, for words and base64 that need no copy of their own.
func (s *scanner) plain() ([]byte, bool) {
	if !s.take('"') {
		return nil, false
	}
	start := s.i
	for s.i < len(s.b) {
		c := s.b[s.i]
		if c == '"' {
			raw := s.b[start:s.i]
			s.i++
			return raw, true
		}
		if c < 0x20 || c == '\\' || c >= utf8.RuneSelf {
			return nil, false
		}
		s.i++
	}
	return nil, false
}

// decodeBase64 is b64.DecodeString of raw, without the string.
func decodeBase64(raw []byte) ([]byte, bool) {
	out := make([]byte, b64.DecodedLen(len(raw)))
	n, err := b64.Decode(out, raw)
	return out[:n], err == nil
}
