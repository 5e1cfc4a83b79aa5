package check

import (
	"fmt"
	"math/rand/v2"
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/sealgate/sealgate"
)

// The metamorphic relations of SPEC section 9 change a run in a way that
// must not change its decisions (I6: re-split fragments) or its releases
// (I5: serialize interleaved calls), and compare the two runs.

// rechunk splits every delta into pieces at the given cut points; cut(n)
// returns the piece lengths for an n-byte fragment. It returns the new
// events and, for each, the index (1-based) of the original event.
func rechunk(events []sealgate.Event, cut func(n int) []int) ([]sealgate.Event, []int) {
	// The cuts first, so that the output is allocated once: a long
	// fragment cut into single bytes is hundreds of events.
	cuts := make([][]int, len(events))
	split := make([]bool, len(events))
	total := 0
	for i, ev := range events {
		if ev.Kind != sealgate.Delta || len(ev.Bytes) < 2 {
			total++
			continue
		}
		cuts[i], split[i] = cut(len(ev.Bytes)), true
		total += len(cuts[i])
	}
	out := make([]sealgate.Event, 0, total)
	from := make([]int, 0, total)
	for i, ev := range events {
		if !split[i] {
			out, from = append(out, ev), append(from, i+1)
			continue
		}
		off := 0
		for _, n := range cuts[i] {
			piece := ev
			piece.Bytes = ev.Bytes[off : off+n]
			off += n
			out, from = append(out, piece), append(from, i+1)
		}
	}
	return out, from
}

// joinSplitRunes merges back every piece of one re-split delta that starts
// with a UTF-8 continuation byte into the piece before it, so that no new
// boundary falls inside a rune.
func joinSplitRunes(events []sealgate.Event, from []int) ([]sealgate.Event, []int) {
	var out []sealgate.Event
	var outFrom []int
	for i, ev := range events {
		n := len(out)
		if n > 0 && ev.Kind == sealgate.Delta && outFrom[n-1] == from[i] && len(ev.Bytes) > 0 && !utf8.RuneStart(ev.Bytes[0]) {
			prev := out[n-1]
			prev.Bytes = append(append([]byte(nil), prev.Bytes...), ev.Bytes...)
			out[n-1] = prev
			continue
		}
		out, outFrom = append(out, ev), append(outFrom, from[i])
	}
	return out, outFrom
}

// SingleBytes cuts a fragment into one-byte pieces: every boundary at once,
// mid-rune and mid-escape included.
func SingleBytes(n int) []int {
	out := make([]int, n)
	for i := range out {
		out[i] = 1
	}
	return out
}

// RandomCuts cuts fragments at pseudo-random boundaries from seed. It uses
// PCG, whose seeding costs two words where math/rand's source fills 607:
// check.All calls it once per sequence checked.
func RandomCuts(seed int64) func(int) []int {
	r := rand.New(rand.NewPCG(uint64(seed), 0))
	return func(n int) []int {
		var out []int
		for n > 0 {
			k := 1 + r.IntN(n)
			out = append(out, k)
			n -= k
		}
		return out
	}
}

// hitLimit reports whether a byte limit bit in this run; I5 and I6 hold
// only while none does (a limit is checked per fragment).
func hitLimit(ds []sealgate.Decision) bool {
	for _, d := range ds {
		if (d.Kind == sealgate.Reject && d.Reason == sealgate.TooLarge) ||
			(d.Kind == sealgate.Anomaly && d.Anomaly == sealgate.TurnTooLarge) {
			return true
		}
	}
	return false
}

// CheckChunking is I6: the re-split run's decisions, renumbered to the
// original events, equal the original's. Pieces of one refused delta that
// each draw the same no-open or after-close line count once.
func (c *Checker) CheckChunking(cfg sealgate.Config, events []sealgate.Event, orig []sealgate.Decision, cut func(int) []int) error {
	return c.chunking(cfg, events, orig, orig, cut, false)
}

// chunking is CheckChunking. shape is what tells whether a limit bit: the
// run's own decisions for a full subject, the model's for one that may not
// say so (Trace.Shape). runeSafe keeps every piece boundary at a rune
// boundary, for a subject that cannot carry a split rune.
func (c *Checker) chunking(cfg sealgate.Config, events []sealgate.Event, orig, shape []sealgate.Decision, cut func(int) []int, runeSafe bool) error {
	if hitLimit(shape) {
		return nil
	}
	split, from := rechunk(events, cut)
	if runeSafe {
		split, from = joinSplitRunes(split, from)
	}
	if len(split) == len(events) {
		return nil
	}
	got, err := c.runGate(cfg, split)
	if err != nil {
		return c.rerunFailed("re-split run", err)
	}
	var mapped []sealgate.Decision
	for _, d := range got {
		if d.At > 0 {
			d.At = from[d.At-1]
		}
		if n := len(mapped); n > 0 && mapped[n-1].Equal(d) {
			continue
		}
		mapped = append(mapped, d)
	}
	if err := Compare("original", orig, "re-split", mapped); err != nil {
		return &Violation{ID: "I6", Name: "chunking", Event: firstAt(err),
			Msg: fmt.Sprintf("re-splitting fragments changed a decision: %v", err)}
	}
	return nil
}

