package coverage

import (
	"bytes"
	"math"
	"math/big"
	"strconv"
	"unicode/utf8"
)

// shapes notes the value shapes of one call's received bytes. The scan is
// tolerant: it reads strings, numbers, names and brackets wherever they
// stand, so that a text that breaks the grammar still shows the shapes it
// was made of (a lone surrogate, a leading zero's neighbours).
func (x *extractor) shapes(c *callRec) {
	b := c.buf
	if len(b) == 0 {
		return
	}
	if bytes.HasPrefix(b, []byte("\xef\xbb\xbf")) {
		x.add("value:bom")
	}
	if !utf8.Valid(b) {
		x.add("value:invalid-utf8")
	}
	if string(bytes.TrimSpace(b)) == "{}" {
		x.add("value:empty-object")
	}
	type container struct {
		object bool
		names  map[string]string // unescaped name -> raw spelling
	}
	var stack []*container
	depth, deepest := 0, 0
	for i := 0; i < len(b); {
		switch ch := b[i]; {
		case ch == '{' || ch == '[':
			depth++
			deepest = max(deepest, depth)
			if ch == '[' {
				x.add("value:array")
			}
			stack = append(stack, &container{object: ch == '{', names: map[string]string{}})
			i++
		case ch == '}' || ch == ']':
			if depth > 0 {
				depth--
			}
			if len(stack) > 0 {
				stack = stack[:len(stack)-1]
			}
			i++
		case ch == '"':
			end, text := x.str(b, i)
			raw := string(b[i:end])
			j := end
			for j < len(b) && isSpace(b[j]) {
				j++
			}
			if j < len(b) && b[j] == ':' && len(stack) > 0 && stack[len(stack)-1].object {
				top := stack[len(stack)-1]
				if bytes.IndexByte(b[i:end], '\\') >= 0 {
					x.add("value:escaped-name")
				}
				if prev, ok := top.names[text]; ok {
					if prev == raw {
						x.add("value:duplicate-name")
					} else {
						x.add("value:duplicate-name-escaped")
					}
				} else {
					top.names[text] = raw
				}
			}
			i = end
		case ch == '-' || ch >= '0' && ch <= '9':
			j := i + 1
			for j < len(b) && bytes.IndexByte([]byte("0123456789+-.eE"), b[j]) >= 0 {
				j++
			}
			x.number(string(b[i:j]))
			i = j
		case isSpace(ch):
			x.add("value:whitespace")
			i++
		default:
			for _, lit := range []string{"true", "false", "null"} {
				if bytes.HasPrefix(b[i:], []byte(lit)) {
					x.add("value:literal")
				}
			}
			i++
		}
	}
	if deepest >= 3 {
		x.add("value:nested")
	}
	if deepest == x.cfg.Limits.Depth {
		x.add("limit:depth-edge")
	}
}

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

