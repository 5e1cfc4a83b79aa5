package gen

import (
	"fmt"
	"strconv"
	"strings"
)

// writer writes documents in a run's value shapes.
type writer struct {
	c       Chooser
	shapes  Shape
	twin    bool // no tails: every write of a tree is the same value
	respell bool // numbers respelled (same decimal value)
	long    bool // a number of this text has a mantissa past 800 digits already
}

// respellNumber respells a number text; of the numbers of one text, one
// at most gets a mantissa past 800 digits (one shows what a long mantissa
// does to a key, and each costs about 850 bytes in every check).
func (w *writer) respellNumber(n string) string {
	out, long := respell(w.c, n, !w.long)
	w.long = w.long || long
	return out
}

func (w *writer) object(b *strings.Builder, o *object) {
	b.WriteByte('{')
	for i, name := range o.names {
		if i > 0 {
			b.WriteByte(',')
		}
		w.name(b, name)
		b.WriteByte(':')
		switch v := o.vals[i].(type) {
		case *object:
			w.object(b, v)
		case *leaf:
			switch {
			case v.isStr:
				w.str(b, v.str)
			case w.respell:
				b.WriteString(w.respellNumber(v.text))
			default:
				b.WriteString(v.text)
			}
		}
	}
	if w.shapes&DupNames != 0 && !w.twin && len(o.names) > 0 && w.c.Intn(6, "dup-name") == 0 {
		// The first name again, spelled with escapes: a duplicate after
		// unescaping (malformed-json), which a parser comparing raw names misses.
		b.WriteString(`,` + escapeAll(o.names[0]) + `:0`)
	}
	b.WriteByte('}')
}

// escapeAll writes every rune of s as \u escapes (pairs above the BMP).
func escapeAll(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for _, r := range s {
		if r > 0xFFFF {
			r -= 0x10000
			fmt.Fprintf(&b, `\u%04x\u%04x`, 0xD800+(r>>10), 0xDC00+(r&0x3FF))
		} else {
			fmt.Fprintf(&b, `\u%04X`, r)
		}
	}
	b.WriteByte('"')
	return b.String()
}

// shortEscapes are the two-character escapes and what they stand for.
var shortEscapes = map[rune]string{'"': `\"`, '\\': `\\`, '/': `\/`, '\b': `\b`, '\f': `\f`, '\n': `\n`, '\r': `\r`, '\t': `\t`}

// str writes s as a JSON string in the run's escape shapes, then maybe
// adds a shaped tail (an astral rune, a noncharacter, a reversed pair).
func (w *writer) str(b *strings.Builder, s string) {
	w.text(b, s)
	if !w.twin && w.shapes&(EscapeForms|SurrogatePair|Noncharacter) != 0 && w.c.Intn(3, "tail") == 0 {
		w.tail(b)
	}
	b.WriteByte('"')
}

// name writes a member name in the run's escape shapes, never with a
// tail: the name must still be the one schemas and secrets say. A twin's
// respelled text writes half its names as \u escapes throughout, so a
// key or a lookup that reads names as written (not unescaped) tells the
// twins apart.
func (w *writer) name(b *strings.Builder, s string) {
	if w.respell && s != "" && w.c.Intn(2, "name-escape-all") == 0 {
		b.WriteString(escapeAll(s))
		return
	}
	w.text(b, s)
	b.WriteByte('"')
}

// text writes the opening quote and s, escaped in the run's shapes.
func (w *writer) text(b *strings.Builder, s string) {
	b.WriteByte('"')
	for _, r := range s {
		if e, ok := shortEscapes[r]; ok && (r == '"' || r == '\\' || r < 0x20 || w.shapes&EscapeForms != 0 && w.c.Intn(2, "short-escape") == 0) {
			b.WriteString(e)
			continue
		}
		switch {
		case r < 0x20:
			fmt.Fprintf(b, `\u%04x`, r)
		case w.shapes&EscapeForms != 0 && w.c.Intn(3, "u-escape") == 0:
			writeU(b, r, w.c.Intn(2, "hex-case") == 0)
		default:
			b.WriteRune(r)
		}
	}
}

