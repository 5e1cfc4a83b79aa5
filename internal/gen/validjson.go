package gen

import (
	"fmt"
	"strconv"
	"strings"

	"pgregory.net/rapid"
)

// JSONObject generates strictly valid I-JSON objects: unique names,
// non-ASCII text, escapes (surrogate pairs included), finite numbers,
// nested containers, arbitrary whitespace. Each choice is a rapid draw, so
// rapid shrinks a failing object piece by piece; the machine writes the
// same objects from one seeded draw instead (validObject with
// SeededChooser).
func JSONObject() *rapid.Generator[string] {
	return rapid.Custom(func(t *rapid.T) string {
		return validObject(drawChooser{t})
	})
}

// smallIntn is a number in [0, n), small ones the most common (the smaller of
// two choices), as rapid's own integers lean small: objects stay shallow and
// short mostly.
func smallIntn(c Chooser, n int, label string) int {
	return min(c.Intn(n, label), c.Intn(n, label))
}

// validObject writes one generated object with c's choices.
func validObject(c Chooser) string {
	var b strings.Builder
	writeValidObject(c, &b, 0)
	return b.String()
}

var blanks = []string{"", "", "", " ", "\n  ", "\t", "\r\n"}

// blank is whitespace between tokens, mostly none.
func blank(c Chooser) string { return blanks[c.Intn(len(blanks), "ws")] }

// objectNames are the member names of valid objects.
var objectNames = []string{"path", "content", "token", "auth", "n", "m", "名字", "a b", "k"}

// writeValidObject writes an object of up to four members of distinct names.
func writeValidObject(c Chooser, b *strings.Builder, depth int) {
	b.WriteString("{" + blank(c))
	n := smallIntn(c, 5, "members")
	seen := map[string]bool{}
	for i := 0; i < n; i++ {
		name := objectNames[c.Intn(len(objectNames), "name")]
		if seen[name] {
			continue
		}
		seen[name] = true
		if len(seen) > 1 {
			b.WriteString("," + blank(c))
		}
		b.WriteString(quoteSome(c, name) + blank(c) + ":" + blank(c))
		writeValidValue(c, b, depth+1)
		b.WriteString(blank(c))
	}
	b.WriteString("}")
}

var (
	numberTexts  = []string{"0", "-0", "12", "-7.25", "1e3", "2.5E-3", "9007199254740993", "1e-400", "123456789012345678901234567890"}
	literalTexts = []string{"true", "false", "null"}
)

// writeValidValue writes a value: mostly a string or a scalar, containers
// above depth 3 never.
func writeValidValue(c Chooser, b *strings.Builder, depth int) {
	k := smallIntn(c, 8, "value-kind")
	if depth > 3 && k >= 5 {
		k = 0
	}
	switch k {
	case 0, 1:
		b.WriteString(quoteSome(c, randomText(c)))
	case 2:
		b.WriteString(numberTexts[c.Intn(len(numberTexts), "number")])
	case 3:
		b.WriteString(literalTexts[c.Intn(len(literalTexts), "literal")])
	case 4:
		b.WriteString(strconv.Itoa(c.Intn(2001, "int") - 1000))
	case 5:
		b.WriteString("[" + blank(c))
		n := smallIntn(c, 4, "items")
		for i := 0; i < n; i++ {
			if i > 0 {
				b.WriteString("," + blank(c))
			}
			writeValidValue(c, b, depth+1)
		}
		b.WriteString("]")
	default:
		writeValidObject(c, b, depth)
	}
}

// textRunes is the rune pool of generated strings: ASCII with the
// characters that need escaping, CJK, emoji (4-byte, surrogate pairs when
// escaped), combining marks; never noncharacters or surrogates. Each range
// is drawn as often as the others.
var textRunes = [][2]rune{{0x20, 0x7e}, {0x0a, 0x0a}, {0xe9, 0xe9}, {0x301, 0x301}, {0x4e00, 0x4e2f}, {0x1f600, 0x1f60f}}

// randomText is a string of 0 to 16 runes, mostly short.
func randomText(c Chooser) string {
	n := c.Intn(5, "text-len")
	if c.Intn(4, "long-text") == 0 {
		n = c.Intn(17, "long-text-len")
	}
	var b strings.Builder
	for ; n > 0; n-- {
		r := textRunes[c.Intn(len(textRunes), "rune-range")]
		b.WriteRune(r[0] + rune(c.Intn(int(r[1]-r[0])+1, "rune")))
	}
	return b.String()
}

// quoteSome writes s as a JSON string, escaping some runes as \uXXXX (pairs
// above the BMP) and the rest as themselves or short escapes.
func quoteSome(c Chooser, s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for _, r := range s {
		switch {
		case r == '"' || r == '\\':
			b.WriteString(`\` + string(r))
		case r < 0x20:
			fmt.Fprintf(&b, `\u%04x`, r)
		case c.Intn(6, "escape") == 0:
			if r > 0xFFFF {
				r -= 0x10000
				fmt.Fprintf(&b, `\u%04X\u%04x`, 0xD800+(r>>10), 0xDC00+(r&0x3FF))
			} else {
				fmt.Fprintf(&b, `\u%04x`, r)
			}
		default:
			b.WriteRune(r)
		}
	}
	b.WriteByte('"')
	return b.String()
}
