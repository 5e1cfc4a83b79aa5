// Package partial reads the preview of one streamed tool call (SPEC section
// 8) incrementally: a push-down state machine consumes each raw byte once, so
// feeding a call and peeking costs O(bytes + peeks × preview size) instead of a
// re-parse of the buffer per delta.
//
// The parser keeps the compacted text it has accepted in out and a mark,
// shown, that ends the part of out a preview may show. Everything after the
// mark is tentative (a comma, a member name and colon, a number that may still
// grow, a literal, an unfinished escape or UTF-8 sequence) and becomes visible
// only when the value it belongs to has something to show. A snapshot is
// out[:shown], a closing quote for an open string value, and the closers of the
// open containers. After the first violation the state is frozen, so the
// snapshot is exactly the value of the longest viable prefix P.
package partial

import (
	"encoding/binary"
	"math/big"
	"math/bits"
	"strings"
	"unicode/utf8"
)

// redacted replaces a secret field's value from its first byte on.
const redacted = `"[redacted]"`

// What the innermost level expects next, outside any token.
const (
	ctxTopValue = iota // top level, before the value
	ctxTopDone         // top level, after the value: only whitespace
	ctxArrFirst        // after '[': a value or ']'
	ctxArrValue        // after ',': a value
	ctxArrAfter        // after an element: ',' or ']'
	ctxObjFirst        // after '{': a name or '}'
	ctxObjName         // after ',': a name
	ctxObjColon        // after a name: ':'
	ctxObjValue        // after ':': a value
	ctxObjAfter        // after a member: ',' or '}'
)

// The token being read.
const (
	tokNone = iota
	tokString
	tokNumber
	tokLiteral
)

// Inside a string.
const (
	strNormal = iota
	strUTF8   // inside a multi-byte sequence
	strEscape // after '\'
	strHex    // in \uXXXX
	strWantBS // a high-surrogate escape was read: its low half must follow
	strWantU  // ... after its '\'
	strLowHex // in the low half's hex digits

	// strCut: a value string's character was cut by the end of a Write;
	// its bytes so far, a viable start (cutPrefix), are out[shown:].
	strCut
)

// Inside a number.
const (
	numMinus = iota // '-' read: a digit must follow
	numZero         // integer part "0": no more integer digits
	numInt
	numDot // '.' read: a digit must follow
	numFrac
	numE     // 'e' read: sign or digit
	numESign // exponent sign read: a digit must follow
	numExp
)

// overflowDigits are the decimal digits of 2^1024 - 2^970, the smallest value
// that rounds to +Inf under round-to-nearest-even (MaxFloat64 plus half an
// ulp; the tie goes to the even neighbour, which is Inf). A decimal 0.d1d2... ×
// 10^e overflows iff e > len or (e == len and d1d2... >= these digits).
var overflowDigits = func() []byte {
	t := new(big.Int).Lsh(big.NewInt(1), 1024)
	t.Sub(t, new(big.Int).Lsh(big.NewInt(1), 970))
	return []byte(t.String())
}()

// smallObject is the number of names an object checks for duplicates by
// linear search before it switches to a map.
const smallObject = 16

// nameRef locates one name in Parser.arena.
type nameRef struct{ off, end int }

// frame is one open array or object, or (at index 0) the top level.
type frame struct {
	obj    bool
	ctx    uint8
	hidden bool                // inside a secret value: nothing of it is output
	refs   int                 // index in Parser.refs of this object's first name
	names  map[string]struct{} // all member names, once there are more than smallObject
	level  int                 // the secret-path step this object's names are matched against
	paths  []int               // secret paths whose earlier steps lead to this object
	secret bool                // the current member is a secret field
	child  []int               // secret paths continuing into the current member's value
}