// writeU writes r as \uXXXX, a surrogate pair above the BMP.
func writeU(b *strings.Builder, r rune, upper bool) {
	f := `\u%04x`
	if upper {
		f = `\u%04X`
	}
	if r > 0xFFFF {
		r -= 0x10000
		fmt.Fprintf(b, f+f, 0xD800+(r>>10), 0xDC00+(r&0x3FF))
		return
	}
	fmt.Fprintf(b, f, r)
}

// tail writes one shaped piece of string content: escaped control
// characters, astral runes literal or as pairs, a pair in the wrong order
// or cut in half, a noncharacter of some plane.
func (w *writer) tail(b *strings.Builder) {
	var opts []func()
	if w.shapes&EscapeForms != 0 {
		opts = append(opts, func() { b.WriteString(`\b\f\n\r\t\/\\\"\u0000\u001F\u007f`) })
	}
	if w.shapes&SurrogatePair != 0 {
		astral := rune(0x10000 + w.c.Intn(0x100000, "astral"))
		if astral&0xFFFE == 0xFFFE {
			astral = 0x1F600
		}
		opts = append(opts,
			func() { writeU(b, astral, w.c.Intn(2, "hex-case") == 0) },
			func() { b.WriteRune(astral) },
			func() { b.WriteString(`\uDE00\uD83D`) }, // low before high: two lone surrogates
			func() { b.WriteString(`\uD83D`) },       // a high half alone
			func() { b.WriteString(`\uD83Dx\uDE00`) },
			func() { b.WriteString(`\uD83D\uD83D\uDE00`) },
			func() { b.WriteString("\xed\xa0\x80") }, // a surrogate as UTF-8 bytes: invalid UTF-8
		)
	}
	nonchar := len(opts)
	if w.shapes&Noncharacter != 0 {
		plane := rune(w.c.Intn(17, "plane"))
		nc := plane<<16 | 0xFFFE | rune(w.c.Intn(2, "fffe-ffff"))
		if w.c.Intn(4, "fdd0") == 0 {
			nc = 0xFDD0 + rune(w.c.Intn(32, "fdd0-offset"))
		}
		opts = append(opts,
			func() { writeU(b, nc, w.c.Intn(2, "hex-case") == 0) },
			func() { b.WriteRune(nc) },
		)
	}
	switch {
	case len(opts) == 0:
	case nonchar < len(opts) && w.c.Intn(2, "tail-nonchar") == 0:
		// Half the tails of a run with noncharacters are one: among
		// the seven surrogate shapes they were rare, and a document
		// with a broken pair besides is refused whatever the
		// noncharacter test says.
		opts[nonchar+w.c.Intn(len(opts)-nonchar, "nonchar-kind")]()
	default:
		opts[w.c.Intn(len(opts), "tail-kind")]()
	}
}

// respell writes a number text with the same decimal value otherwise: a
// long zero exponent, trailing zeros in the fraction, zeros padding an
// exponent, a mantissa of 801 to 900 digits (when mayLong; long says so).
// Anything but a bare number
// is written as it is.
func respell(c Chooser, n string, mayLong bool) (out string, long bool) {
	if n == "" || !(n[0] == '-' || n[0] >= '0' && n[0] <= '9') || strings.ContainsAny(n, "[{\"") {
		return n, false
	}
	exp := strings.IndexAny(n, "eE")
	k := c.Intn(6, "respell")
	if k >= 3 { // half the numbers: past 800 digits is where ParseFloat goes wrong
		if mayLong {
			if l, ok := longMantissa(c, n); ok {
				return l, true
			}
		}
		k = 0
	}
	switch {
	case exp < 0 && k == 0:
		return n + "e0000000000000000000000", false
	case exp < 0 && !strings.Contains(n, ".") && k == 1:
		return n + ".00000000000000000000", false
	case exp < 0 && k == 1:
		return n + "00000000000000000000", false
	case exp >= 0 && k < 2:
		rest := n[exp+1:]
		sign := ""
		if rest != "" && (rest[0] == '+' || rest[0] == '-') {
			sign, rest = rest[:1], rest[1:]
		}
		return n[:exp+1] + sign + "000000000000" + rest, false
	}
	return n, false
}

