package gate

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"errors"
	"io"
	"math/bits"
	"slices"
	"strconv"
	"strings"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/go-json-experiment/json/jsontext"

	"github.com/sealgate/sealgate/gate/internal/partial"
)

// sealText is the seal's one pass over a call's text once it has ended.
// jsontext's tokenizer checks the grammar (the same decoder ValidJSON runs),
// and the pass adds the gate's own rules (depth, float64 range,
// noncharacters) while it decodes the document the schema and the
// authorization rule read. It answers only "valid, here is the document"
// or "not valid": ValidJSON then finds the first violation and its reason.
// One decoding pass instead of a validation, a decoding and a
// canonicalization pass is what keeps sealing a long call near the cost of
// validating it (the preview benchmarks).
//
// Objects decode to map[string]any, arrays to []any, numbers to json.Number
// as written, strings unescaped. size is the length of the text's compact
// form (sealgate.Compact): the bytes of its tokens, colons and commas. When
// it equals len(raw) the text holds no whitespace to remove, and the release
// is a plain copy instead of a second scan.
func sealText(raw []byte, depth int) (doc any, size int, ok bool) {
	return sealTextFaulty(raw, depth, false)
}

// sealTextFaulty is sealText, with the noncharacter check of the fault
// NoncharBMPOnly when bmpNonchar is set.
func sealTextFaulty(raw []byte, depth int, bmpNonchar bool) (doc any, size int, ok bool) {
	d := jsontext.NewDecoder(bytes.NewBuffer(raw))
	s := sealScan{d: d, limit: depth, bmpNonchar: bmpNonchar}
	v, ok := s.value(1)
	if !ok {
		return nil, 0, false
	}
	if _, err := d.ReadToken(); err != io.EOF {
		return nil, 0, false // a second value, or trailing bytes
	}
	return v, s.size, true
}

type sealScan struct {
	d     *jsontext.Decoder
	limit int
	size  int // bytes of the compact form so far

	bmpNonchar bool // fault NoncharBMPOnly
}

func (s *sealScan) value(depth int) (any, bool) {
	if s.d.PeekKind() == '"' {
		v, ok := s.str()
		return v, ok
	}
	tok, err := s.d.ReadToken()
	if err != nil {
		return nil, false
	}
	switch tok.Kind() {
	case '{':
		if depth > s.limit {
			return nil, false
		}
		m := map[string]any{}
		s.size += 2 // the braces
		for s.d.PeekKind() == '"' {
			if len(m) > 0 { // names are distinct (jsontext rejects a duplicate), so len(m) counts members
				s.size++ // the comma
			}
			s.size++ // the colon
			name, ok := s.str()
			if !ok {
				return nil, false
			}
			v, ok := s.value(depth + 1)
			if !ok {
				return nil, false
			}
			m[name] = v
		}
		if tok, err := s.d.ReadToken(); err != nil || tok.Kind() != '}' {
			return nil, false
		}
		return m, true
	case '[':
		if depth > s.limit {
			return nil, false
		}
		a := []any{}
		s.size += 2 // the brackets
		for k := s.d.PeekKind(); k != ']' && k != 0; k = s.d.PeekKind() {
			if len(a) > 0 {
				s.size++ // the comma
			}
			v, ok := s.value(depth + 1)
			if !ok {
				return nil, false
			}
			a = append(a, v)
		}
		if tok, err := s.d.ReadToken(); err != nil || tok.Kind() != ']' {
			return nil, false
		}
		return a, true
	case '0':
		lit := tok.String()
		if _, finite := numberValue(lit); !finite {
			return nil, false
		}
		s.size += len(lit)
		return json.Number(lit), true
	case 't':
		s.size += len("true")
		return true, true
	case 'f':
		s.size += len("false")
		return false, true
	case 'n':
		s.size += len("null")
		return nil, true
	}
	return nil, false
}

// str reads a string (a member name or a value) that jsontext has checked
// and unescapes it.
func (s *sealScan) str() (string, bool) {
	lit, err := s.d.ReadValue()
	if err != nil {
		return "", false
	}
	s.size += len(lit)
	v := unquote(lit)
	if s.bmpNonchar {
		return v, !hasBMPNoncharacter(v)
	}
	return v, !hasNoncharacter(v)
}