// serialize reorders, within each attempt, its begin/delta/end events so
// that each call's events come one after another, calls in begin order,
// every other event staying where it was. It reports whether anything
// moved.
func serialize(events []sealgate.Event) ([]sealgate.Event, bool) {
	out := append([]sealgate.Event(nil), events...)
	moved := false
	type window struct {
		pos   []int
		group map[string]int
	}
	open := map[string]*window{}
	flush := func(w *window) {
		if w == nil || len(w.pos) < 2 {
			return
		}
		evs := make([]sealgate.Event, len(w.pos))
		for i, p := range w.pos {
			evs[i] = events[p]
		}
		sort.SliceStable(evs, func(i, j int) bool { return w.group[evs[i].Item] < w.group[evs[j].Item] })
		for i, p := range w.pos {
			if evs[i].Kind != out[p].Kind || evs[i].Item != out[p].Item || string(evs[i].Bytes) != string(out[p].Bytes) {
				moved = true
			}
			out[p] = evs[i]
		}
	}
	for i, ev := range events {
		switch ev.Kind {
		case sealgate.Restart:
			for id, w := range open {
				flush(w)
				delete(open, id)
			}
		case sealgate.Open:
			if _, ok := open[ev.Attempt]; !ok {
				open[ev.Attempt] = &window{group: map[string]int{}}
			}
		case sealgate.Close:
			flush(open[ev.Attempt])
			delete(open, ev.Attempt)
		case sealgate.Begin, sealgate.Delta, sealgate.End:
			w := open[ev.Attempt]
			if w == nil {
				continue
			}
			if _, ok := w.group[ev.Item]; !ok {
				w.group[ev.Item] = len(w.group)
			}
			w.pos = append(w.pos, i)
		}
	}
	for _, w := range open {
		flush(w)
	}
	return out, moved
}

// CheckIsolation is I5: interleaved calls give the same releases as the same
// calls sent one after another. It applies to runs with no anomaly and no
// limit reached, where reordering cannot change the stream's shape.
func (c *Checker) CheckIsolation(cfg sealgate.Config, events []sealgate.Event, orig []sealgate.Decision) error {
	return c.isolation(cfg, events, orig, orig)
}

// isolation is CheckIsolation, with shape as in chunking.
func (c *Checker) isolation(cfg sealgate.Config, events []sealgate.Event, orig, shape []sealgate.Decision) error {
	for _, d := range shape {
		if d.Kind == sealgate.Anomaly || d.Kind == sealgate.Refused {
			return nil
		}
	}
	if hitLimit(shape) {
		return nil
	}
	serial, moved := serialize(events)
	if !moved {
		return nil
	}
	got, err := c.runGate(cfg, serial)
	if err != nil {
		return c.rerunFailed("serial run", err)
	}
	a, b := releases(orig), releases(got)
	if len(a) != len(b) {
		return &Violation{ID: "I5", Name: "isolation", Msg: fmt.Sprintf("interleaved run released %d calls, serial run %d:%s", len(a), len(b), showReleases(a, b))}
	}
	for i := range a {
		if a[i].same != b[i].same {
			return &Violation{ID: "I5", Name: "isolation", Msg: "releases differ:" + showReleases(a, b)}
		}
	}
	return nil
}

// rerunFailed is the error of a metamorphic run that did not finish: as it
// was for a gate (it failed closed), a SUBJECT violation for a subject.
func (c *Checker) rerunFailed(run string, err error) error {
	if c.NewSubject == nil {
		return err
	}
	return &Violation{ID: "SUBJECT", Name: "the subject failed", Msg: run + ": " + err.Error()}
}

// released is one release as I5 sees it: same is what must be equal
// between the runs (attempt, tool, key, args: event numbers, and which of
// two identical calls went first, may change with the order), line the
// whole release, item and call ids included, for the reader.
type released struct{ same, line string }

// releases is the multiset of what was released, sorted by what I5
// compares.
func releases(ds []sealgate.Decision) []released {
	var out []released
	for _, d := range ds {
		if d.Kind == sealgate.Release {
			line := d.String()
			if _, rest, ok := strings.Cut(line, " "); ok {
				line = rest // the event number is the run's own
			}
			out = append(out, released{same: d.Attempt + " " + d.Tool + " " + d.Key + " " + string(d.Args), line: line})
		}
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].same != out[j].same {
			return out[i].same < out[j].same
		}
		return out[i].line < out[j].line
	})
	return out
}

// showReleases prints both runs' releases, one per line, or (nothing).
func showReleases(interleaved, serial []released) string {
	var b strings.Builder
	for _, run := range []struct {
		name string
		rs   []released
	}{{"interleaved", interleaved}, {"serial", serial}} {
		b.WriteString("\n" + run.name + ":")
		if len(run.rs) == 0 {
			b.WriteString(" (nothing)")
		}
		for _, r := range run.rs {
			b.WriteString("\n  " + r.line)
		}
	}
	return b.String()
}

func firstAt(err error) int {
	if m, ok := err.(*Mismatch); ok {
		if m.Index < len(m.A) {
			return m.A[m.Index].At
		}
		if m.Index < len(m.B) {
			return m.B[m.Index].At
		}
	}
	return 0
}
