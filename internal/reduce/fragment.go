package reduce

import (
	"bytes"

	"github.com/sealgate/sealgate"
)

// accumulated is each call's bytes so far at every end: the text a final
// repeats.
func accumulated(events []sealgate.Event) map[int][]byte {
	acc := map[string][]byte{}
	at := map[int][]byte{}
	for i, e := range events {
		switch e.Kind {
		case sealgate.Begin:
			acc[callKey(e)] = nil
		case sealgate.Delta:
			acc[callKey(e)] = append(acc[callKey(e)], e.Bytes...)
		case sealgate.End:
			at[i] = append([]byte{}, acc[callKey(e)]...)
		}
	}
	return at
}

// syncFinals makes a final that repeated its call's bytes in before repeat
// them in after too (the two streams have the same events but for delta
// bytes), so that a shorter fragment does not become a final-mismatch.
func syncFinals(before, after []sealgate.Event) []sealgate.Event {
	old, now := accumulated(before), accumulated(after)
	var out []sealgate.Event
	for i, e := range after {
		if e.Kind == sealgate.End && e.HasFinal && bytes.Equal(e.Final, old[i]) && !bytes.Equal(e.Final, now[i]) {
			if out == nil {
				out = append([]sealgate.Event{}, after...)
			}
			out[i].Final = now[i]
		}
	}
	if out == nil {
		return after
	}
	return out
}

func deltaBytes(events []sealgate.Event) int {
	n := 0
	for _, e := range events {
		if e.Kind == sealgate.Delta {
			n += len(e.Bytes)
		}
	}
	return n
}

// tryBytes tries a candidate whose deltas changed: finals follow their
// calls' bytes, acks follow their calls' keys, and, if the plain
// candidate does not fail, a byte limit the configuration sets is lowered
// by the bytes the candidate removed, so that a fragment that was only
// there to pass a limit can shrink with it.
func (r *reducer) tryBytes(cand []sealgate.Event) bool {
	cand = syncFinals(r.events, cand)
	if r.try(r.cfg, r.rekey(r.cfg, cand)) {
		return true
	}
	removed := deltaBytes(r.events) - deltaBytes(cand)
	def := sealgate.DefaultLimits()
	if removed <= 0 || r.cfg.Limits.CallBytes == def.CallBytes && r.cfg.Limits.TurnBytes == def.TurnBytes {
		return false
	}
	c := cloneConfig(r.cfg)
	for _, l := range []struct {
		v   *int
		def int
	}{{&c.Limits.CallBytes, def.CallBytes}, {&c.Limits.TurnBytes, def.TurnBytes}} {
		if *l.v != l.def {
			*l.v = max(*l.v-removed, 1)
		}
	}
	return r.try(c, r.rekey(c, cand))
}

// replaceFragment tries delta i as b: first together with every other
// delta that has the same bytes (two calls that must stay equal, a call
// and its duplicate say), then alone.
func (r *reducer) replaceFragment(i int, b []byte) bool {
	old := r.events[i].Bytes
	cand := append([]sealgate.Event{}, r.events...)
	others := false
	for j, e := range cand {
		if j != i && e.Kind == sealgate.Delta && bytes.Equal(e.Bytes, old) {
			cand[j].Bytes, others = b, true
		}
	}
	cand[i].Bytes = b
	if others && r.tryBytes(cand) {
		return true
	}
	cand = append([]sealgate.Event{}, r.events...)
	cand[i].Bytes = b
	return r.tryBytes(cand)
}

// dropFinal tries end i without its final: most failures do not need the
// repeated text, and while it stands every shorter fragment must match it.
func (r *reducer) dropFinal(i int) bool {
	if e := r.events[i]; e.Kind != sealgate.End || !e.HasFinal {
		return false
	}
	cand := append([]sealgate.Event{}, r.events...)
	cand[i].Final, cand[i].HasFinal = nil, false
	return r.try(r.cfg, cand)
}