// unquote unescapes a JSON string literal that jsontext has validated, so
// every escape is well formed and every \u high surrogate is followed by
// its low half. It copies the runs between escapes whole, found eight bytes
// at a time (backslashAt), and decodes each escape by table. File text has
// an escape every dozen bytes or so, so the work per escape is what counts.
func unquote(lit []byte) string {
	s := lit[1 : len(lit)-1]
	i := backslashAt(s)
	if i == len(s) {
		return string(s)
	}
	var b strings.Builder
	b.Grow(len(s))
	for i < len(s) {
		b.Write(s[:i])
		if c := s[i+1]; c != 'u' {
			b.WriteByte(shortUnescape[c])
			s = s[i+2:]
		} else {
			r, n := hex4(s[i+2:i+6]), 6
			if utf16.IsSurrogate(r) && len(s) >= i+12 {
				r, n = utf16.DecodeRune(r, hex4(s[i+8:i+12])), 12
			}
			var e [utf8.UTFMax]byte
			b.Write(e[:utf8.EncodeRune(e[:], r)])
			s = s[i+n:]
		}
		i = backslashAt(s)
	}
	b.Write(s)
	return b.String()
}

// backslashAt returns the index of the first backslash in s (len(s) if
// none), testing eight bytes at a time: a byte equal to '\\' is a zero byte
// of x ^ ones*'\\', and (y - ones) &^ y flags the lowest zero byte of y
// exactly (partial.EscapeBytes explains the trick). Inside a checked
// literal a backslash is the only byte that escapeAt would flag, and one
// test is cheaper than its three.
func backslashAt(s []byte) int {
	const ones = 0x0101010101010101
	i := 0
	for ; i+8 <= len(s); i += 8 {
		y := binary.LittleEndian.Uint64(s[i:]) ^ ones*'\\'
		if f := (y - ones) &^ y & (ones * 0x80); f != 0 {
			return i + bits.TrailingZeros64(f)/8
		}
	}
	for i < len(s) && s[i] != '\\' {
		i++
	}
	return i
}

// shortUnescape is the byte each two-character escape stands for.
var shortUnescape = [256]byte{'b': '\b', 'f': '\f', 'n': '\n', 'r': '\r', 't': '\t', '"': '"', '\\': '\\', '/': '/'}

// hasNoncharacter reports whether valid UTF-8 text holds a noncharacter
// (isNoncharacter). Those encode as EF B7 90..AF, EF BF BE/BF, or four
// bytes ending in BF BE/BF, so text with no EF byte and no BF BE or BF BF
// has none (three vectorized searches settle most file text); otherwise
// only runes at or past 0xEF need a look.
func hasNoncharacter(s string) bool {
	if strings.IndexByte(s, 0xEF) < 0 && !strings.Contains(s, "\xbf\xbe") && !strings.Contains(s, "\xbf\xbf") {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < 0xEF {
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if isNoncharacter(r) {
			return true
		}
		i += size - 1
	}
	return false
}

// errNotDecoded is for a document that sealText did not produce.
var errNotDecoded = errors.New("value outside the decoded document model")

// appendCanonical appends the RFC 8785 form of a document decoded by
// sealText: members sorted by UTF-16 code units, numbers in ECMAScript
// form, strings with the minimal escapes. The model has its own
// canonicalizer over its own parser; the two test each other.
func appendCanonical(b []byte, v any) ([]byte, error) {
	switch v := v.(type) {
	case map[string]any:
		names := make([]string, 0, len(v))
		for k := range v {
			names = append(names, k)
		}
		slices.SortFunc(names, compareUTF16)
		b = append(b, '{')
		for i, k := range names {
			if i > 0 {
				b = append(b, ',')
			}
			b = appendCanonicalString(b, k)
			b = append(b, ':')
			var err error
			if b, err = appendCanonical(b, v[k]); err != nil {
				return nil, err
			}
		}
		return append(b, '}'), nil
	case []any:
		b = append(b, '[')
		for i, x := range v {
			if i > 0 {
				b = append(b, ',')
			}
			var err error
			if b, err = appendCanonical(b, x); err != nil {
				return nil, err
			}
		}
		return append(b, ']'), nil
	case string:
		return appendCanonicalString(b, v), nil
	case json.Number:
		f, finite := numberValue(string(v))
		if !finite {
			return nil, errNotDecoded
		}
		return appendES6Number(b, f), nil
	case bool:
		return strconv.AppendBool(b, v), nil
	case nil:
		return append(b, "null"...), nil
	}
	return nil, errNotDecoded
}

// canonicalEscape marks the bytes RFC 8785 escapes: the control characters,
// the quote and the backslash.
var canonicalEscape = func() (t [256]bool) {
	for c := 0; c < 0x20; c++ {
		t[c] = true
	}
	t['"'], t['\\'] = true, true
	return t
}()

const hexDigits = "0123456789abcdef"

// escapeAt returns the index of the first byte of s at or after i that the
// canonical form escapes (len(s) if none). Long file text is mostly plain,
// so it tests eight bytes at a time while it can, and jumps to the first
// flagged byte (partial.EscapeBytes flags the lowest one exactly).
func escapeAt(s string, i int) int {
	for ; i+8 <= len(s); i += 8 {
		x := uint64(s[i]) | uint64(s[i+1])<<8 | uint64(s[i+2])<<16 | uint64(s[i+3])<<24 |
			uint64(s[i+4])<<32 | uint64(s[i+5])<<40 | uint64(s[i+6])<<48 | uint64(s[i+7])<<56
		if bad := partial.EscapeBytes(x); bad != 0 {
			return i + bits.TrailingZeros64(bad)/8
		}
	}
	for i < len(s) && !canonicalEscape[s[i]] {
		i++
	}
	return i
}

func appendCanonicalString(b []byte, s string) []byte {
	b = append(b, '"')
	last := 0
	for i := escapeAt(s, 0); i < len(s); i = escapeAt(s, i+1) {
		c := s[i]
		b = append(b, s[last:i]...)
		switch c {
		case '"':
			b = append(b, '\\', '"')
		case '\\':
			b = append(b, '\\', '\\')
		case '\b':
			b = append(b, '\\', 'b')
		case '\f':
			b = append(b, '\\', 'f')
		case '\n':
			b = append(b, '\\', 'n')
		case '\r':
			b = append(b, '\\', 'r')
		case '\t':
			b = append(b, '\\', 't')
		default:
			b = append(b, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xF])
		}
		last = i + 1
	}
	b = append(b, s[last:]...)
	return append(b, '"')
}

