package model

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/sealgate/sealgate"
)

// The model's strict JSON parser: plain recursive descent over bytes (SPEC
// section 5). It runs in two modes. Complete mode reads a whole argument
// text: running out of input is a violation. Partial mode reads a prefix of
// one (SPEC section 8): running out of input just stops, leaving the
// unfinished nodes marked not done.
//
// A violation is reported at the offset of the first byte that makes the
// text stop being the beginning of any strictly valid text, so in partial
// mode text[:offset] is exactly the longest viable prefix.

type kind uint8

const (
	kObject kind = iota + 1
	kArray
	kString
	kNumber
	kTrue
	kFalse
	kNull
)

// value is one node of the parse tree. A node exists as soon as its first
// byte has been read; done says whether its last byte has been too.
type value struct {
	kind    kind
	done    bool
	members []*member // kObject, in source order
	elems   []*value  // kArray
	raw     []byte    // kString: source bytes after the opening quote, complete units only
	str     string    // kString: the unescaped value of those units
	lit     string    // kNumber, kTrue, kFalse, kNull: the literal text read so far
}

// member is one object member. Its name is a string node; colon says the
// ':' has been read; val is nil until the value's first byte.
type member struct {
	name  *value
	colon bool
	val   *value
}

type violation struct {
	off    int
	reason sealgate.Reason
	what   string
}

func (v *violation) Error() string {
	return fmt.Sprintf("offset %d: %s", v.off, v.what)
}

type parser struct {
	b       []byte
	i       int
	limit   int  // depth limit
	partial bool // end of input stops the parse instead of violating
	viol    *violation
}

// parse reads b as described above. It returns the root node (nil when no
// value byte was read) and the first violation, if any.
func parse(b []byte, limit int, partial bool) (*value, *violation) {
	p := &parser{b: b, limit: limit, partial: partial}
	p.skipWS()
	if p.atEnd() {
		p.endOfInput()
		return nil, p.viol
	}
	root, ok := p.value(0)
	if !ok {
		return root, p.viol
	}
	p.skipWS()
	if !p.atEnd() {
		p.fail("text after the value")
	}
	return root, p.viol
}

func (p *parser) atEnd() bool { return p.i >= len(p.b) }

func (p *parser) skipWS() {
	for p.i < len(p.b) {
		switch p.b[p.i] {
		case ' ', '\t', '\n', '\r':
			p.i++
		default:
			return
		}
	}
}

// fail records a grammar violation at the current byte; it returns false so
// callers can write `return v, p.fail(...)`.
func (p *parser) fail(what string) bool {
	return p.failAt(p.i, sealgate.MalformedJSON, what)
}

func (p *parser) failAt(off int, r sealgate.Reason, what string) bool {
	if p.viol == nil {
		p.viol = &violation{off: off, reason: r, what: what}
	}
	return false
}

// endOfInput is what happens when a byte is needed and there is none.
func (p *parser) endOfInput() bool {
	if p.partial {
		return false
	}
	return p.fail("unexpected end of input")
}

// value reads one value; d is the depth of the container it sits in.
func (p *parser) value(d int) (*value, bool) {
	c := p.b[p.i]
	switch {
	case c == '{':
		return p.object(d)
	case c == '[':
		return p.array(d)
	case c == '"':
		return p.string()
	case c == '-' || (c >= '0' && c <= '9'):
		return p.number()
	case c == 't':
		return p.literal(kTrue, "true")
	case c == 'f':
		return p.literal(kFalse, "false")
	case c == 'n':
		return p.literal(kNull, "null")
	}
	return nil, p.fail("a value cannot start with this byte")
}

func (p *parser) object(d int) (*value, bool) {
	if d+1 > p.limit {
		return nil, p.failAt(p.i, sealgate.TooDeep, fmt.Sprintf("opening bracket past depth limit %d", p.limit))
	}
	v := &value{kind: kObject}
	p.i++
	p.skipWS()
	if p.atEnd() {
		return v, p.endOfInput()
	}
	if p.b[p.i] == '}' {
		p.i++
		v.done = true
		return v, true
	}
	names := map[string]bool{}
	for {
		if p.b[p.i] != '"' {
			return v, p.fail("expected a member name")
		}
		m := &member{}
		v.members = append(v.members, m)
		name, ok := p.string()
		m.name = name
		if !ok {
			return v, false
		}
		if names[name.str] {
			m.name = nil // the name is not viable: it is not part of the prefix
			return v, p.failAt(p.i-1, sealgate.MalformedJSON, "duplicate member name")
		}
		names[name.str] = true
		p.skipWS()
		if p.atEnd() {
			return v, p.endOfInput()
		}
		if p.b[p.i] != ':' {
			return v, p.fail("expected ':' after a member name")
		}
		p.i++
		m.colon = true
		p.skipWS()
		if p.atEnd() {
			return v, p.endOfInput()
		}
		val, ok := p.value(d + 1)
		m.val = val
		if !ok {
			return v, false
		}
		p.skipWS()
		if p.atEnd() {
			return v, p.endOfInput()
		}
		switch p.b[p.i] {
		case ',':
			p.i++
			p.skipWS()
			if p.atEnd() {
				return v, p.endOfInput()
			}
		case '}':
			p.i++
			v.done = true
			return v, true
		default:
			return v, p.fail("expected ',' or '}' after a member")
		}
	}
}