// str scans the string starting at b[i] (a quote), noting its shapes, and
// returns the offset after its closing quote (or the end of b) and its
// unescaped text.
func (x *extractor) str(b []byte, i int) (int, string) {
	var out []rune
	j := i + 1
	for j < len(b) {
		ch := b[j]
		switch {
		case ch == '"':
			return j + 1, string(out)
		case ch == '\\':
			if j+1 >= len(b) {
				return len(b), string(out)
			}
			e := b[j+1]
			switch {
			case e == '/':
				x.add("value:escape-solidus")
				out = append(out, '/')
				j += 2
			case bytes.IndexByte([]byte(`"\bfnrt`), e) >= 0:
				x.add("value:escape-short")
				out = append(out, rune(e))
				j += 2
			case e == 'u':
				u, ok := hex4(b, j+2)
				if !ok {
					x.add("value:bad-escape")
					j += 2
					continue
				}
				if bytes.ContainsAny(b[j+2:j+6], "ABCDEF") {
					x.add("value:escape-u-uppercase")
				}
				next, nextOK := rune(0), false
				if j+7 < len(b) && b[j+6] == '\\' && b[j+7] == 'u' {
					next, nextOK = hex4(b, j+8)
				}
				switch {
				case u >= 0xD800 && u <= 0xDBFF && nextOK && next >= 0xDC00 && next <= 0xDFFF:
					x.add("value:surrogate-pair")
					r := 0x10000 + (u-0xD800)<<10 + (next - 0xDC00)
					x.nonchar(r)
					out = append(out, r)
					j += 12
					continue
				case u >= 0xDC00 && u <= 0xDFFF && nextOK && next >= 0xD800 && next <= 0xDBFF:
					x.add("value:surrogate-pair-reversed")
					x.add("value:lone-surrogate")
				case u >= 0xD800 && u <= 0xDFFF:
					x.add("value:lone-surrogate")
				default:
					x.add("value:escape-u")
					x.nonchar(u)
				}
				out = append(out, u)
				j += 6
			default:
				x.add("value:bad-escape")
				j += 2
			}
		case ch < 0x20:
			x.add("value:control-char")
			out = append(out, rune(ch))
			j++
		case ch >= 0x80:
			r, size := utf8.DecodeRune(b[j:])
			if r == utf8.RuneError && size == 1 {
				if ch == 0xED && j+1 < len(b) && b[j+1] >= 0xA0 && b[j+1] <= 0xBF {
					x.add("value:surrogate-utf8")
				}
			} else {
				x.add("value:non-ascii")
				if size == 4 {
					x.add("value:four-byte-rune")
				}
				x.nonchar(r)
			}
			out = append(out, r)
			j += size
		default:
			out = append(out, rune(ch))
			j++
		}
	}
	return len(b), string(out)
}

func hex4(b []byte, i int) (rune, bool) {
	if i+4 > len(b) {
		return 0, false
	}
	v, err := strconv.ParseUint(string(b[i:i+4]), 16, 32)
	if err != nil || bytes.ContainsAny(b[i:i+4], "+-") {
		return 0, false
	}
	return rune(v), true
}

// nonchar notes a noncharacter (SPEC section 5: U+FDD0..U+FDEF, U+xFFFE,
// U+xFFFF), by plane.
func (x *extractor) nonchar(r rune) {
	switch {
	case r >= 0xFDD0 && r <= 0xFDEF, r == 0xFFFE, r == 0xFFFF:
		x.add("value:noncharacter-bmp")
	case r > 0xFFFF && r&0xFFFE == 0xFFFE:
		x.add("value:noncharacter-supplementary")
	}
}

// number notes the shapes of one number token (as scanned: it may break
// the grammar).
func (x *extractor) number(tok string) {
	mant, exp := tok, ""
	if k := bytes.IndexAny([]byte(tok), "eE"); k >= 0 {
		mant, exp = tok[:k], tok[k+1:]
		x.add("value:exponent")
		digits := 0
		for _, c := range exp {
			if c >= '0' && c <= '9' {
				digits++
			}
		}
		if digits >= 4 {
			x.add("value:long-exponent")
		}
	}
	intPart, frac := mant, ""
	if k := bytes.IndexByte([]byte(mant), '.'); k >= 0 {
		intPart, frac = mant[:k], mant[k+1:]
		x.add("value:fraction")
	}
	var sig []byte
	for _, c := range []byte(intPart + frac) {
		if c >= '0' && c <= '9' && (len(sig) > 0 || c != '0') {
			sig = append(sig, c)
		}
	}
	if len(sig) >= 17 {
		x.add("value:long-mantissa")
	}
	if len(sig) == 0 && len(tok) > 0 && tok[0] == '-' && len(mant) > 1 {
		x.add("value:negative-zero")
	}
	if exp == "" && frac == "" {
		if n, ok := new(big.Int).SetString(intPart, 10); ok && n.CmpAbs(big.NewInt(1<<53)) > 0 {
			x.add("value:inexact-integer")
		}
	}
	if f, err := strconv.ParseFloat(tok, 64); math.IsInf(f, 0) {
		x.add("value:overflow")
	} else if err == nil && f == 0 && len(sig) > 0 {
		x.add("value:underflow")
	}
}
