package wire

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"unicode/utf16"
	"unicode/utf8"
)

// The vendor envelopes are read with this small strict reader rather than
// encoding/json: encoding/json matches member names case-insensitively,
// lets a duplicate member silently win, and turns a lone surrogate escape
// into U+FFFD. Each of those would let the adapter read a different event
// than the vendor's own client did. Argument text that travels as a raw JSON
// value (Gemini args, Anthropic input) is passed on as its exact bytes; only
// the envelope members the adapter reads are unescaped.

// maxDepth bounds nesting in an envelope; it leaves room above the deepest
// argument nesting a gate configuration may allow (sealgate.MaxDepth).
const maxDepth = 10100

// validate checks that b is exactly one JSON value under RFC 8259 grammar,
// in valid UTF-8, nested at most maxDepth. It does not look at member names.
func validate(b []byte) error {
	if !utf8.Valid(b) {
		for i := 0; i < len(b); {
			r, n := utf8.DecodeRune(b[i:])
			if r == utf8.RuneError && n <= 1 {
				return fmt.Errorf("JSON byte %d: not UTF-8", i)
			}
			i += n
		}
	}
	var stack []byte // '{' or '['
	i := skipWS(b, 0)
	const (
		wantValue = iota
		afterValue
		wantKey // after '{' or ','
	)
	state := wantValue
	first := true // right after an opening bracket: a closing one may follow
	for {
		i = skipWS(b, i)
		switch state {
		case wantValue:
			if i >= len(b) {
				return fmt.Errorf("JSON byte %d: unexpected end, a value was expected", i)
			}
			c := b[i]
			switch {
			case c == '{' || c == '[':
				if len(stack) >= maxDepth {
					return fmt.Errorf("JSON byte %d: nested deeper than %d", i, maxDepth)
				}
				stack = append(stack, c)
				i++
				first = true
				if c == '{' {
					state = wantKey
				} else {
					j := skipWS(b, i)
					if j < len(b) && b[j] == ']' {
						stack = stack[:len(stack)-1]
						i = j + 1
						state = afterValue
					}
				}
				continue
			case c == '"':
				end, err := scanString(b, i)
				if err != nil {
					return err
				}
				i = end
			case c == 't':
				if !strings.HasPrefix(string(b[i:min(len(b), i+4)]), "true") {
					return fmt.Errorf("JSON byte %d: invalid literal", i)
				}
				i += 4
			case c == 'f':
				if !strings.HasPrefix(string(b[i:min(len(b), i+5)]), "false") {
					return fmt.Errorf("JSON byte %d: invalid literal", i)
				}
				i += 5
			case c == 'n':
				if !strings.HasPrefix(string(b[i:min(len(b), i+4)]), "null") {
					return fmt.Errorf("JSON byte %d: invalid literal", i)
				}
				i += 4
			case c == '-' || c >= '0' && c <= '9':
				end, err := scanNumber(b, i)
				if err != nil {
					return err
				}
				i = end
			default:
				return fmt.Errorf("JSON byte %d: unexpected %q, a value was expected", i, c)
			}
			state = afterValue
		case wantKey:
			if i < len(b) && b[i] == '}' && first {
				stack = stack[:len(stack)-1]
				i++
				state = afterValue
				continue
			}
			if i >= len(b) || b[i] != '"' {
				return fmt.Errorf("JSON byte %d: a member name was expected", i)
			}
			end, err := scanString(b, i)
			if err != nil {
				return err
			}
			i = skipWS(b, end)
			if i >= len(b) || b[i] != ':' {
				return fmt.Errorf("JSON byte %d: ':' was expected", i)
			}
			i++
			state = wantValue
		case afterValue:
			first = false
			if len(stack) == 0 {
				if i != len(b) {
					return fmt.Errorf("JSON byte %d: text after the value", i)
				}
				return nil
			}
			if i >= len(b) {
				return fmt.Errorf("JSON byte %d: unexpected end inside a value", i)
			}
			top := stack[len(stack)-1]
			switch {
			case b[i] == ',':
				i++
				if top == '{' {
					state = wantKey
				} else {
					state = wantValue
				}
			case top == '{' && b[i] == '}' || top == '[' && b[i] == ']':
				stack = stack[:len(stack)-1]
				i++
			default:
				return fmt.Errorf("JSON byte %d: ',' or a closing bracket was expected", i)
			}
		}
	}
}

func skipWS(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r') {
		i++
	}
	return i
}

