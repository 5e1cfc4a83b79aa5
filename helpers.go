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
			i = StringEnd(raw, i+1)
		}
	}
	return append(out, raw[last:]...)
}

// StringEnd returns the index of the quote that closes a string, searching
// raw from from (len(raw) if it is not there): the next quote not escaped,
// that is, not preceded by an odd run of backslashes. The string's opening
// quote comes before from, and raw[from-1] is not the closing quote; a run
// of backslashes never reaches past the opening quote, so it is counted in
// raw itself. From the byte after the opening quote it reads the whole
// string; from a later point it resumes a search that an earlier, shorter
// raw ended (the preview's watcher, as the text grows). It jumps from quote
// to quote instead of reading every byte.
func StringEnd(raw []byte, from int) int {
	for i := from; ; {
		q := bytes.IndexByte(raw[i:], '"')
		if q < 0 {
			return len(raw)
		}
		i += q
		slashes := 0
		for j := i - 1; j >= 0 && raw[j] == '\\'; j-- {
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

// ArgsMaterial is the material of idem mode args: the turn, a zero byte,
// the tool name, a zero byte, the canonical (RFC 8785) form of the
// arguments. The turn scopes it: a retry, regeneration or replay of a turn
// is the same action, the same call in a later turn a new one.
func ArgsMaterial(turn, tool string, canonical []byte) []byte {
	m := make([]byte, 0, len(turn)+1+len(tool)+1+len(canonical))
	m = append(m, turn...)
	m = append(m, 0)
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