// Parser reads one call's preview. The zero value is not usable: call New.
type Parser struct {
	depth   int
	left    int // bytes still read before the preview cap
	secrets [][]string
	all     []int // indices of the non-empty secret paths

	stopped  bool // a violation was seen or the cap reached: bytes are ignored
	violated bool
	retired  bool // Recycle gave its buffer away: it shows and sends nothing

	stack  []frame
	out    []byte
	shown  int
	redact int // stack index of the object whose secret member's value is being read, or -1

	redactedAt []int // offsets in out of the "[redacted]" markers, for watchers

	tok uint8

	// string
	strAt  int // offset in out of the open value string's quote
	sName  bool
	sState uint8
	need   int
	lo, hi byte
	cp     rune
	hex    rune
	nhex   int
	high   rune
	name   []byte // the unescaped name being read

	// The unescaped names of the open objects with at most smallObject
	// names, as a stack: an object's names sit above its parent's and are
	// dropped when it closes, so small objects cost no allocation.
	arena []byte
	refs  []nameRef

	// number
	nState  uint8
	seenSig bool
	e10     int64 // the value is 0.sig × 10^(e10 ± exp)
	exp     int64
	expNeg  bool
	sig     []byte // leading significant digits, at most len(overflowDigits)
	sigGE   bool   // sig >= overflowDigits, fixed when the mantissa ends

	// literal
	lit  string
	litI int
}

// New returns a parser for one call. depth is the depth limit ({} has depth
// 1), capBytes the preview-bytes limit, secrets the secret paths as
// sealgate.SecretPath returns them.
func New(depth, capBytes int, secrets [][]string) *Parser {
	p := &Parser{depth: depth, left: capBytes, secrets: secrets, redact: -1}
	for i, s := range secrets {
		if len(s) > 0 {
			p.all = append(p.all, i)
		}
	}
	p.stack = append(p.stack, frame{ctx: ctxTopValue})
	if capBytes <= 0 {
		p.stopped = true
	}
	return p
}

// Reuse gives a new parser an emptied buffer (from Recycle) to fill, so that
// a stream of long calls grows one preview buffer instead of one each. It
// does nothing once the parser has output.
func (p *Parser) Reuse(b []byte) {
	if len(p.out) == 0 && cap(b) > cap(p.out) {
		p.out = b[:0]
	}
}

// Recycle retires the parser and hands over its output buffer, emptied.
// The parser shows nothing from then on and ignores further writes, so a
// watcher or snapshot left behind can never read the bytes the buffer's
// next owner writes.
func (p *Parser) Recycle() []byte {
	b := p.out[:0]
	p.out, p.shown, p.redactedAt = nil, 0, nil
	p.stopped, p.retired = true, true
	return b
}

// Write feeds the call's next raw fragment. Bytes after the first violation
// or past the cap are ignored.
func (p *Parser) Write(b []byte) {
	if p.stopped {
		return
	}
	if len(b) >= p.left {
		b = b[:p.left]
		p.stopped = true
	}
	p.left -= len(b)
	// A byte emits at most one byte, but a secret's first byte emits the
	// marker in its stead; reserve room so out grows by doubling.
	p.out = Reserve(p.out, 2*len(b)+len(redacted), 0)
	i := 0
	if p.sState == strCut {
		i = p.finishChar(b)
	}
	for ; i < len(b); i++ {
		if p.tok == tokString && p.sState == strNormal {
			// Fast path: a run of plain ASCII string content, and in a
			// value string also whole escapes and runes, copied at once.
			j := plainRun(b, i)
			if p.sName {
				if p.redact < 0 {
					p.out = append(p.out, b[i:j]...)
				}
				p.name = append(p.name, b[i:j]...)
			} else {
				for j < len(b) {
					n := wholeChar(b[j:])
					if n == 0 {
						break
					}
					j = plainRun(b, j+n)
				}
				if p.redact < 0 {
					p.out = append(p.out, b[i:j]...)
					p.shown = len(p.out)
					if j < len(b) && cutPrefix(b[j:]) {
						// A character cut by the end of b: keep its
						// start, unseen, for finishChar to complete.
						p.out = append(p.out, b[j:]...)
						p.sState = strCut
						return
					}
				}
			}
			i = j
			if i == len(b) {
				break
			}
		}
		if !p.step(b[i]) {
			p.stopped, p.violated = true, true
			return
		}
	}
}

