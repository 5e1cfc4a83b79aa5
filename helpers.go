package sealgate

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
)

// Compact removes JSON whitespace (space, tab, LF, CR) outside strings and
// changes nothing else: escapes and number spellings stay as written. It is
// the release form of a sealed argument text, and it is only meaningful on
// strictly valid JSON.
func Compact(raw []byte) []byte {
	out := make([]byte, 0, len(raw))
	last := 0 // raw[last:i] is kept and not yet copied
	for i := 0; i < len(raw); i++ {
		switch raw[i] {
		case ' ', '\t', '\n', '\r':
			out = append(out, raw[last:i]...)
			last = i + 1
		case '"':
			i = stringEnd(raw, i)
		}
	}
	return append(out, raw[last:]...)
}

// stringEnd returns the index of the quote that closes the string opened
// at raw[open] (len(raw) if none): the next quote not escaped, that is, not
// preceded by an odd run of backslashes.
func stringEnd(raw []byte, open int) int {
	for i := open + 1; ; {
		q := bytes.IndexByte(raw[i:], '"')
		if q < 0 {
			return len(raw)
		}
		i += q
		slashes := 0
		for j := i - 1; j > open && raw[j] == '\\'; j-- {
			slashes++
		}
		if slashes%2 == 0 {
			return i
		}
		i++
	}
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