func (p *parser) array(d int) (*value, bool) {
	if d+1 > p.limit {
		return nil, p.failAt(p.i, sealgate.TooDeep, fmt.Sprintf("opening bracket past depth limit %d", p.limit))
	}
	v := &value{kind: kArray}
	p.i++
	p.skipWS()
	if p.atEnd() {
		return v, p.endOfInput()
	}
	if p.b[p.i] == ']' {
		p.i++
		v.done = true
		return v, true
	}
	for {
		e, ok := p.value(d + 1)
		if e != nil {
			v.elems = append(v.elems, e)
		}
		if !ok {
			return v, false
		}
		p.skipWS()
		if p.atEnd() {
			return v, p.endOfInput()
		}
		switch p.b[p.i] {
		case ',':
			p.i++
			p.skipWS()
			if p.atEnd() {
				return v, p.endOfInput()
			}
		case ']':
			p.i++
			v.done = true
			return v, true
		default:
			return v, p.fail("expected ',' or ']' after an element")
		}
	}
}

func (p *parser) literal(k kind, word string) (*value, bool) {
	v := &value{kind: k}
	for j := 0; j < len(word); j++ {
		if p.atEnd() {
			return v, p.endOfInput()
		}
		if p.b[p.i] != word[j] {
			return v, p.fail("invalid literal")
		}
		p.i++
		v.lit = word[:j+1]
	}
	v.done = true
	return v, true
}

// string reads a string starting at its opening quote. raw and str grow one
// complete unit (character or escape, a surrogate pair being one unit) at a
// time, so a cut string keeps exactly its complete prefix.
func (p *parser) string() (*value, bool) {
	v := &value{kind: kString}
	p.i++
	start := p.i
	var sb strings.Builder
	defer func() { v.str = sb.String() }()
	for {
		if p.atEnd() {
			return v, p.endOfInput()
		}
		c := p.b[p.i]
		switch {
		case c == '"':
			p.i++
			v.done = true
			return v, true
		case c == '\\':
			r, ok := p.escape()
			if !ok {
				return v, false
			}
			sb.WriteRune(r)
		case c < 0x20:
			return v, p.fail("control character in a string")
		case c < 0x80:
			sb.WriteByte(c)
			p.i++
		default:
			r, ok := p.utf8()
			if !ok {
				return v, false
			}
			sb.WriteRune(r)
		}
		v.raw = p.b[start:p.i]
	}
}

// escape reads one escape starting at its backslash. A high surrogate
// escape is read together with the low one that must follow it.
func (p *parser) escape() (rune, bool) {
	p.i++
	if p.atEnd() {
		return 0, p.endOfInput()
	}
	c := p.b[p.i]
	p.i++
	switch c {
	case '"', '\\', '/':
		return rune(c), true
	case 'b':
		return '\b', true
	case 'f':
		return '\f', true
	case 'n':
		return '\n', true
	case 'r':
		return '\r', true
	case 't':
		return '\t', true
	case 'u':
	default:
		p.i--
		return 0, p.fail("invalid escape")
	}
	hi, ok := p.hex4(ctxAlone)
	if !ok {
		return 0, false
	}
	if hi < 0xD800 || hi > 0xDBFF {
		return rune(hi), true
	}
	for _, want := range []byte{'\\', 'u'} {
		if p.atEnd() {
			return 0, p.endOfInput()
		}
		if p.b[p.i] != want {
			return 0, p.fail("high surrogate escape not followed by a low surrogate escape")
		}
		p.i++
	}
	ctx := ctxLow
	if hi&0x3F == 0x3F {
		ctx = ctxLowEnd
	}
	lo, ok := p.hex4(ctx)
	if !ok {
		return 0, false
	}
	return rune(0x10000 + (hi-0xD800)<<10 + (lo - 0xDC00)), true
}

// Contexts of a \uXXXX escape: alone, or the low half after a high
// surrogate (ctxLowEnd when that high surrogate is the last one of a plane,
// where the pair could spell U+xFFFE or U+xFFFF).
const (
	ctxAlone = iota
	ctxLow
	ctxLowEnd
)