// finishChar goes on with a character that the last Write cut (state
// strCut; its bytes so far are out[shown:]). When b completes it and the
// whole is valid, it appends the rest and returns how many bytes of b that
// took; when b is too short to complete it, it appends all of b, which
// cutPrefix has checked. Otherwise the character is invalid: it hands the
// bytes so far back to step, which takes them without complaint (they are a
// viable start) and is left to find the violation in b, from byte 0 on.
func (p *Parser) finishChar(b []byte) int {
	var c [12]byte // the longest character: a surrogate pair's two escapes
	k := copy(c[:], p.out[p.shown:])
	m := copy(c[k:], b)
	if n := wholeChar(c[:k+m]); n > k {
		p.out = append(p.out, b[:n-k]...)
		p.sState = strNormal
		p.shown = len(p.out)
		return n - k
	}
	if m == len(b) && cutPrefix(c[:k+m]) {
		p.out = append(p.out, b...)
		return len(b)
	}
	p.out = p.out[:p.shown]
	p.sState = strNormal
	for _, x := range c[:k] {
		if !p.step(x) { // cannot happen: cutPrefix took these bytes
			p.stopped, p.violated = true, true
			return len(b)
		}
	}
	return 0
}

// cutPrefix reports whether c, which starts with no whole valid character
// (wholeChar(c) == 0), is the start of one that later bytes can complete:
// what step would accept of c without yet ending the character.
func cutPrefix(c []byte) bool {
	switch {
	case len(c) == 0 || len(c) >= 12:
		return false
	case c[0] >= 0x80:
		// FullRune is false exactly for a UTF-8 start whose bytes so far are
		// in range; a completion that is not a noncharacter is always left
		// (those are at most 32 in a row, and the last byte has 64 values).
		return !utf8.FullRune(c)
	case c[0] != '\\':
		return false
	case len(c) == 1:
		return true
	case c[1] != 'u':
		return false // a short escape is whole at two bytes
	}
	v, k, ok := hexPrefix(c[2:min(len(c), 6)])
	switch {
	case !ok || (k > 0 && !hexViable(v, k, false, 0)):
		return false
	case k < 4:
		return true
	case v < 0xD800 || v > 0xDBFF:
		return false // whole at six bytes: wholeChar would have taken it
	}
	rest := c[6:]
	switch {
	case len(rest) == 0:
		return true
	case rest[0] != '\\':
		return false
	case len(rest) == 1:
		return true
	case rest[1] != 'u':
		return false
	}
	lo, k, ok := hexPrefix(rest[2:])
	return ok && (k == 0 || hexViable(lo, k, true, v))
}

// hexPrefix reads the hex digits that make up all of b (at most four
// bytes): their value, their count, and false if b holds anything else.
func hexPrefix(b []byte) (rune, int, bool) {
	var v rune
	for _, x := range b {
		d := hexVal(x)
		if d < 0 {
			return 0, 0, false
		}
		v = v<<4 | d
	}
	return v, len(b), true
}

// plainRun returns the index of the first byte at or after i that is not
// plainASCII (len(b) if none). Long file text is mostly plain, so it tests
// eight bytes at a time first.
func plainRun(b []byte, i int) int {
	for i+8 <= len(b) {
		if bad := notPlain(binary.LittleEndian.Uint64(b[i:])); bad != 0 {
			return i + bits.TrailingZeros64(bad)/8
		}
		i += 8
	}
	for i < len(b) && plainASCII[b[i]] {
		i++
	}
	return i
}

// ones has 1 in every byte: ones*c repeats c in all eight.
const ones = 0x0101010101010101

// EscapeBytes sets the top bit of the lowest byte of x (a little-endian load
// of eight string bytes) that a JSON string cannot hold as it is, one below
// 0x20, '"' or '\\', and maybe of higher bytes: zero means there is none. It
// is the classic word-at-a-time test: (x - ones*n) &^ x flags a byte below n
// (n <= 0x80), a byte equal to c is a zero byte of x ^ ones*c, and a borrow
// only ever runs upwards, so the lowest flag is exact. The seal's canonical
// form uses it too.
func EscapeBytes(x uint64) uint64 {
	const top = ones * 0x80
	below := (x - ones*0x20) &^ x
	quote := x ^ (ones * '"')
	slash := x ^ (ones * '\\')
	return (below | (quote-ones)&^quote | (slash-ones)&^slash) & top
}

