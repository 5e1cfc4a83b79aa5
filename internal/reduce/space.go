package reduce

import "github.com/sealgate/sealgate"

// isSpace reports the four bytes JSON allows between tokens.
func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

// scanner follows one call's bytes across fragments, so that a space is
// known to stand between tokens (removable) or inside a string (kept) even
// when a fragment starts in the middle of a string or an escape.
type scanner struct{ inString, escaped bool }

// strip returns b without the JSON whitespace outside strings, advancing
// the scanner over b.
func (s *scanner) strip(b []byte) []byte {
	out := make([]byte, 0, len(b))
	for _, c := range b {
		switch {
		case s.escaped:
			s.escaped = false
		case s.inString && c == '\\':
			s.escaped = true
		case c == '"':
			s.inString = !s.inString
		case !s.inString && isSpace(c):
			continue
		}
		out = append(out, c)
	}
	return out
}

// HasPadding reports whether the bytes of a call, fragment after fragment,
// hold JSON whitespace outside strings: what trimSpace removes when the
// failure allows it, and what a reduced scenario should not show.
func HasPadding(frags ...[]byte) bool {
	var s scanner
	for _, f := range frags {
		if len(s.strip(f)) != len(f) {
			return true
		}
	}
	return false
}

// callKey names a call's bytes in a stream: its attempt and item.
func callKey(e sealgate.Event) string { return e.Attempt + "\x00" + e.Item }

// stripped returns events with the JSON whitespace between tokens removed
// from the deltas and finals that pick selects (by index), each call's
// deltas scanned as one text and each final as its own.
func stripped(events []sealgate.Event, pick func(i int) bool) []sealgate.Event {
	out := append([]sealgate.Event{}, events...)
	scans := map[string]*scanner{}
	for i, e := range out {
		switch e.Kind {
		case sealgate.Begin:
			scans[callKey(e)] = &scanner{}
		case sealgate.Delta:
			s := scans[callKey(e)]
			if s == nil {
				s = &scanner{}
				scans[callKey(e)] = s
			}
			b := s.strip(e.Bytes)
			if pick(i) {
				out[i].Bytes = b
			}
		case sealgate.End:
			if e.HasFinal && pick(i) {
				out[i].Final = (&scanner{}).strip(e.Final)
			}
		}
	}
	return out
}

// trimSpace removes JSON whitespace between tokens from fragments and
// finals: everywhere at once, else call by call (its deltas with its
// final, so that they keep agreeing), else fragment by fragment; then
// drops the deltas left empty. Padding is the commonest noise in a captured
// or generated stream and cutting it byte by byte costs a try per byte.
func (r *reducer) trimSpace() bool {
	padded := func(evs []sealgate.Event, i int) bool {
		e := evs[i]
		return e.Kind == sealgate.Delta && len(e.Bytes) > 0 || e.Kind == sealgate.End && e.HasFinal
	}
	same := func(a, b []sealgate.Event) bool {
		for i := range a {
			if string(a[i].Bytes) != string(b[i].Bytes) || string(a[i].Final) != string(b[i].Final) {
				return false
			}
		}
		return true
	}
	changed := false
	attempt := func(pick func(i int) bool) bool {
		cand := stripped(r.events, pick)
		if same(cand, r.events) {
			return false
		}
		if r.tryBytes(cand) {
			changed = true
			return true
		}
		return false
	}
	if !attempt(func(int) bool { return true }) {
		var calls []string
		seen := map[string]bool{}
		for _, e := range r.events {
			if k := callKey(e); (e.Kind == sealgate.Delta || e.Kind == sealgate.End) && !seen[k] {
				seen[k] = true
				calls = append(calls, k)
			}
		}
		for _, k := range calls {
			attempt(func(i int) bool { return callKey(r.events[i]) == k })
		}
		for i := range r.events {
			if padded(r.events, i) {
				attempt(func(j int) bool { return j == i })
			}
		}
	}
	for i := 0; i < len(r.events); i++ {
		if e := r.events[i]; e.Kind == sealgate.Delta && len(e.Bytes) == 0 {
			cand := append(append([]sealgate.Event{}, r.events[:i]...), r.events[i+1:]...)
			if r.try(r.cfg, cand) {
				changed = true
				i--
			}
		}
	}
	return changed
}
