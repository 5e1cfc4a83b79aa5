package gate

import (
	"bytes"
	"encoding/json"
	"errors"
	"regexp"
	"strconv"

	"github.com/go-json-experiment/json/jsontext"

	"github.com/sealgate/sealgate"
	"github.com/sealgate/sealgate/internal/zoo/faults"
)

// The suite proves its power by switching deliberate bugs on in this very
// code; the switches live in an internal package, out of users' reach.
func init() {
	faults.Register(func(cfg sealgate.Config, s faults.Set) (faults.Gate, error) {
		g, err := New(cfg, NewMemoryLedger())
		if err != nil {
			return nil, err
		}
		g.faults = s
		return g, nil
	})
}

// The deliberate bugs themselves. Production code reaches them only
// through `if g.faults.X` at the one place each changes, and g.faults is
// always the zero Set outside the suite.

// repairJSON closes what an unfinished text left open, as the repair
// libraries on real execution paths do (real-bugs.md section 4).
func repairJSON(b []byte) []byte {
	var stack []byte
	inString, escaped := false, false
	for _, c := range b {
		switch {
		case inString && escaped:
			escaped = false
		case inString && c == '\\':
			escaped = true
		case inString && c == '"':
			inString = false
		case inString:
		case c == '"':
			inString = true
		case c == '{':
			stack = append(stack, '}')
		case c == '[':
			stack = append(stack, ']')
		case (c == '}' || c == ']') && len(stack) > 0:
			stack = stack[:len(stack)-1]
		}
	}
	out := append([]byte{}, b...)
	if escaped {
		out = out[:len(out)-1]
	}
	if inString {
		out = append(out, '"')
	}
	for i := len(stack) - 1; i >= 0; i-- {
		out = append(out, stack[i])
	}
	return out
}

// lenientText is what a lenient parser makes of b: its first value read by
// encoding/json (duplicate names: the last wins; trailing text ignored;
// NaN and Infinity read as 0) and written back. ok is false when even that
// fails.
func lenientText(b []byte) ([]byte, bool) {
	b = bytes.ReplaceAll(bytes.ReplaceAll(b, []byte("NaN"), []byte("0")), []byte("Infinity"), []byte("0"))
	var v any
	d := json.NewDecoder(bytes.NewReader(b))
	d.UseNumber()
	if err := d.Decode(&v); err != nil {
		return nil, false
	}
	out, err := json.Marshal(v)
	return out, err == nil
}

// redactFragment is the per-fragment redaction of LeakSplitSecret: a
// pattern over one delta's text, blind to secrets split across deltas.
func redactFragment(names []string, b []byte) []byte {
	for _, n := range names {
		re := regexp.MustCompile(`"` + regexp.QuoteMeta(n) + `"\s*:\s*"[^"]*"`)
		b = re.ReplaceAll(b, []byte(`"`+n+`":"[redacted]"`))
	}
	return b
}

// topSecrets are the top-level secret names of a tool, for redactFragment.
func topSecrets(paths [][]string) []string {
	var out []string
	for _, p := range paths {
		if len(p) == 1 {
			out = append(out, p[0])
		}
	}
	return out
}

func (t *tool) secretsOrNil() [][]string {
	if t == nil {
		return nil
	}
	return t.secrets
}

// firstPerMember keeps, of the secret paths through one top-level member,
// the first (fault FirstSecretPerMember: secrets indexed by member).
func firstPerMember(paths [][]string) [][]string {
	seen := map[string]bool{}
	var out [][]string
	for _, p := range paths {
		if !seen[p[0]] {
			seen[p[0]] = true
			out = append(out, p)
		}
	}
	return out
}

// hasBMPNoncharacter is the noncharacter test written for the BMP only
// (fault NoncharBMPOnly): planes 1 to 16 pass.
func hasBMPNoncharacter(s string) bool {
	for _, r := range s {
		if (r >= 0xFDD0 && r <= 0xFDEF) || r == 0xFFFE || r == 0xFFFF {
			return true
		}
	}
	return false
}

// parseFloatNumbers copies a decoded document with every number replaced
// by what strconv.ParseFloat makes of its literal (fault
// KeyNumbersParseFloat), trusting it with mantissas of any length.
func parseFloatNumbers(v any) any {
	switch v := v.(type) {
	case map[string]any:
		m := make(map[string]any, len(v))
		for k, x := range v {
			m[k] = parseFloatNumbers(x)
		}
		return m
	case []any:
		a := make([]any, len(v))
		for i, x := range v {
			a[i] = parseFloatNumbers(x)
		}
		return a
	case json.Number:
		f, err := strconv.ParseFloat(string(v), 64)
		if err != nil && !errors.Is(err, strconv.ErrRange) {
			return v
		}
		return json.Number(strconv.FormatFloat(f, 'g', -1, 64))
	}
	return v
}

// byRawNames is the document's top-level members keyed by their names as
// written between the quotes, escapes kept (fault FieldsRawNames).
func byRawNames(raw []byte, args map[string]any) map[string]any {
	out := map[string]any{}
	d := jsontext.NewDecoder(bytes.NewReader(raw))
	if tok, err := d.ReadToken(); err != nil || tok.Kind() != '{' {
		return args
	}
	for d.PeekKind() == '"' {
		lit, err := d.ReadValue()
		if err != nil {
			return args
		}
		// lit is the decoder's buffer, valid only until the next read.
		name, key := string(lit[1:len(lit)-1]), unquote(lit)
		if err := d.SkipValue(); err != nil {
			return args
		}
		out[name] = args[key]
	}
	return out
}
