package peers

import (
	"bytes"
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/sealgate/sealgate"
	"github.com/sealgate/sealgate/check"
)

// Reserialize judges an object API fairly. An SDK that hands a tool a parsed
// object cannot keep the call's bytes, so a release marked Object is
// compared as JavaScript would give it: JSON.parse of the call's bytes, then
// JSON.stringify. A release that is exactly that, yet differs from the
// bytes compacted, is given the call's own bytes back (so that I2, I7 and
// SEAL judge what the SDK meant, not how JavaScript prints it), and the
// difference comes back as an I2-reserialized violation naming what
// changed: member order, a number's digits, a duplicate name collapsed, a
// string's escapes. Judge reports it only when nothing else is broken.
func Reserialize(out Outcome) (Outcome, error) {
	var notes []string
	at := 0
	fixed := out
	copied := false
	for i, d := range out.Releases {
		if i >= len(out.Objects) || !out.Objects[i] {
			continue
		}
		src := callBytes(out.Meaning.Events, d.Attempt, d.Item, d.At)
		want := sealgate.Compact(src)
		if bytes.Equal(d.Args, want) {
			continue
		}
		js, diff, err := jsRoundTrip(src)
		if err != nil || !bytes.Equal(d.Args, js) {
			continue // not what JSON.parse and JSON.stringify make of the bytes: I2 proper
		}
		if !copied {
			fixed.Releases, copied = append([]sealgate.Decision(nil), out.Releases...), true
		}
		fixed.Releases[i].Args = want
		fixed.Releases[i].Key = releaseKey(d.Tool, want)
		if at == 0 {
			at = d.At
		}
		notes = append(notes, fmt.Sprintf("%s: the tool got %s, JSON.stringify of JSON.parse of the call's bytes %s: %s",
			d, strconv.Quote(string(js)), strconv.Quote(string(want)), strings.Join(diff, "; ")))
	}
	if len(notes) == 0 {
		return out, nil
	}
	return fixed, &check.Violation{ID: "I2-reserialized", Name: "exact bytes, reserialized", Event: at, Msg: strings.Join(notes, "\n")}
}

// callBytes is a call's fragments up to event at (1-based), as the check
// counts them.
func callBytes(events []sealgate.Event, attempt, item string, at int) []byte {
	var b []byte
	for i, ev := range events {
		if i+1 > at {
			break
		}
		if ev.Kind == sealgate.Delta && ev.Attempt == attempt && ev.Item == item {
			b = append(b, ev.Bytes...)
		}
	}
	return b
}

// jsRoundTrip is JSON.stringify(JSON.parse(src)) as ECMAScript defines
// them, with what the round trip changed; an error when JSON.parse would
// throw.
func jsRoundTrip(src []byte) ([]byte, []string, error) {
	p := &jsParser{src: src, seen: map[string]string{}}
	p.space()
	v, err := p.value(0)
	if err != nil {
		return nil, nil, err
	}
	p.space()
	if p.i != len(src) {
		return nil, nil, fmt.Errorf("byte %d: trailing bytes", p.i)
	}
	var w bytes.Buffer
	v.write(&w)
	var diff []string
	for _, k := range []string{"member order", "a number's digits", "a duplicate name collapsed", "a string's escapes"} {
		if ex, ok := p.seen[k]; ok {
			diff = append(diff, k+" ("+ex+")")
		}
	}
	return w.Bytes(), diff, nil
}

// jsValue is a value as JSON.parse makes it: strings as UTF-16 code
// units, numbers as doubles, object members in JavaScript's property order.
type jsValue struct {
	kind byte // '{', '[', '"', '0', 't', 'f', 'n'
	keys [][]uint16
	vals []*jsValue
	str  []uint16
	num  float64
}

const jsMaxDepth = 10000

type jsParser struct {
	src  []byte
	i    int
	seen map[string]string // what changed: its first example
}

