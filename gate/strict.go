package gate

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"unicode/utf8"

	"github.com/go-json-experiment/json/jsontext"

	"github.com/sealgate/sealgate"
	"github.com/sealgate/sealgate/gate/internal/partial"
)

// parserMaxDepth is jsontext's fixed nesting limit: text nested deeper
// cannot be checked by it, so the gate refuses it (fail closed) even when the
// configured depth limit is larger.
const parserMaxDepth = 10000

// StrictError says where a text breaks the strict grammar and how. It
// names a byte offset and a problem, never the bytes themselves: they may
// hold secrets.
type StrictError struct {
	Offset  int
	Problem string
}

func (e *StrictError) Error() string {
	return "byte offset " + strconv.Itoa(e.Offset) + ": " + e.Problem
}

// ValidJSON is the gate's strict seal parse (SPEC section 5): ("", nil) if
// raw is one strictly valid JSON text nested at most depth deep; otherwise
// MalformedJSON or TooDeep for the first violation in the text.
//
// jsontext checks the grammar (RFC 8259, UTF-8, surrogates, duplicate names
// after unescaping, exactly one value). The gate's own scan then walks the
// grammatically valid prefix for what jsontext accepts but the SPEC
// forbids: nesting past depth, numbers that overflow float64, noncharacters.
// The scan stops at the grammar violation, so whichever comes first wins.
func ValidJSON(raw []byte, depth int) (sealgate.Reason, error) {
	gOff, gProblem, gDepth := grammarCheck(raw)
	end := len(raw)
	if gOff >= 0 {
		end = gOff
		if gDepth {
			// jsontext stopped at the bracket that opens level
			// parserMaxDepth+1; a depth limit at or below that level
			// reports this very bracket (or an earlier one) as too deep.
			end = gOff + 1
		}
	}
	if off, reason, problem := ownScan(raw[:end], depth); off >= 0 {
		return reason, &StrictError{Offset: off, Problem: problem}
	}
	if gOff >= 0 {
		return sealgate.MalformedJSON, &StrictError{Offset: gOff, Problem: gProblem}
	}
	return "", nil
}

// grammarCheck runs jsontext over raw. It returns the offset of the first
// grammar violation (-1 if none), a description free of argument bytes, and
// whether the violation is jsontext's own nesting limit.
func grammarCheck(raw []byte) (int, string, bool) {
	d := jsontext.NewDecoder(bytes.NewBuffer(raw))
	_, err := d.ReadValue()
	if err == nil {
		off := int(d.InputOffset())
		for off < len(raw) && isSpace(raw[off]) {
			off++
		}
		if off < len(raw) {
			return off, "text after the value", false
		}
		return -1, "", false
	}
	if err == io.EOF {
		return len(raw), "no value", false
	}
	var se *jsontext.SyntacticError
	if !errors.As(err, &se) {
		return len(raw), "unexpected end of text", false
	}
	off := int(se.ByteOffset)
	if off < 0 || off > len(raw) {
		off = len(raw)
	}
	// Only fixed messages are passed on; jsontext's own text may quote
	// the input.
	switch {
	case errors.Is(se.Err, jsontext.ErrDuplicateName):
		return off, "duplicate member name", false
	case errors.Is(se.Err, io.ErrUnexpectedEOF):
		return off, "unexpected end of text", false
	case se.Err != nil && se.Err.Error() == "exceeded max depth":
		return off, fmt.Sprintf("nesting deeper than %d levels is beyond the strict parser", parserMaxDepth), true
	case se.Err != nil && se.Err.Error() == "invalid UTF-8":
		return off, "invalid UTF-8", false
	}
	return off, "invalid JSON syntax", false
}