// longMantissa writes the number n with 801 to 900 digits before its
// exponent: its digits, then zeros, times the power of ten that takes the
// zeros back (1 is 1000...0e-850), the same decimal value. Past 800 digits
// strconv.ParseFloat (Go 1.26) misplaces the decimal point; the SPEC's
// number is the literal's round-to-nearest value however long (section
// 5). ok is false for a zero (no digit to lead) and for an exponent past
// a million.
func longMantissa(c Chooser, n string) (string, bool) {
	sign := ""
	if n[0] == '-' {
		sign, n = "-", n[1:]
	}
	exp := 0
	if i := strings.IndexAny(n, "eE"); i >= 0 {
		e, err := strconv.Atoi(n[i+1:])
		if err != nil || e > 1e6 || e < -1e6 {
			return "", false
		}
		exp, n = e, n[:i]
	}
	whole, frac, _ := strings.Cut(n, ".")
	digits := strings.TrimLeft(whole+frac, "0")
	if digits == "" {
		return "", false
	}
	zeros := max(0, 801+c.Intn(100, "mantissa-digits")-len(digits))
	return sign + digits + strings.Repeat("0", zeros) + "e" + strconv.Itoa(exp-len(frac)-zeros), true
}

// longNumbers are numbers of many digits: all finite under the strict
// grammar but the last two (one rounds to +Inf, one is far past it).
var longNumbers = []string{
	"1e0000000000000000000001", "1.000000000000000000000000000000000001", "-0.00000000000000000000000000000000000000000000001",
	"123456789012345678901234567890123456789e-30", "1E+00000000000000000000000000000308", "1e-99999999999999999999",
	"-1.7976931348623157e308", "1.7976931348623158e308", "4.9e-324", "2.4703282292062328e-324", "9007199254740993",
	"1.7976931348623159e308", "1e99999999999999999999",
}

// value writes a generated value (depth bounds nesting).
func (w *writer) value(depth int) string {
	var b strings.Builder
	k := w.c.Intn(6, "value-kind")
	if depth > 2 && k >= 4 {
		k = 0
	}
	switch k {
	case 0:
		w.str(&b, []string{"x", "日期", "a b", "😀", "é", "/etc/passwd"}[w.c.Intn(6, "text")])
	case 1:
		if w.shapes&LongNumbers != 0 {
			b.WriteString(longNumbers[w.c.Intn(len(longNumbers), "long-number")])
		} else {
			b.WriteString([]string{"0", "-0", "12", "-7.25", "1e3", "2.5E-3"}[w.c.Intn(6, "number")])
		}
	case 2:
		b.WriteString([]string{"true", "false", "null"}[w.c.Intn(3, "literal")])
	case 3:
		b.WriteString(strconv.Itoa(w.c.Intn(2001, "int") - 1000))
	case 4:
		b.WriteByte('[')
		for i := w.c.Intn(3, "items"); i > 0; i-- {
			b.WriteString(w.value(depth + 1))
			if i > 1 {
				b.WriteByte(',')
			}
		}
		b.WriteByte(']')
	default:
		o := &object{}
		for i := w.c.Intn(3, "members"); i > 0; i-- {
			nm := memberNames[w.c.Intn(len(memberNames), "name")]
			o.set(nm, &leaf{text: w.value(depth + 1)})
		}
		w.object(&b, o)
	}
	return b.String()
}