// unitOK says whether a complete 4-digit escape is acceptable in ctx.
func unitOK(ctx int, u int) bool {
	switch ctx {
	case ctxAlone:
		if u >= 0xDC00 && u <= 0xDFFF {
			return false // a low surrogate alone
		}
		if u >= 0xD800 && u <= 0xDBFF {
			return true // a high one: a low one may follow
		}
		return !nonchar(rune(u))
	default:
		if u < 0xDC00 || u > 0xDFFF {
			return false
		}
		hi := 0xD800 + 0x3F // any high surrogate with the right low bits
		if ctx == ctxLow {
			hi = 0xD800
		}
		return !nonchar(rune(0x10000 + (hi-0xD800)<<10 + (u - 0xDC00)))
	}
}

// hexViable[ctx][n][x] says whether the n hex digits with value x can be
// completed to an acceptable escape: computed by brute force over unitOK.
var hexViable = func() (t [3][5][]bool) {
	for ctx := 0; ctx < 3; ctx++ {
		t[ctx][4] = make([]bool, 1<<16)
		for u := 0; u < 1<<16; u++ {
			t[ctx][4][u] = unitOK(ctx, u)
		}
		for n := 3; n >= 0; n-- {
			t[ctx][n] = make([]bool, 1<<(4*n))
			for x := range t[ctx][n] {
				for d := 0; d < 16; d++ {
					if t[ctx][n+1][x*16+d] {
						t[ctx][n][x] = true
						break
					}
				}
			}
		}
	}
	return t
}()

func (p *parser) hex4(ctx int) (int, bool) {
	x := 0
	for n := 1; n <= 4; n++ {
		if p.atEnd() {
			return 0, p.endOfInput()
		}
		c := p.b[p.i]
		var d int
		switch {
		case c >= '0' && c <= '9':
			d = int(c - '0')
		case c >= 'a' && c <= 'f':
			d = int(c-'a') + 10
		case c >= 'A' && c <= 'F':
			d = int(c-'A') + 10
		default:
			return 0, p.fail("invalid hex digit in a \\u escape")
		}
		x = x*16 + d
		if !hexViable[ctx][n][x] {
			return 0, p.fail("\\u escape spells a lone surrogate or a noncharacter")
		}
		p.i++
	}
	return x, true
}

// nonchar reports the Unicode noncharacters I-JSON forbids.
func nonchar(r rune) bool {
	return (r >= 0xFDD0 && r <= 0xFDEF) || r&0xFFFE == 0xFFFE
}

// utf8 reads one multi-byte UTF-8 sequence, checking each byte as it comes
// (RFC 3629 table: no overlongs, no surrogates, nothing past U+10FFFF).
func (p *parser) utf8() (rune, bool) {
	c := p.b[p.i]
	var n int
	var r rune
	lo, hi := byte(0x80), byte(0xBF) // range of the second byte
	switch {
	case c >= 0xC2 && c <= 0xDF:
		n, r = 1, rune(c&0x1F)
	case c == 0xE0:
		n, r, lo = 2, rune(c&0x0F), 0xA0
	case c >= 0xE1 && c <= 0xEC, c == 0xEE, c == 0xEF:
		n, r = 2, rune(c&0x0F)
	case c == 0xED:
		n, r, hi = 2, rune(c&0x0F), 0x9F
	case c == 0xF0:
		n, r, lo = 3, rune(c&0x07), 0x90
	case c >= 0xF1 && c <= 0xF3:
		n, r = 3, rune(c&0x07)
	case c == 0xF4:
		n, r, hi = 3, rune(c&0x07), 0x8F
	default:
		return 0, p.fail("invalid UTF-8 byte")
	}
	p.i++
	for k := 0; k < n; k++ {
		if p.atEnd() {
			return 0, p.endOfInput()
		}
		c := p.b[p.i]
		if k > 0 {
			lo, hi = 0x80, 0xBF
		}
		if c < lo || c > hi {
			return 0, p.fail("invalid UTF-8 continuation byte")
		}
		r = r<<6 | rune(c&0x3F)
		if k == n-1 && nonchar(r) {
			return 0, p.fail("noncharacter in a string")
		}
		p.i++
	}
	return r, true
}