// appendES6Number appends ECMAScript's Number::toString of a finite f
// (RFC 8785 section 3.2.2.3): the shortest round-tripping digits, plain
// notation for decimal exponents from -6 to 21, exponent notation past
// them, and 0 for negative zero.
func appendES6Number(b []byte, f float64) []byte {
	if f == 0 {
		return append(b, '0')
	}
	if f < 0 {
		b = append(b, '-')
		f = -f
	}
	var tmp [32]byte
	e := strconv.AppendFloat(tmp[:0], f, 'e', -1, 64) // d[.ddd]e±XX
	mant, exp, _ := strings.Cut(string(e), "e")
	digits := strings.Replace(mant, ".", "", 1)
	x, _ := strconv.Atoi(exp)
	n := x + 1 // the decimal point sits after n digits
	k := len(digits)
	switch {
	case k <= n && n <= 21:
		b = append(b, digits...)
		for ; k < n; k++ {
			b = append(b, '0')
		}
	case 0 < n && n <= 21:
		b = append(append(append(b, digits[:n]...), '.'), digits[n:]...)
	case -6 < n && n <= 0:
		b = append(b, '0', '.')
		for ; n < 0; n++ {
			b = append(b, '0')
		}
		b = append(b, digits...)
	default:
		b = append(b, digits[0])
		if k > 1 {
			b = append(append(b, '.'), digits[1:]...)
		}
		b = append(b, 'e')
		if n-1 >= 0 {
			b = append(b, '+')
		}
		b = strconv.AppendInt(b, int64(n-1), 10)
	}
	return b
}

// compareUTF16 orders strings by their UTF-16 code units, as RFC 8785
// sorts member names. It differs from byte order only where a rune past
// U+FFFF (a surrogate pair, D800-DBFF first) meets one in U+E000-U+FFFF.
func compareUTF16(a, b string) int {
	for a != "" && b != "" {
		ra, na := utf8.DecodeRuneInString(a)
		rb, nb := utf8.DecodeRuneInString(b)
		if ra != rb {
			ua, ub := firstUnit(ra), firstUnit(rb)
			if ua != ub {
				return int(ua) - int(ub)
			}
			return int(ra) - int(rb) // same high surrogate: the low ones order as the runes
		}
		a, b = a[na:], b[nb:]
	}
	return len(a) - len(b)
}

func firstUnit(r rune) rune {
	if r < 0x10000 {
		return r
	}
	return 0xD800 + (r-0x10000)>>10
}