// notPlain is EscapeBytes that also flags bytes past ASCII, which the
// string fast path leaves to wholeChar.
func notPlain(x uint64) uint64 { return EscapeBytes(x) | x&(ones*0x80) }

// plainASCII marks the bytes a string's fast path copies as they are:
// printable ASCII but the quote and the backslash.
var plainASCII = func() (t [256]bool) {
	for c := 0x20; c < 0x80; c++ {
		t[c] = c != '"' && c != '\\'
	}
	return t
}()

// Snapshot returns the preview value of what has been written so far, or
// "-" when nothing is readable yet.
func (p *Parser) Snapshot() string {
	if p.shown == 0 {
		return "-"
	}
	var b strings.Builder
	b.Grow(p.shown + len(p.stack))
	b.Write(p.out[:p.shown])
	if p.tok == tokString && !p.sName && p.redact < 0 {
		b.WriteByte('"')
	}
	for i := len(p.stack) - 1; i > 0; i-- {
		f := &p.stack[i]
		if f.hidden {
			continue
		}
		if f.obj {
			b.WriteByte('}')
		} else {
			b.WriteByte(']')
		}
	}
	return b.String()
}

// Reserve returns b with room for n more bytes. It grows by doubling, not
// by append's 1.25x for large slices, which made a long stream copy its
// buffers about five times over; limit (when > 0) bounds the new capacity
// when that still leaves room for n.
func Reserve(b []byte, n, limit int) []byte {
	if cap(b)-len(b) >= n {
		return b
	}
	c := max(2*cap(b), len(b)+n, 64)
	if limit > 0 && c > limit {
		c = max(limit, len(b)+n)
	}
	nb := make([]byte, len(b), c)
	copy(nb, b)
	return nb
}

// emit appends an accepted byte to the compacted text unless it belongs to a
// secret value.
func (p *Parser) emit(c byte) {
	if p.redact < 0 {
		p.out = append(p.out, c)
	}
}

func isWS(c byte) bool    { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }
func isDigit(c byte) bool { return c >= '0' && c <= '9' }

// step consumes one byte; false means the byte is a violation (and nothing
// visible has changed).
func (p *Parser) step(c byte) bool {
	switch p.tok {
	case tokString:
		return p.stepString(c)
	case tokNumber:
		return p.stepNumber(c)
	case tokLiteral:
		return p.stepLiteral(c)
	}
	return p.stepNone(c)
}

func (p *Parser) stepNone(c byte) bool {
	if isWS(c) {
		return true
	}
	f := &p.stack[len(p.stack)-1]
	switch f.ctx {
	case ctxTopValue, ctxArrValue, ctxObjValue:
		return p.beginValue(c)
	case ctxArrFirst:
		if c == ']' {
			p.closeContainer()
			return true
		}
		return p.beginValue(c)
	case ctxObjFirst, ctxObjName:
		if c == '}' && f.ctx == ctxObjFirst {
			p.closeContainer()
			return true
		}
		if c != '"' {
			return false
		}
		p.beginString(true)
		p.emit(c)
		return true
	case ctxObjColon:
		if c != ':' {
			return false
		}
		f.ctx = ctxObjValue
		p.emit(c)
		return true
	case ctxArrAfter, ctxObjAfter:
		switch {
		case c == ',':
			if f.obj {
				f.ctx = ctxObjName
			} else {
				f.ctx = ctxArrValue
			}
			p.emit(c)
			return true
		case c == '}' && f.obj, c == ']' && !f.obj:
			p.closeContainer()
			return true
		}
	}
	return false
}