func (p *jsParser) note(kind, example string) {
	if _, ok := p.seen[kind]; !ok {
		p.seen[kind] = example
	}
}

func (p *jsParser) space() {
	for p.i < len(p.src) {
		switch p.src[p.i] {
		case ' ', '\t', '\n', '\r':
			p.i++
		default:
			return
		}
	}
}

func (p *jsParser) fail(what string) error { return fmt.Errorf("byte %d: %s", p.i, what) }

func (p *jsParser) value(depth int) (*jsValue, error) {
	if depth > jsMaxDepth {
		return nil, p.fail("nested too deep")
	}
	if p.i >= len(p.src) {
		return nil, p.fail("unexpected end")
	}
	switch c := p.src[p.i]; {
	case c == '{':
		return p.object(depth)
	case c == '[':
		p.i++
		v := &jsValue{kind: '['}
		p.space()
		if p.i < len(p.src) && p.src[p.i] == ']' {
			p.i++
			return v, nil
		}
		for {
			p.space()
			e, err := p.value(depth + 1)
			if err != nil {
				return nil, err
			}
			v.vals = append(v.vals, e)
			p.space()
			if p.i < len(p.src) && p.src[p.i] == ',' {
				p.i++
				continue
			}
			if p.i < len(p.src) && p.src[p.i] == ']' {
				p.i++
				return v, nil
			}
			return nil, p.fail("want , or ]")
		}
	case c == '"':
		s, err := p.str()
		if err != nil {
			return nil, err
		}
		return &jsValue{kind: '"', str: s}, nil
	case c == '-' || c >= '0' && c <= '9':
		return p.number()
	}
	for _, lit := range []struct {
		text string
		kind byte
	}{{"true", 't'}, {"false", 'f'}, {"null", 'n'}} {
		if bytes.HasPrefix(p.src[p.i:], []byte(lit.text)) {
			p.i += len(lit.text)
			return &jsValue{kind: lit.kind}, nil
		}
	}
	return nil, p.fail("not a JSON value")
}

func (p *jsParser) object(depth int) (*jsValue, error) {
	p.i++
	v := &jsValue{kind: '{'}
	index := map[string]int{}
	var order []string // the source's order of first appearance
	p.space()
	if p.i < len(p.src) && p.src[p.i] == '}' {
		p.i++
		return v, nil
	}
	for {
		p.space()
		if p.i >= len(p.src) || p.src[p.i] != '"' {
			return nil, p.fail("want a member name")
		}
		k, err := p.str()
		if err != nil {
			return nil, err
		}
		p.space()
		if p.i >= len(p.src) || p.src[p.i] != ':' {
			return nil, p.fail("want :")
		}
		p.i++
		p.space()
		e, err := p.value(depth + 1)
		if err != nil {
			return nil, err
		}
		name := string(utf16.Decode(k))
		if j, dup := index[name]; dup {
			v.vals[j] = e // CreateDataProperty: the last value, at the first place
			p.note("a duplicate name collapsed", strconv.Quote(name)+" kept its last value")
		} else {
			index[name] = len(v.keys)
			v.keys = append(v.keys, k)
			v.vals = append(v.vals, e)
			order = append(order, name)
		}
		p.space()
		if p.i < len(p.src) && p.src[p.i] == ',' {
			p.i++
			continue
		}
		if p.i < len(p.src) && p.src[p.i] == '}' {
			p.i++
			break
		}
		return nil, p.fail("want , or }")
	}
	// JavaScript's property order: array indexes ascending, then the other
	// names in the order they were first created.
	idx := make([]int, len(v.keys))
	for i := range idx {
		idx[i] = i
	}
	arrayIndex := func(i int) (uint64, bool) { return jsArrayIndex(v.keys[i]) }
	sort.SliceStable(idx, func(a, b int) bool {
		na, ia := arrayIndex(idx[a])
		nb, ib := arrayIndex(idx[b])
		switch {
		case ia && ib:
			return na < nb
		default:
			return ia && !ib
		}
	})
	keys, vals := make([][]uint16, len(idx)), make([]*jsValue, len(idx))
	for to, from := range idx {
		keys[to], vals[to] = v.keys[from], v.vals[from]
		if to != from {
			p.note("member order", fmt.Sprintf("%s now comes before %s: integer-like names come first", strconv.Quote(string(utf16.Decode(keys[to]))), strconv.Quote(order[to])))
		}
	}
	v.keys, v.vals = keys, vals
	return v, nil
}

