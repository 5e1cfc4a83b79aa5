package sealgate

import (
	"crypto/sha256"
	"encoding/hex"
)

// Compact removes JSON whitespace (space, tab, LF, CR) outside strings and
// changes nothing else: escapes and number spellings stay as written. It is
// the release form of a sealed argument text, and it is only meaningful on
// strictly valid JSON.
func Compact(raw []byte) []byte {
	out := make([]byte, 0, len(raw))
	inString, escaped := false, false
	for _, c := range raw {
		if inString {
			out = append(out, c)
			switch {
			case escaped:
				escaped = false
			case c == '\\':
				escaped = true
			case c == '"':
				inString = false
			}
			continue
		}
		switch c {
		case ' ', '\t', '\n', '\r':
			continue
		case '"':
			inString = true
		}
		out = append(out, c)
	}
	return out
}

// Key returns the idempotency key of a material: the first 16 lowercase hex
// digits of its SHA-256 (SPEC section 4).
func Key(material []byte) string {
	sum := sha256.Sum256(material)
	return hex.EncodeToString(sum[:8])
}

// ArgsMaterial is the material of idem mode args: the tool name, a zero
// byte, the canonical (RFC 8785) form of the arguments.
func ArgsMaterial(tool string, canonical []byte) []byte {
	m := make([]byte, 0, len(tool)+1+len(canonical))
	m = append(m, tool...)
	m = append(m, 0)
	return append(m, canonical...)
}

// CallMaterial is the material of idem mode call: the turn, a zero byte,
// the vendor call id.
func CallMaterial(turn, call string) []byte {
	m := make([]byte, 0, len(turn)+1+len(call))
	m = append(m, turn...)
	m = append(m, 0)
	return append(m, call...)
}

// FieldsMaterial is the material of idem mode fields: the tool name, a zero
// byte, then each listed field's canonical form followed by a zero byte. An
// absent field must be passed as the canonical form of null.
func FieldsMaterial(tool string, canonicals [][]byte) []byte {
	m := append([]byte(tool), 0)
	for _, c := range canonicals {
		m = append(m, c...)
		m = append(m, 0)
	}
	return m
}
