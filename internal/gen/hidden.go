package gen

import "github.com/sealgate/sealgate"

// The two shapes of the hidden bug classes, which generators are measured
// on (docs/research/power/hidden.md): each was reached by one corpus file
// only, and a gate that gets one wrong passes every other stream.

// BadCloseAfterEnds reports whether, in evs with the model's decisions ds,
// a live attempt with calls, every one of them ended, is closed with a
// status other than complete: what a gate that takes such a close for
// complete gets wrong.
func BadCloseAfterEnds(evs []sealgate.Event, ds []sealgate.Decision) bool {
	calls := map[string]map[string]bool{} // attempt -> item -> ended
	for i, e := range evs {
		switch e.Kind {
		case sealgate.Open:
			calls[e.Attempt] = map[string]bool{}
		case sealgate.Begin:
			if c := calls[e.Attempt]; c != nil {
				c[e.Item] = false
			}
		case sealgate.End:
			if c, ok := calls[e.Attempt][e.Item]; ok && !c {
				calls[e.Attempt][e.Item] = true
			}
		case sealgate.Restart:
			clear(calls)
		case sealgate.Close:
			c := calls[e.Attempt]
			delete(calls, e.Attempt)
			if e.Status == sealgate.Complete || len(c) == 0 || !allTrue(c) {
				continue
			}
			// Live: the model decides its calls at this close, for the
			// bad status.
			for _, d := range ds {
				if d.At == i+1 && d.Kind == sealgate.Reject && d.Reason == sealgate.TurnReason(e.Status) {
					return true
				}
			}
		}
	}
	return false
}

func allTrue(m map[string]bool) bool {
	for _, v := range m {
		if !v {
			return false
		}
	}
	return true
}

// OtherKeyAfterAckFail reports whether, in evs with the model's decisions
// ds, a call after an ack fail is decided by a key's state (duplicate,
// duplicate-effect or reconcile): what a gate whose ack fail forgets the
// other keys gets wrong.
func OtherKeyAfterAckFail(evs []sealgate.Event, ds []sealgate.Decision) bool {
	fail := -1
	for i, e := range evs {
		if e.Kind == sealgate.Ack && !e.OK {
			fail = i + 1
			break
		}
	}
	if fail < 0 {
		return false
	}
	for _, d := range ds {
		if d.At > fail && (d.Kind == sealgate.Reconcile || d.Reason == sealgate.Duplicate || d.Reason == sealgate.DuplicateEffect) {
			return true
		}
	}
	return false
}