// jsArrayIndex reads a canonical array index: digits with no leading zero,
// below 2^32-1.
func jsArrayIndex(k []uint16) (uint64, bool) {
	if len(k) == 0 || len(k) > 10 || len(k) > 1 && k[0] == '0' {
		return 0, false
	}
	var n uint64
	for _, c := range k {
		if c < '0' || c > '9' {
			return 0, false
		}
		n = n*10 + uint64(c-'0')
	}
	return n, n < math.MaxUint32
}

func (p *jsParser) str() ([]uint16, error) {
	start := p.i
	p.i++
	var s []uint16
	for {
		if p.i >= len(p.src) {
			return nil, p.fail("unterminated string")
		}
		c := p.src[p.i]
		switch {
		case c == '"':
			p.i++
			var w bytes.Buffer
			jsQuote(&w, s)
			if !bytes.Equal(w.Bytes(), p.src[start:p.i]) {
				p.note("a string's escapes", fmt.Sprintf("%s became %s", p.src[start:p.i], w.Bytes()))
			}
			return s, nil
		case c < 0x20:
			return nil, p.fail("control character in a string")
		case c == '\\':
			if p.i+1 >= len(p.src) {
				return nil, p.fail("unterminated escape")
			}
			e := p.src[p.i+1]
			p.i += 2
			switch e {
			case '"', '\\', '/':
				s = append(s, uint16(e))
			case 'b':
				s = append(s, '\b')
			case 'f':
				s = append(s, '\f')
			case 'n':
				s = append(s, '\n')
			case 'r':
				s = append(s, '\r')
			case 't':
				s = append(s, '\t')
			case 'u':
				if p.i+4 > len(p.src) {
					return nil, p.fail("short \\u escape")
				}
				u, err := strconv.ParseUint(string(p.src[p.i:p.i+4]), 16, 16)
				if err != nil {
					return nil, p.fail("bad \\u escape")
				}
				s = append(s, uint16(u))
				p.i += 4
			default:
				return nil, p.fail("bad escape")
			}
		default:
			r, n := utf8.DecodeRune(p.src[p.i:]) // invalid UTF-8 is U+FFFD, as TextDecoder makes it
			p.i += n
			s = utf16.AppendRune(s, r)
		}
	}
}

func (p *jsParser) number() (*jsValue, error) {
	start := p.i
	digits := func() int {
		n := 0
		for p.i < len(p.src) && p.src[p.i] >= '0' && p.src[p.i] <= '9' {
			p.i++
			n++
		}
		return n
	}
	if p.src[p.i] == '-' {
		p.i++
	}
	if p.i < len(p.src) && p.src[p.i] == '0' {
		p.i++
	} else if digits() == 0 {
		return nil, p.fail("bad number")
	}
	if p.i < len(p.src) && p.src[p.i] == '.' {
		p.i++
		if digits() == 0 {
			return nil, p.fail("bad number")
		}
	}
	if p.i < len(p.src) && (p.src[p.i] == 'e' || p.src[p.i] == 'E') {
		p.i++
		if p.i < len(p.src) && (p.src[p.i] == '+' || p.src[p.i] == '-') {
			p.i++
		}
		if digits() == 0 {
			return nil, p.fail("bad number")
		}
	}
	text := string(p.src[start:p.i])
	f, err := strconv.ParseFloat(text, 64)
	if err != nil && !math.IsInf(f, 0) {
		return nil, p.fail("bad number")
	}
	v := &jsValue{kind: '0', num: f}
	if js := jsNumber(f); js != text {
		p.note("a number's digits", text+" became "+js)
	}
	return v, nil
}

