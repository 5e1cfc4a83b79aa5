package model

import (
	"errors"
	"math"
	"sort"
	"strconv"
	"strings"
	"unicode/utf16"
)

// Canonical returns the RFC 8785 (JCS) form of a strictly valid JSON text:
// members sorted by the UTF-16 code units of their unescaped names, minimal
// string escapes, numbers as IEEE doubles in ECMAScript form.
func Canonical(raw []byte) ([]byte, error) {
	root, viol := parse(raw, math.MaxInt, false)
	if viol != nil {
		return nil, viol
	}
	if root == nil {
		return nil, errors.New("no value")
	}
	var b strings.Builder
	canon(&b, root)
	return []byte(b.String()), nil
}

func canon(b *strings.Builder, v *value) {
	switch v.kind {
	case kObject:
		ms := append([]*member(nil), v.members...)
		sort.SliceStable(ms, func(i, j int) bool { return utf16Less(ms[i].name.str, ms[j].name.str) })
		b.WriteByte('{')
		for i, m := range ms {
			if i > 0 {
				b.WriteByte(',')
			}
			canonString(b, m.name.str)
			b.WriteByte(':')
			canon(b, m.val)
		}
		b.WriteByte('}')
	case kArray:
		b.WriteByte('[')
		for i, e := range v.elems {
			if i > 0 {
				b.WriteByte(',')
			}
			canon(b, e)
		}
		b.WriteByte(']')
	case kString:
		canonString(b, v.str)
	case kNumber:
		f, _ := numberFloat(v.lit)
		b.WriteString(esNumber(f))
	default:
		b.WriteString(v.lit)
	}
}

// utf16Less orders strings by their UTF-16 code units (RFC 8785 3.2.3).
func utf16Less(a, b string) bool {
	ua, ub := utf16.Encode([]rune(a)), utf16.Encode([]rune(b))
	for i := 0; i < len(ua) && i < len(ub); i++ {
		if ua[i] != ub[i] {
			return ua[i] < ub[i]
		}
	}
	return len(ua) < len(ub)
}

// canonString writes s with the minimal escapes of RFC 8785 3.2.2.2.
func canonString(b *strings.Builder, s string) {
	const hex = "0123456789abcdef"
	b.WriteByte('"')
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '"':
			b.WriteString(`\"`)
		case c == '\\':
			b.WriteString(`\\`)
		case c == '\b':
			b.WriteString(`\b`)
		case c == '\t':
			b.WriteString(`\t`)
		case c == '\n':
			b.WriteString(`\n`)
		case c == '\f':
			b.WriteString(`\f`)
		case c == '\r':
			b.WriteString(`\r`)
		case c < 0x20:
			b.WriteString(`\u00`)
			b.WriteByte(hex[c>>4])
			b.WriteByte(hex[c&0xF])
		default:
			b.WriteByte(c) // UTF-8 bytes pass through unchanged
		}
	}
	b.WriteByte('"')
}

// esNumber is ECMAScript Number::toString for a finite double (ECMA-262
// 6.1.6.1.20), the number form of RFC 8785.
func esNumber(f float64) string {
	if f == 0 {
		return "0" // also -0
	}
	if f < 0 {
		return "-" + esNumber(-f)
	}
	// Shortest round-tripping digits s (k of them) and n such that
	// f = 0.s × 10^n, i.e. s × 10^(n-k).
	e := strconv.FormatFloat(f, 'e', -1, 64) // d.ddde±x
	mant, exp, _ := strings.Cut(e, "e")
	s := strings.Replace(mant, ".", "", 1)
	x, _ := strconv.Atoi(exp)
	k, n := len(s), x+1
	switch {
	case k <= n && n <= 21:
		return s + strings.Repeat("0", n-k)
	case 0 < n && n <= 21:
		return s[:n] + "." + s[n:]
	case -6 < n && n <= 0:
		return "0." + strings.Repeat("0", -n) + s
	}
	sign := "+"
	if n-1 < 0 {
		sign = "-"
	}
	d := n - 1
	if d < 0 {
		d = -d
	}
	if k == 1 {
		return s + "e" + sign + strconv.Itoa(d)
	}
	return s[:1] + "." + s[1:] + "e" + sign + strconv.Itoa(d)
}