// number reads a number by the RFC grammar. Its value must round to a
// finite float64: the mantissa can always be rescued by a negative
// exponent, so an overflow is found at the terminator, or at the exponent
// digit (or '+') from which no continuation can be finite.
func (p *parser) number() (*value, bool) {
	v := &value{kind: kNumber}
	start := p.i
	defer func() { v.lit = string(p.b[start:p.i]) }()
	digits := func() {
		for !p.atEnd() && p.b[p.i] >= '0' && p.b[p.i] <= '9' {
			p.i++
		}
	}
	needDigit := func() bool {
		if p.atEnd() {
			return p.endOfInput()
		}
		if p.b[p.i] < '0' || p.b[p.i] > '9' {
			return p.fail("expected a digit")
		}
		return true
	}
	if p.b[p.i] == '-' {
		p.i++
	}
	if !needDigit() {
		return v, false
	}
	if p.b[p.i] == '0' {
		p.i++
	} else {
		digits()
	}
	if !p.atEnd() && p.b[p.i] == '.' {
		p.i++
		if !needDigit() {
			return v, false
		}
		digits()
	}
	if !p.atEnd() && (p.b[p.i] == 'e' || p.b[p.i] == 'E') {
		_, mdigits, mscale := decimalOf(string(p.b[start:p.i]))
		p.i++
		if p.atEnd() {
			return v, p.endOfInput()
		}
		neg := false
		switch p.b[p.i] {
		case '-':
			neg = true
			p.i++
		case '+':
			if !finiteDecimal(mdigits, mscale) {
				return v, p.fail("number too large for a float64")
			}
			p.i++
		}
		if !needDigit() {
			return v, false
		}
		var e int64
		for !p.atEnd() && p.b[p.i] >= '0' && p.b[p.i] <= '9' {
			if e < 1e15 {
				e = e*10 + int64(p.b[p.i]-'0')
			}
			if !neg && !finiteDecimal(mdigits, mscale+e) {
				return v, p.fail("number too large for a float64")
			}
			p.i++
		}
	}
	if p.atEnd() && p.partial {
		return v, false // a number may still grow: not done
	}
	if _, ok := numberFloat(string(p.b[start:p.i])); !ok {
		return v, p.fail("number too large for a float64")
	}
	v.done = true
	return v, true
}

// finiteDecimal says whether digits × 10^scale rounds to a finite float64.
func finiteDecimal(digits string, scale int64) bool {
	_, ok := floatOf(false, digits, scale)
	return ok
}

// decimalOf splits a grammatical number literal into sign, significant
// digits (no leading or trailing zeros; empty for zero) and a scale, so
// that its value is ±digits × 10^scale. The scale saturates far beyond any
// float64 range, so it never overflows.
func decimalOf(lit string) (neg bool, digits string, scale int64) {
	s := lit
	if strings.HasPrefix(s, "-") {
		neg, s = true, s[1:]
	}
	mant, exp, _ := strings.Cut(strings.ToLower(s), "e")
	intPart, frac, _ := strings.Cut(mant, ".")
	digits = strings.TrimLeft(intPart+frac, "0")
	scale = -int64(len(frac))
	trimmed := strings.TrimRight(digits, "0")
	scale += int64(len(digits) - len(trimmed))
	digits = trimmed
	if exp != "" {
		eneg := false
		switch exp[0] {
		case '-':
			eneg, exp = true, exp[1:]
		case '+':
			exp = exp[1:]
		}
		var e int64
		for i := 0; i < len(exp); i++ {
			if e < 1e15 {
				e = e*10 + int64(exp[i]-'0')
			}
		}
		if eneg {
			e = -e
		}
		scale += e
	}
	return neg, digits, scale
}

// numberFloat returns the round-to-nearest float64 of a grammatical number
// literal, and whether it is finite. It does not trust strconv with huge
// exponents or digit strings: far-out magnitudes are decided directly, and
// long digit strings are cut to 800 digits plus a sticky digit, which
// keeps the rounding direction.
func numberFloat(lit string) (float64, bool) {
	return floatOf(decimalOf(lit))
}

// floatOf is numberFloat on a split literal.
func floatOf(neg bool, digits string, scale int64) (float64, bool) {
	sign := 1.0
	if neg {
		sign = -1
	}
	if digits == "" {
		return math.Copysign(0, sign), true
	}
	mag := int64(len(digits)) + scale // value in [10^(mag-1), 10^mag)
	if mag > 400 {
		return math.Inf(int(sign)), false
	}
	if mag < -400 {
		return math.Copysign(0, sign), true
	}
	if len(digits) > 800 {
		scale += int64(len(digits) - 801)
		digits = digits[:800] + "1" // the cut tail is not zero: trailing zeros were trimmed
	}
	// Written d.ddd so that strconv's decimal point is set by the dot:
	// without one, strconv misplaces it past 800 digits (it returns 1e-101
	// for "1" + 900 zeros + "e-900").
	exp := scale + int64(len(digits)) - 1
	f, _ := strconv.ParseFloat(digits[:1]+"."+digits[1:]+"e"+strconv.FormatInt(exp, 10), 64)
	return sign * f, !math.IsInf(f, 0)
}

// CheckJSON is the model's own strict parse (SPEC section 5 grammar, I-JSON,
// depth limit). It returns ("", nil) for a valid text; otherwise the reason
// of the first violation in the text and an error naming its byte offset
// and what was wrong, never quoting the text.
func CheckJSON(raw []byte, depth int) (sealgate.Reason, error) {
	_, viol := parse(raw, depth, false)
	if viol != nil {
		return viol.reason, viol
	}
	return "", nil
}