// beginValue starts the value whose first byte is c.
func (p *Parser) beginValue(c byte) bool {
	switch {
	case c == '{' || c == '[':
		if len(p.stack)-1 >= p.depth {
			return false
		}
	case c == '"', c == '-', isDigit(c), c == 't', c == 'f', c == 'n':
	default:
		return false
	}
	top := len(p.stack) - 1
	f := &p.stack[top]
	if f.ctx == ctxObjValue && f.secret && p.redact < 0 {
		p.redactedAt = append(p.redactedAt, len(p.out))
		p.out = append(p.out, redacted...)
		p.shown = len(p.out)
		p.redact = top
	}
	hidden := p.redact >= 0
	switch c {
	case '{', '[':
		g := frame{obj: c == '{', hidden: hidden, ctx: ctxArrFirst, refs: len(p.refs)}
		if g.obj {
			g.ctx = ctxObjFirst
			if !hidden {
				if top == 0 {
					g.paths = p.all
				} else if f.obj {
					g.paths, g.level = f.child, f.level+1
				}
			}
		}
		p.stack = append(p.stack, g)
		if !hidden {
			p.out = append(p.out, c)
			p.shown = len(p.out)
		}
	case '"':
		p.beginString(false)
		p.strAt = len(p.out)
		if !hidden {
			p.out = append(p.out, c)
			p.shown = len(p.out)
		}
	case 't':
		p.beginLiteral("true")
	case 'f':
		p.beginLiteral("false")
	case 'n':
		p.beginLiteral("null")
	default:
		p.tok = tokNumber
		p.seenSig, p.e10, p.exp, p.expNeg, p.sig = false, 0, 0, false, p.sig[:0]
		switch c {
		case '-':
			p.nState = numMinus
		case '0':
			p.nState = numZero
		default:
			p.nState = numInt
			p.intDigit(c)
		}
		p.emit(c)
	}
	return true
}

// endValue records that the innermost level's current value is complete.
func (p *Parser) endValue() {
	i := len(p.stack) - 1
	f := &p.stack[i]
	switch f.ctx {
	case ctxTopValue:
		f.ctx = ctxTopDone
	case ctxArrFirst, ctxArrValue:
		f.ctx = ctxArrAfter
	case ctxObjValue:
		f.ctx, f.secret, f.child = ctxObjAfter, false, nil
	}
	if p.redact == i {
		p.redact = -1
	}
	if p.redact < 0 {
		p.shown = len(p.out)
	}
}

func (p *Parser) closeContainer() {
	n := len(p.stack) - 1
	g := p.stack[n]
	p.stack[n] = frame{}
	p.stack = p.stack[:n]
	if g.refs < len(p.refs) {
		p.arena = p.arena[:p.refs[g.refs].off]
		p.refs = p.refs[:g.refs]
	}
	if !g.hidden {
		if g.obj {
			p.out = append(p.out, '}')
		} else {
			p.out = append(p.out, ']')
		}
	}
	p.endValue()
}

// --- literals ---

func (p *Parser) beginLiteral(lit string) {
	p.tok, p.lit, p.litI = tokLiteral, lit, 1
	p.emit(lit[0])
}

func (p *Parser) stepLiteral(c byte) bool {
	if c != p.lit[p.litI] {
		return false
	}
	p.emit(c)
	if p.litI++; p.litI == len(p.lit) {
		p.tok = tokNone
		p.endValue()
	}
	return true
}

// --- numbers ---

func (p *Parser) addSig(c byte) {
	if len(p.sig) < len(overflowDigits) {
		p.sig = append(p.sig, c)
	}
}

func (p *Parser) intDigit(c byte) {
	if p.seenSig {
		p.e10++
		p.addSig(c)
	} else if c != '0' {
		p.seenSig, p.e10 = true, 1
		p.addSig(c)
	}
}

func (p *Parser) fracDigit(c byte) {
	if p.seenSig {
		p.addSig(c)
	} else if c == '0' {
		p.e10--
	} else {
		p.seenSig = true
		p.addSig(c)
	}
}

// mantissaEnd fixes the comparison of the significant digits with the
// overflow threshold, once per number.
func (p *Parser) mantissaEnd() {
	p.sigGE = true
	for i, t := range overflowDigits {
		s := byte('0')
		if i < len(p.sig) {
			s = p.sig[i]
		}
		if s != t {
			p.sigGE = s > t
			break
		}
	}
}

// overflows reports whether the number read so far rounds to ±Inf.
func (p *Parser) overflows() bool {
	if !p.seenSig {
		return false
	}
	e := p.e10 + p.exp
	if p.expNeg {
		e = p.e10 - p.exp
	}
	if n := int64(len(overflowDigits)); e != n {
		return e > n
	}
	return p.sigGE
}