// scanString returns the index after the string starting at b[i] == '"'.
func scanString(b []byte, i int) (int, error) {
	start := i
	i++
	for i < len(b) {
		c := b[i]
		switch {
		case c == '"':
			return i + 1, nil
		case c == '\\':
			if i+1 >= len(b) {
				return 0, fmt.Errorf("JSON byte %d: unfinished escape", i)
			}
			switch b[i+1] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				i += 2
			case 'u':
				if i+6 > len(b) {
					return 0, fmt.Errorf("JSON byte %d: unfinished \\u escape", i)
				}
				for _, h := range b[i+2 : i+6] {
					if !isHex(h) {
						return 0, fmt.Errorf("JSON byte %d: bad \\u escape", i)
					}
				}
				i += 6
			default:
				return 0, fmt.Errorf("JSON byte %d: bad escape \\%c", i, b[i+1])
			}
		case c < 0x20:
			return 0, fmt.Errorf("JSON byte %d: control character in a string", i)
		default:
			i++
		}
	}
	return 0, fmt.Errorf("JSON byte %d: unterminated string", start)
}

func isHex(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F'
}

func scanNumber(b []byte, i int) (int, error) {
	start := i
	if b[i] == '-' {
		i++
	}
	digits := func() int {
		n := 0
		for i < len(b) && b[i] >= '0' && b[i] <= '9' {
			i++
			n++
		}
		return n
	}
	if i < len(b) && b[i] == '0' {
		i++
	} else if digits() == 0 {
		return 0, fmt.Errorf("JSON byte %d: bad number", start)
	}
	if i < len(b) && b[i] == '.' {
		i++
		if digits() == 0 {
			return 0, fmt.Errorf("JSON byte %d: bad number", start)
		}
	}
	if i < len(b) && (b[i] == 'e' || b[i] == 'E') {
		i++
		if i < len(b) && (b[i] == '+' || b[i] == '-') {
			i++
		}
		if digits() == 0 {
			return 0, fmt.Errorf("JSON byte %d: bad number", start)
		}
	}
	return i, nil
}

// skipValue returns the end of the value starting at b[i]; b is validated.
func skipValue(b []byte, i int) int {
	switch b[i] {
	case '"':
		end, _ := scanString(b, i)
		return end
	case '{', '[':
		depth := 0
		for i < len(b) {
			switch b[i] {
			case '"':
				i, _ = scanString(b, i)
				continue
			case '{', '[':
				depth++
			case '}', ']':
				depth--
				if depth == 0 {
					return i + 1
				}
			}
			i++
		}
		return i
	case 't', 'n':
		return i + 4
	case 'f':
		return i + 5
	}
	end, _ := scanNumber(b, i)
	return end
}

// unquote decodes the JSON string literal s (validated). A lone surrogate
// escape has no UTF-8 form: it is an error, never U+FFFD.
func unquote(s []byte) (string, error) {
	s = s[1 : len(s)-1]
	if !strings.ContainsRune(string(s), '\\') {
		return string(s), nil
	}
	var out strings.Builder
	for i := 0; i < len(s); {
		c := s[i]
		if c != '\\' {
			out.WriteByte(c)
			i++
			continue
		}
		switch s[i+1] {
		case 'b':
			out.WriteByte('\b')
		case 'f':
			out.WriteByte('\f')
		case 'n':
			out.WriteByte('\n')
		case 'r':
			out.WriteByte('\r')
		case 't':
			out.WriteByte('\t')
		case 'u':
			r := hex4(s[i+2 : i+6])
			i += 6
			if utf16.IsSurrogate(r) {
				if r < 0xDC00 && i+6 <= len(s) && s[i] == '\\' && s[i+1] == 'u' {
					if r2 := hex4(s[i+2 : i+6]); r2 >= 0xDC00 && r2 <= 0xDFFF {
						out.WriteRune(utf16.DecodeRune(r, r2))
						i += 6
						continue
					}
				}
				return "", errors.New("a lone surrogate escape in a string has no UTF-8 form")
			}
			out.WriteRune(r)
			continue
		default: // " \ /
			out.WriteByte(s[i+1])
		}
		i += 2
	}
	return out.String(), nil
}

func hex4(h []byte) rune {
	v, _ := strconv.ParseUint(string(h), 16, 32)
	return rune(v)
}

// obj is one JSON object's members, in order, with raw value bytes.
type obj struct {
	keys []string
	vals [][]byte
}

// parseObj reads the members of a validated value that must be an object.
// A member name given twice is an error: the adapter would not know which
// one the vendor's client read.
func parseObj(b []byte) (obj, error) {
	var o obj
	i := skipWS(b, 0)
	if i >= len(b) || b[i] != '{' {
		return o, errors.New("not a JSON object")
	}
	i = skipWS(b, i+1)
	if b[i] == '}' {
		return o, nil
	}
	seen := map[string]bool{}
	for {
		end, _ := scanString(b, i)
		k, err := unquote(b[i:end])
		if err != nil {
			return o, fmt.Errorf("member name: %v", err)
		}
		if seen[k] {
			return o, fmt.Errorf("member %q given twice", k)
		}
		seen[k] = true
		i = skipWS(b, end)
		i = skipWS(b, i+1) // ':'
		vend := skipValue(b, i)
		o.keys = append(o.keys, k)
		o.vals = append(o.vals, b[i:vend])
		i = skipWS(b, vend)
		if b[i] == '}' {
			return o, nil
		}
		i = skipWS(b, i+1) // ','
	}
}

