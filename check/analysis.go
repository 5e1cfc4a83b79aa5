package check

import (
	"github.com/sealgate/sealgate"
	"github.com/sealgate/sealgate/model"
)

// The analysis replays a trace's events beside its decisions and rebuilds,
// per attempt and per call, what the invariants talk about: which bytes a
// call received, when it ended, its verdicts. It takes the stream shape
// (opens, begins, closes, restarts) from the events, and poisoning from the
// anomaly lines; whether those lines are right is the gate-vs-model check's
// job.

type attemptState uint8

const (
	live attemptState = iota + 1
	dead
	ended
)

type fragment struct {
	at    int // 1-based event index
	bytes []byte
}

type callRec struct {
	attempt       *attemptRec
	item          string
	call          string
	tool          string
	beginAt       int
	endAt         int // first end, 0 if none
	fragments     []fragment
	verdicts      []sealgate.Decision // release, reject, reconcile
	released      *sealgate.Decision
	compensations []sealgate.Decision // its compensate lines
}

func (c *callRec) bytesUpTo(at int) []byte {
	var b []byte
	for _, f := range c.fragments {
		if f.at <= at {
			b = append(b, f.bytes...)
		}
	}
	return b
}

func (c *callRec) size() int {
	n := 0
	for _, f := range c.fragments {
		n += len(f.bytes)
	}
	return n
}

func (c *callRec) decidedBy(at int) bool {
	for _, v := range c.verdicts {
		if v.At <= at {
			return true
		}
	}
	return false
}

type attemptRec struct {
	epoch     int
	id, turn  string
	openAt    int
	state     attemptState
	wellAt    int // event of its close complete while live
	badlyAt   int // event at which it was poisoned, superseded or closed badly
	downAt    int // event at which it stopped being live, for any reason
	calls     []*callRec
	callsByID map[string]*callRec // by item
}

type analysis struct {
	t        *Trace
	byEvent  [][]sealgate.Decision
	attempts []*attemptRec // every attempt of every epoch, in open order
	// epochOf[i] is the restart epoch of event i+1.
	epochOf []int
	// liveAfter[i] lists the attempts live after event i+1, with their
	// undecided calls' bytes summed, for I9.
	expectRetained []int
	limitBreaches  []string
	// peeks, with the call (nil if none) and whether it was live.
	peeks []peekRec
	// unknown-ack lines by event, to tell accepted acks from refused ones.
	ackRefused map[int]bool
	// orphans are releases that name no call of a live attempt.
	orphans []sealgate.Decision
	// callLines[i] is event i+1's verdicts and compensations that name a
	// call of an attempt, in the order given, with the call (I13).
	callLines [][]callLine
	// specKeys holds, for a subject that is not full, the SPEC's key of
	// each release whose args have one (see model.IdemKey).
	specKeys map[releaseRef]string
}

// callLine is a verdict or compensation and the call it names.
type callLine struct {
	d    sealgate.Decision
	call *callRec
}

// releaseRef names one release line.
type releaseRef struct {
	at            int
	attempt, item string
}

type peekRec struct {
	at       int
	call     *callRec
	liveCall bool
}

var poisoning = map[sealgate.AnomalyKind]bool{
	sealgate.Reopen: true, sealgate.UnknownCall: true, sealgate.AfterEnd: true,
	sealgate.DuplicateBegin: true, sealgate.IdentityConflict: true, sealgate.TooManyCalls: true,
	sealgate.TurnTooLarge: true, sealgate.FinalMismatch: true,
}