func (p *Parser) expDigit(c byte) {
	if p.exp < 1<<40 { // saturate: anything this large decides alone
		p.exp = p.exp*10 + int64(c-'0')
	}
}

func (p *Parser) stepNumber(c byte) bool {
	switch p.nState {
	case numMinus:
		switch {
		case c == '0':
			p.nState = numZero
		case isDigit(c):
			p.nState = numInt
			p.intDigit(c)
		default:
			return false
		}
	case numZero, numInt, numFrac:
		switch {
		case isDigit(c):
			if p.nState == numZero {
				return false // leading zero
			}
			if p.nState == numInt {
				p.intDigit(c)
			} else {
				p.fracDigit(c)
			}
		case c == '.' && p.nState != numFrac:
			p.nState = numDot
		case c == 'e' || c == 'E':
			p.mantissaEnd()
			p.nState = numE
		default:
			p.mantissaEnd()
			return p.finishNumber(c)
		}
	case numDot:
		if !isDigit(c) {
			return false
		}
		p.nState = numFrac
		p.fracDigit(c)
	case numE:
		switch {
		case c == '+':
			if p.overflows() { // every exponent from 0 up overflows
				return false
			}
			p.nState = numESign
		case c == '-':
			p.expNeg = true
			p.nState = numESign
		case isDigit(c):
			p.expDigit(c)
			if p.overflows() {
				return false
			}
			p.nState = numExp
		default:
			return false
		}
	case numESign, numExp:
		if !isDigit(c) {
			if p.nState == numESign {
				return false
			}
			return p.finishNumber(c)
		}
		p.expDigit(c)
		if !p.expNeg && p.overflows() { // more digits only grow it
			return false
		}
		p.nState = numExp
	}
	p.emit(c)
	return true
}

// finishNumber handles the byte c after a number that can end here: the
// number is complete only if it is finite and c may follow a value.
func (p *Parser) finishNumber(c byte) bool {
	if p.overflows() {
		return false
	}
	switch {
	case isWS(c):
	case len(p.stack) == 1:
		return false
	case c == ',':
	case c == '}' && p.stack[len(p.stack)-1].obj, c == ']' && !p.stack[len(p.stack)-1].obj:
	default:
		return false
	}
	p.tok = tokNone
	p.endValue()
	return p.stepNone(c)
}

// --- strings ---

func (p *Parser) beginString(name bool) {
	p.tok, p.sName, p.sState = tokString, name, strNormal
	if name {
		p.name = p.name[:0]
	}
}

// inValueString reports whether the value string whose opening quote is at
// out[at] is still open: out holds none of its closing quote yet.
func (p *Parser) inValueString(at int) bool {
	return p.tok == tokString && !p.sName && p.strAt == at
}

// progress marks a string value's completed character as visible.
func (p *Parser) progress() {
	if !p.sName && p.redact < 0 {
		p.shown = len(p.out)
	}
}

func (p *Parser) nameByte(c byte) {
	if p.sName {
		p.name = append(p.name, c)
	}
}

func (p *Parser) nameRune(r rune) {
	if p.sName {
		p.name = utf8.AppendRune(p.name, r)
	}
}

func hexVal(c byte) rune {
	switch {
	case c >= '0' && c <= '9':
		return rune(c - '0')
	case c >= 'a' && c <= 'f':
		return rune(c-'a') + 10
	case c >= 'A' && c <= 'F':
		return rune(c-'A') + 10
	}
	return -1
}

// hexViable reports whether an escape whose first k hex digits make v can
// still be completed: as a first escape it must not be a low surrogate or a
// noncharacter (a high surrogate can always be paired); as the low half after
// high it must be a low surrogate and the pair must not be a noncharacter.
func hexViable(v rune, k int, low bool, high rune) bool {
	shift := 4 * (4 - k)
	lo := v << shift
	hi := lo | (1<<shift - 1)
	if low {
		last := rune(0xDFFF)
		if (high-0xD800)&0x3F == 0x3F { // pairs ending in DFFE, DFFF are U+xFFFE, U+xFFFF
			last = 0xDFFD
		}
		return hi >= 0xDC00 && lo <= last
	}
	// Every completion a low surrogate, or every one a noncharacter
	// (U+FDD0..FDEF, U+FFFE..FFFF).
	return !(lo >= 0xDC00 && hi <= 0xDFFF) && !(lo >= 0xFDD0 && hi <= 0xFDEF) && !(lo >= 0xFFFE && hi <= 0xFFFF)
}