// raw returns a member's raw value; a null member counts as absent.
func (o obj) raw(k string) ([]byte, bool) {
	for i, key := range o.keys {
		if key == k {
			if string(o.vals[i]) == "null" {
				return nil, false
			}
			return o.vals[i], true
		}
	}
	return nil, false
}

func (o obj) has(k string) bool { _, ok := o.raw(k); return ok }

func (o obj) str(k string) (string, bool, error) {
	v, ok := o.raw(k)
	if !ok {
		return "", false, nil
	}
	if v[0] != '"' {
		return "", false, fmt.Errorf("%s: a string was expected", k)
	}
	s, err := unquote(v)
	if err != nil {
		return "", false, fmt.Errorf("%s: %v", k, err)
	}
	return s, true, nil
}

// needStr is str for a member that must be present.
func (o obj) needStr(k string) (string, error) {
	s, ok, err := o.str(k)
	if err == nil && !ok {
		err = fmt.Errorf("%s: missing", k)
	}
	return s, err
}

// needObject is object for a member the protocol requires.
func (o obj) needObject(k string) (obj, error) {
	v, ok, err := o.object(k)
	if err == nil && !ok {
		err = fmt.Errorf("%s missing", k)
	}
	return v, err
}

// needIndex is index for a member the protocol requires.
func (o obj) needIndex(k string) (int, error) {
	v, ok, err := o.index(k)
	if err == nil && !ok {
		err = fmt.Errorf("%s missing", k)
	}
	return v, err
}

func (o obj) object(k string) (obj, bool, error) {
	v, ok := o.raw(k)
	if !ok {
		return obj{}, false, nil
	}
	if v[0] != '{' {
		return obj{}, false, fmt.Errorf("%s: an object was expected", k)
	}
	r, err := parseObj(v)
	if err != nil {
		return obj{}, false, fmt.Errorf("%s: %v", k, err)
	}
	return r, true, nil
}

func (o obj) array(k string) ([][]byte, bool, error) {
	v, ok := o.raw(k)
	if !ok {
		return nil, false, nil
	}
	if v[0] != '[' {
		return nil, false, fmt.Errorf("%s: an array was expected", k)
	}
	var out [][]byte
	i := skipWS(v, 1)
	if v[i] == ']' {
		return out, true, nil
	}
	for {
		end := skipValue(v, i)
		out = append(out, v[i:end])
		i = skipWS(v, end)
		if v[i] == ']' {
			return out, true, nil
		}
		i = skipWS(v, i+1)
	}
}

// index reads a non-negative integer member (a position: never defaulted).
func (o obj) index(k string) (int, bool, error) {
	v, ok := o.raw(k)
	if !ok {
		return 0, false, nil
	}
	n, err := strconv.ParseInt(string(v), 10, 32)
	if err != nil || n < 0 {
		return 0, false, fmt.Errorf("%s: %s is not a non-negative integer", k, v)
	}
	return int(n), true, nil
}

// elemObj parses an array element that must be an object.
func elemObj(what string, v []byte) (obj, error) {
	if v[0] != '{' {
		return obj{}, fmt.Errorf("%s: an object was expected", what)
	}
	o, err := parseObj(v)
	if err != nil {
		return obj{}, fmt.Errorf("%s: %v", what, err)
	}
	return o, nil
}

// quote writes s as a JSON string with minimal escapes; s must be UTF-8.
func quote(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for _, r := range s {
		switch {
		case r == '"':
			b.WriteString(`\"`)
		case r == '\\':
			b.WriteString(`\\`)
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\r':
			b.WriteString(`\r`)
		case r == '\t':
			b.WriteString(`\t`)
		case r < 0x20:
			fmt.Fprintf(&b, `\u%04x`, r)
		default:
			b.WriteRune(r)
		}
	}
	b.WriteByte('"')
	return b.String()
}

// rawKey returns a member's raw value, null included (raw counts a null
// member as absent; some protocol values are null).
func (o obj) rawKey(k string) ([]byte, bool) {
	for i, key := range o.keys {
		if key == k {
			return o.vals[i], true
		}
	}
	return nil, false
}

func (o obj) hasKey(k string) bool { _, ok := o.rawKey(k); return ok }

// boolean reads a true/false member; null counts as absent.
func (o obj) boolean(k string) (bool, bool, error) {
	v, ok := o.raw(k)
	if !ok {
		return false, false, nil
	}
	switch string(v) {
	case "true":
		return true, true, nil
	case "false":
		return false, true, nil
	}
	return false, false, fmt.Errorf("%s: true or false was expected", k)
}