func analyze(t *Trace) *analysis {
	a := &analysis{t: t, byEvent: t.byEvent(), ackRefused: map[int]bool{}, callLines: make([][]callLine, len(t.Events))}
	shape := a.byEvent
	if t.Shape != nil {
		shape = byEvent(t.Shape, len(t.Events))
	}
	epoch := 0
	byID := map[string]*attemptRec{} // current epoch
	used := map[string]bool{}
	for i, ev := range t.Events {
		at := i + 1
		ds := a.byEvent[i]
		a.epochOf = append(a.epochOf, epoch)
		hasAnomaly := false
		var pending *callRec // the call a delta may append to
		for _, d := range shape[i] {
			if d.Kind == sealgate.Anomaly {
				hasAnomaly = true
				if d.Anomaly == sealgate.UnknownAck {
					a.ackRefused[at] = true
				}
			}
		}
		down := func(r *attemptRec, bad bool) {
			if r.state != live {
				return
			}
			r.downAt = at
			if bad {
				r.badlyAt = at
			}
		}
		switch ev.Kind {
		case sealgate.Restart:
			epoch++
			byID = map[string]*attemptRec{}
			used = map[string]bool{}
		case sealgate.Open:
			if used[ev.Attempt] {
				break // a reopen: the anomaly line poisons, below
			}
			used[ev.Attempt] = true
			for _, r := range byID {
				if r.state == live && r.turn == ev.Turn {
					down(r, true)
					r.state = ended
				}
			}
			r := &attemptRec{epoch: epoch, id: ev.Attempt, turn: ev.Turn, openAt: at, state: live,
				callsByID: map[string]*callRec{}}
			byID[ev.Attempt] = r
			a.attempts = append(a.attempts, r)
		case sealgate.Begin:
			if r := byID[ev.Attempt]; r != nil && r.state == live && !hasAnomaly {
				c := &callRec{attempt: r, item: ev.Item, call: ev.Call, tool: ev.Tool, beginAt: at}
				r.calls = append(r.calls, c)
				r.callsByID[ev.Item] = c
			}
		case sealgate.Delta:
			if r := byID[ev.Attempt]; r != nil && r.state == live && !hasAnomaly {
				pending = r.callsByID[ev.Item]
			}
		case sealgate.End:
			if r := byID[ev.Attempt]; r != nil && r.state == live {
				if c := r.callsByID[ev.Item]; c != nil && c.endAt == 0 {
					c.endAt = at
				}
			}
		case sealgate.Close:
			if r := byID[ev.Attempt]; r != nil {
				switch r.state {
				case live:
					if ev.Status == sealgate.Complete {
						r.wellAt = at
						down(r, false)
					} else {
						down(r, true)
					}
					r.state = ended
				case dead:
					r.state = ended
				}
			}
		case sealgate.Peek:
			var c *callRec
			liveCall := false
			if r := byID[ev.Attempt]; r != nil {
				c = r.callsByID[ev.Item]
				liveCall = c != nil && r.state == live && !c.decidedBy(at-1)
			}
			a.peeks = append(a.peeks, peekRec{at: at, call: c, liveCall: liveCall})
		}
		// Decisions of this event: poisoning (from the stream's shape),
		// verdicts, compensations.
		for _, d := range shape[i] {
			if r := byID[d.Attempt]; r != nil && d.Kind == sealgate.Anomaly && poisoning[d.Anomaly] && r.state == live {
				down(r, true)
				r.state = dead
			}
		}
		for _, d := range ds {
			r := byID[d.Attempt]
			if r == nil {
				if d.Kind == sealgate.Release {
					a.orphans = append(a.orphans, d)
				}
				continue
			}
			switch d.Kind {
			case sealgate.Release, sealgate.Reject, sealgate.Reconcile:
				if c := r.callsByID[d.Item]; c != nil {
					a.callLines[i] = append(a.callLines[i], callLine{d, c})
					c.verdicts = append(c.verdicts, d)
					if d.Kind == sealgate.Release {
						dd := d
						c.released = &dd
						a.noteSpecKey(c, d)
					}
				} else if d.Kind == sealgate.Release {
					a.orphans = append(a.orphans, d)
				}
			case sealgate.Compensate:
				if c := r.callsByID[d.Item]; c != nil {
					a.callLines[i] = append(a.callLines[i], callLine{d, c})
					c.compensations = append(c.compensations, d)
				}
			}
		}
		// A fragment counts only if its call is still undecided after it
		// (a too-large fragment is refused, not counted).
		if pending != nil && !pending.decidedBy(at) {
			pending.fragments = append(pending.fragments, fragment{at, ev.Bytes})
		}
		// What the gate may retain now: the bytes of undecided calls of
		// live attempts, each within its limits.
		sum := 0
		for _, r := range byID {
			if r.state != live {
				continue
			}
			turn := 0
			for _, c := range r.calls {
				turn += c.size()
				if c.decidedBy(at) {
					continue
				}
				n := c.size()
				sum += n
				if n > t.Config.Limits.CallBytes {
					a.limitBreaches = append(a.limitBreaches, breach(at, "call", r.id, c.item, n, t.Config.Limits.CallBytes))
				}
			}
			if turn > t.Config.Limits.TurnBytes {
				a.limitBreaches = append(a.limitBreaches, breach(at, "turn", r.id, "", turn, t.Config.Limits.TurnBytes))
			}
		}
		a.expectRetained = append(a.expectRetained, sum)
	}
	return a
}

// noteSpecKey records the SPEC's key of release d of call c, when the
// subject's own keys are not vouched for by the model comparison.
func (a *analysis) noteSpecKey(c *callRec, d sealgate.Decision) {
	if a.t.Caps.Full {
		return
	}
	tool, ok := a.t.Config.Tool(c.tool)
	if !ok {
		return
	}
	if k, err := model.IdemKey(*tool, c.attempt.turn, c.call, d.Args); err == nil {
		if a.specKeys == nil {
			a.specKeys = map[releaseRef]string{}
		}
		a.specKeys[releaseRef{d.At, d.Attempt, d.Item}] = k
	}
}

func breach(at int, what, attempt, item string, n, limit int) string {
	s := "event " + itoa(at) + ": attempt " + attempt
	if item != "" {
		s += " item " + item
	}
	return s + " holds " + itoa(n) + " bytes, past " + what + "-bytes=" + itoa(limit)
}