// wholeChar returns the length of the character b starts with, inside a
// string, when it is complete in b and strictly valid: a short escape, a
// \u escape (a surrogate pair whole), or a UTF-8 rune past ASCII, none of
// them a noncharacter. It returns 0 for anything else (a quote, a control
// byte, a violation, a cut character), which step then reads byte by
// byte, so a violation is still found at its first byte.
func wholeChar(b []byte) int {
	if b[0] != '\\' {
		switch {
		case b[0] < 0xC2:
			return 0 // ASCII, a continuation byte, or an overlong start
		case b[0] < 0xE0:
			// U+0080..U+07FF: two bytes, and no noncharacter among them
			if len(b) >= 2 && b[1]&0xC0 == 0x80 {
				return 2
			}
			return 0
		}
		r, n := utf8.DecodeRune(b)
		if r == utf8.RuneError || nonchar(r) {
			return 0 // a violation, or cut: step tells which
		}
		return n
	}
	if len(b) < 2 {
		return 0
	}
	if b[1] != 'u' {
		if shortEscape[b[1]] {
			return 2
		}
		return 0
	}
	r, ok := Hex4(b[2:])
	switch {
	case !ok || (r >= 0xDC00 && r <= 0xDFFF) || nonchar(r):
		return 0
	case r < 0xD800 || r > 0xDBFF:
		return 6
	}
	if len(b) < 12 || b[6] != '\\' || b[7] != 'u' {
		return 0
	}
	lo, ok := Hex4(b[8:])
	if !ok || lo < 0xDC00 || lo > 0xDFFF || nonchar(0x10000+(r-0xD800)<<10+(lo-0xDC00)) {
		return 0
	}
	return 12
}

// shortEscape marks the bytes that make a two-byte escape after '\\'.
var shortEscape = [256]bool{'"': true, '\\': true, '/': true, 'b': true, 'f': true, 'n': true, 'r': true, 't': true}

// Hex4 reads four hex digits at the start of b, by table; false if b is
// shorter or holds another byte. The seal's unescaping reads \u escapes
// with it too.
func Hex4(b []byte) (rune, bool) {
	if len(b) < 4 {
		return 0, false
	}
	d0, d1, d2, d3 := hexDigit[b[0]], hexDigit[b[1]], hexDigit[b[2]], hexDigit[b[3]]
	if (d0|d1|d2|d3)&notHex != 0 {
		return 0, false
	}
	return rune(d0)<<12 | rune(d1)<<8 | rune(d2)<<4 | rune(d3), true
}

// hexDigit is each byte's hex value, or notHex.
var hexDigit = func() (t [256]uint8) {
	for c := range t {
		t[c] = notHex
		if d := hexVal(byte(c)); d >= 0 {
			t[c] = uint8(d)
		}
	}
	return t
}()

const notHex = 0x10

func nonchar(r rune) bool { return r >= 0xFDD0 && r <= 0xFDEF || r&0xFFFE == 0xFFFE }