// ownScan walks p, a grammatically valid prefix of a JSON text, for the
// gate's own checks. It returns the offset of the first violation (-1 if
// none), its reason and a description.
func ownScan(p []byte, limit int) (int, sealgate.Reason, string) {
	depth := 0
	for i := 0; i < len(p); {
		switch c := p[i]; {
		case c == '{' || c == '[':
			depth++
			if depth > limit {
				return i, sealgate.TooDeep, "nesting deeper than the depth limit " + strconv.Itoa(limit)
			}
			i++
		case c == '}' || c == ']':
			depth--
			i++
		case c == '"':
			j, off := scanString(p, i)
			if off >= 0 {
				return off, sealgate.MalformedJSON, "noncharacter in a string"
			}
			i = j
		case c == '-' || (c >= '0' && c <= '9'):
			j := i + 1
			for j < len(p) && isNumberByte(p[j]) {
				j++
			}
			if numberOverflows(p[i:j]) {
				return i, sealgate.MalformedJSON, "number outside the float64 range"
			}
			i = j
		default:
			i++
		}
	}
	return -1, "", ""
}

// scanString scans the string starting at p[i] (its opening quote) and
// returns the index after it (len(p) if cut) and the offset of the first
// noncharacter in it, literal or escaped (-1 if none).
func scanString(p []byte, i int) (int, int) {
	j := i + 1
	for j < len(p) {
		c := p[j]
		switch {
		case c == '"':
			return j + 1, -1
		case c == '\\':
			if j+1 >= len(p) {
				return len(p), -1
			}
			if p[j+1] != 'u' {
				j += 2
				continue
			}
			if j+6 > len(p) {
				return len(p), -1
			}
			r := hex4(p[j+2 : j+6])
			n := 6
			if r >= 0xD800 && r <= 0xDBFF {
				// The prefix is valid, so a low half follows unless cut.
				if j+12 > len(p) {
					return len(p), -1
				}
				r = 0x10000 + (r-0xD800)<<10 + (hex4(p[j+8:j+12]) - 0xDC00)
				n = 12
			}
			if isNoncharacter(r) {
				return j, j
			}
			j += n
		case c < utf8.RuneSelf:
			j++
		default:
			r, size := utf8.DecodeRune(p[j:])
			if r == utf8.RuneError && size <= 1 {
				return len(p), -1 // cut mid-rune (the prefix is valid)
			}
			if isNoncharacter(r) {
				return j, j
			}
			j += size
		}
	}
	return len(p), -1
}

// hex4 reads the four hex digits of a \u escape that has been checked.
func hex4(b []byte) rune {
	r, _ := partial.Hex4(b)
	return r
}

// isNoncharacter reports the Unicode noncharacters that I-JSON forbids:
// U+FDD0..U+FDEF and the last two code points of every plane.
func isNoncharacter(r rune) bool {
	return (r >= 0xFDD0 && r <= 0xFDEF) || (r >= 0 && r <= utf8.MaxRune && r&0xFFFE == 0xFFFE)
}

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

func isNumberByte(c byte) bool {
	return (c >= '0' && c <= '9') || c == '.' || c == 'e' || c == 'E' || c == '+' || c == '-'
}

// numberOverflows reports whether a number literal rounds to an infinite
// float64. Underflow to zero is allowed.
func numberOverflows(num []byte) bool {
	_, finite := numberValue(string(num))
	return !finite
}

// maxParseDigits bounds the significant digits handed to strconv.ParseFloat:
// past 800 digits it misplaces the decimal point (Go 1.26:
// "1"+900 zeros+"e-900" parses as 1e-101), so longer mantissas are cut to
// this many digits plus a sticky nonzero digit, which keeps the rounding.
const maxParseDigits = 767

// numberValue returns the round-to-nearest float64 of a grammatical number
// literal and whether it is finite, without trusting strconv with long
// mantissas or huge exponents.
func numberValue(lit string) (float64, bool) {
	neg, digits, e := magnitude(lit)
	switch {
	case digits == "":
		return 0, true
	case e > 310: // at least 10^309: past the largest float64
		return math.Inf(1), false
	case e < -330: // below 10^-330: rounds to zero
		if neg {
			return math.Copysign(0, -1), true
		}
		return 0, true
	}
	if len(digits) > maxParseDigits {
		digits = digits[:maxParseDigits] + "1"
	}
	s := "0." + digits + "e" + strconv.FormatInt(e, 10)
	if neg {
		s = "-" + s
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil && !errors.Is(err, strconv.ErrRange) {
		return 0, false
	}
	return f, !math.IsInf(f, 0)
}