func (v *jsValue) write(w *bytes.Buffer) {
	switch v.kind {
	case '{':
		w.WriteByte('{')
		for i, k := range v.keys {
			if i > 0 {
				w.WriteByte(',')
			}
			jsQuote(w, k)
			w.WriteByte(':')
			v.vals[i].write(w)
		}
		w.WriteByte('}')
	case '[':
		w.WriteByte('[')
		for i, e := range v.vals {
			if i > 0 {
				w.WriteByte(',')
			}
			e.write(w)
		}
		w.WriteByte(']')
	case '"':
		jsQuote(w, v.str)
	case '0':
		w.WriteString(jsNumber(v.num))
	case 't':
		w.WriteString("true")
	case 'f':
		w.WriteString("false")
	default:
		w.WriteString("null")
	}
}

// jsQuote writes a string as JSON.stringify does: the short escapes, other
// control characters as \u00xx, a lone surrogate as \udxxx, the rest as
// UTF-8.
func jsQuote(w *bytes.Buffer, s []uint16) {
	const hex = "0123456789abcdef"
	w.WriteByte('"')
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '"':
			w.WriteString(`\"`)
		case c == '\\':
			w.WriteString(`\\`)
		case c == '\b':
			w.WriteString(`\b`)
		case c == '\f':
			w.WriteString(`\f`)
		case c == '\n':
			w.WriteString(`\n`)
		case c == '\r':
			w.WriteString(`\r`)
		case c == '\t':
			w.WriteString(`\t`)
		case c < 0x20:
			w.WriteString(`\u00`)
			w.WriteByte(hex[c>>4])
			w.WriteByte(hex[c&15])
		case utf16.IsSurrogate(rune(c)):
			if c < 0xdc00 && i+1 < len(s) && s[i+1] >= 0xdc00 && s[i+1] <= 0xdfff {
				w.WriteRune(utf16.DecodeRune(rune(c), rune(s[i+1])))
				i++
				continue
			}
			w.WriteString(`\u`)
			for shift := 12; shift >= 0; shift -= 4 {
				w.WriteByte(hex[c>>shift&15])
			}
		default:
			w.WriteRune(rune(c))
		}
	}
	w.WriteByte('"')
}

// jsNumber is Number.prototype.toString for a double (ECMAScript
// Number::toString, radix 10); JSON.stringify writes null for a number
// that is not finite.
func jsNumber(f float64) string {
	switch {
	case math.IsNaN(f) || math.IsInf(f, 0):
		return "null"
	case f == 0:
		return "0"
	case f < 0:
		return "-" + jsNumber(-f)
	}
	// the shortest digits that read back as f, and the exponent n with
	// f = 0.digits × 10^n
	e := strconv.FormatFloat(f, 'e', -1, 64)
	mant, exp, _ := strings.Cut(e, "e")
	digits := strings.Replace(mant, ".", "", 1)
	x, _ := strconv.Atoi(exp)
	n, k := x+1, len(digits)
	switch {
	case k <= n && n <= 21:
		return digits + strings.Repeat("0", n-k)
	case 0 < n && n <= 21:
		return digits[:n] + "." + digits[n:]
	case -6 < n && n <= 0:
		return "0." + strings.Repeat("0", -n) + digits
	}
	sign := "+"
	if n-1 < 0 {
		sign = "-"
	}
	ex := strconv.Itoa(abs(n - 1))
	if k == 1 {
		return digits + "e" + sign + ex
	}
	return digits[:1] + "." + digits[1:] + "e" + sign + ex
}

func abs(n int) int {
	if n < 0 {
		return -n
	}
	return n
}