func (p *Parser) stepString(c byte) bool {
	switch p.sState {
	case strNormal:
		switch {
		case c == '"':
			p.emit(c)
			p.tok = tokNone
			if p.sName {
				return p.endName()
			}
			p.endValue()
			return true
		case c == '\\':
			p.sState = strEscape
		case c < 0x20:
			return false
		case c < 0x80:
			p.emit(c)
			p.nameByte(c)
			p.progress()
			return true
		case c >= 0xC2 && c <= 0xDF:
			p.need, p.lo, p.hi, p.cp = 1, 0x80, 0xBF, rune(c&0x1F)
		case c >= 0xE0 && c <= 0xEF:
			p.need, p.lo, p.hi, p.cp = 2, 0x80, 0xBF, rune(c&0x0F)
			if c == 0xE0 {
				p.lo = 0xA0 // overlong
			} else if c == 0xED {
				p.hi = 0x9F // surrogates
			}
		case c >= 0xF0 && c <= 0xF4:
			p.need, p.lo, p.hi, p.cp = 3, 0x80, 0xBF, rune(c&0x07)
			if c == 0xF0 {
				p.lo = 0x90 // overlong
			} else if c == 0xF4 {
				p.hi = 0x8F // past U+10FFFF
			}
		default:
			return false
		}
		if c >= 0x80 {
			p.sState = strUTF8
			p.nameByte(c)
		}
		p.emit(c)
		return true
	case strUTF8:
		if c < p.lo || c > p.hi {
			return false
		}
		p.cp = p.cp<<6 | rune(c&0x3F)
		p.lo, p.hi = 0x80, 0xBF
		if p.need--; p.need == 0 {
			if nonchar(p.cp) {
				return false
			}
			p.emit(c)
			p.nameByte(c)
			p.sState = strNormal
			p.progress()
			return true
		}
		p.emit(c)
		p.nameByte(c)
		return true
	case strEscape:
		var r rune
		switch c {
		case '"', '\\', '/':
			r = rune(c)
		case 'b':
			r = '\b'
		case 'f':
			r = '\f'
		case 'n':
			r = '\n'
		case 'r':
			r = '\r'
		case 't':
			r = '\t'
		case 'u':
			p.sState, p.hex, p.nhex = strHex, 0, 0
			p.emit(c)
			return true
		default:
			return false
		}
		p.emit(c)
		p.nameRune(r)
		p.sState = strNormal
		p.progress()
		return true
	case strHex, strLowHex:
		d := hexVal(c)
		if d < 0 {
			return false
		}
		v, k := p.hex<<4|d, p.nhex+1
		if !hexViable(v, k, p.sState == strLowHex, p.high) {
			return false
		}
		p.hex, p.nhex = v, k
		p.emit(c)
		if k < 4 {
			return true
		}
		if p.sState == strHex {
			if v >= 0xD800 && v <= 0xDBFF {
				p.high, p.sState = v, strWantBS
				return true
			}
			p.nameRune(v)
		} else {
			p.nameRune(0x10000 + (p.high-0xD800)<<10 + (v - 0xDC00))
		}
		p.sState = strNormal
		p.progress()
		return true
	case strWantBS:
		if c != '\\' {
			return false
		}
		p.sState = strWantU
	case strWantU:
		if c != 'u' {
			return false
		}
		p.sState, p.hex, p.nhex = strLowHex, 0, 0
	}
	p.emit(c)
	return true
}

// endName checks a completed member name for duplicates and matches it
// against the secret paths that reach this object.
func (p *Parser) endName() bool {
	f := &p.stack[len(p.stack)-1]
	if f.names != nil {
		if _, dup := f.names[string(p.name)]; dup {
			return false
		}
		f.names[string(p.name)] = struct{}{}
	} else {
		refs := p.refs[f.refs:]
		for _, r := range refs {
			if string(p.arena[r.off:r.end]) == string(p.name) {
				return false
			}
		}
		if len(refs) < smallObject {
			p.refs = append(p.refs, nameRef{len(p.arena), len(p.arena) + len(p.name)})
			p.arena = append(p.arena, p.name...)
		} else {
			f.names = make(map[string]struct{}, 2*smallObject)
			for _, r := range refs {
				f.names[string(p.arena[r.off:r.end])] = struct{}{}
			}
			f.names[string(p.name)] = struct{}{}
			p.arena = p.arena[:refs[0].off]
			p.refs = p.refs[:f.refs]
		}
	}
	f.ctx, f.secret, f.child = ctxObjColon, false, nil
	for _, i := range f.paths {
		path := p.secrets[i]
		if len(path) <= f.level || path[f.level] != string(p.name) {
			continue
		}
		if len(path) == f.level+1 {
			f.secret = true
		} else {
			f.child = append(f.child, i)
		}
	}
	return true
}
