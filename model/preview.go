package model

import (
	"strings"

	"github.com/sealgate/sealgate"
)

// PreviewOf is SPEC section 8 from scratch: the preview of a live call that
// has received buf. secrets are the tool's secret paths (sealgate.SecretPath).
func PreviewOf(buf []byte, depth, previewBytes int, secrets [][]string) sealgate.Preview {
	b := buf
	if previewBytes >= 0 && len(b) > previewBytes {
		b = b[:previewBytes]
	}
	// P: everything from the first violation on is ignored. The parser
	// reports a violation at the first byte that is not viable, so the
	// bytes before it are the longest viable prefix.
	if _, viol := parse(b, depth, true); viol != nil {
		b = b[:viol.off]
	}
	root, _ := parse(b, depth, true) // P is viable: this stops only at its end
	v, ok := render(root, secrets)
	if !ok {
		v = "-"
	}
	return sealgate.Preview{Bytes: len(buf), Value: v}
}

// render writes the compact text of an unfinished value with its unfinished
// tail left out and its containers closed. It reports false when nothing of
// v is readable yet. secrets are the secret paths relative to v, which only
// matter when v is an object.
func render(v *value, secrets [][]string) (string, bool) {
	if v == nil {
		return "", false
	}
	switch v.kind {
	case kString:
		// raw holds only complete units, escapes as written.
		return `"` + string(v.raw) + `"`, true
	case kArray:
		var parts []string
		for _, e := range v.elems {
			if s, ok := render(e, nil); ok {
				parts = append(parts, s)
			}
		}
		return "[" + strings.Join(parts, ",") + "]", true
	case kObject:
		var parts []string
		for _, m := range v.members {
			if m.name == nil || !m.name.done || !m.colon || m.val == nil {
				continue // unfinished name, or a member with no value byte yet
			}
			name := `"` + string(m.name.raw) + `":`
			secret := false
			var sub [][]string
			for _, p := range secrets {
				if len(p) == 0 || p[0] != m.name.str {
					continue
				}
				if len(p) == 1 {
					secret = true
				} else {
					sub = append(sub, p[1:])
				}
			}
			if secret {
				parts = append(parts, name+`"[redacted]"`)
				continue
			}
			if m.val.kind != kObject {
				sub = nil // a pointer never goes through an array
			}
			if s, ok := render(m.val, sub); ok {
				parts = append(parts, name+s)
			}
		}
		return "{" + strings.Join(parts, ",") + "}", true
	default: // number or literal: only when finished
		if v.done {
			return v.lit, true
		}
		return "", false
	}
}
