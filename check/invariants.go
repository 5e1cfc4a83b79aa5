package check

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"github.com/sealgate/sealgate"
	"github.com/sealgate/sealgate/model"
)

// Violation is a broken invariant: which one, at which event, and what
// happened. Its Error text is meant to be read by the person who runs the
// suite.
type Violation struct {
	ID    string // a Check's ID: "I1" .. "I13", "SEAL", "CAPS", "DET"; or "SUBJECT", "ledger"
	Name  string
	Event int // 1-based, 0 when not tied to one event
	Msg   string
}

func (v *Violation) Error() string {
	if v.Event > 0 {
		return fmt.Sprintf("%s %s: event %d: %s", v.ID, v.Name, v.Event, v.Msg)
	}
	return fmt.Sprintf("%s %s: %s", v.ID, v.Name, v.Msg)
}

// invariant is one entry of the catalog: the check (its ID, its SPEC
// sentence, when it applies) and judge, which reads a recorded trace and
// returns the event and a sentence where the invariant breaks, or 0 and ""
// where it holds. Everything the suite knows of an invariant is here, so
// adding one is adding one entry.
type invariant struct {
	Check
	judge func(*analysis) (event int, msg string)
}

// catalog is the invariant catalog, in SPEC order. I5 and I6 compare runs
// and I12 compares implementations, so they are Checks outside it (All
// runs them).
var catalog = []invariant{
	{Check{ID: "I1", Name: "seal first", Applies: always}, sealFirst},
	{Check{ID: "I2", Name: "exact bytes", Applies: always}, exactBytes},
	{Check{ID: "I3", Name: "previews never reach the executor", Applies: always, Partial: previewsPartly}, previewsApart},
	{Check{ID: "I4", Name: "bad ends release nothing and compensate", Applies: always, Partial: compensatesPartly}, badEnds},
	{Check{ID: "I7", Name: "at most once per key", Applies: always, Partial: restartsPartly}, atMostOnce},
	// I8 and I9 follow which calls are still undecided, which only a
	// subject that gives every verdict says (one that cannot reject drops
	// a call silently).
	{Check{ID: "I8", Name: "attempts are isolated", Applies: func(c Capabilities) bool { return previews(c) && verdicts(c) }}, attemptsIsolated},
	{Check{ID: "I9", Name: "bounded", Applies: func(c Capabilities) bool { return c.Full || c.Retained && verdicts(c) }}, bounded},
	{Check{ID: "I10", Name: "redaction", Applies: previews}, redaction},
	{Check{ID: "I11", Name: "accountability", Applies: always, Partial: verdictsPartly}, accountability},
	{Check{ID: "I13", Name: "verdicts at one event in begin order", Applies: always}, beginOrder},
	{Check{ID: "SEAL", Name: "a release is one strictly valid JSON object, its fragments compacted", Applies: always}, sealed},
	// A full subject answers to I12, which holds every decision, not only
	// releases, to the model's.
	{Check{ID: "I14", Name: "release soundness", Applies: func(c Capabilities) bool { return !c.Full }, Partial: soundPartly}, releaseSound},
}

func soundPartly(c Capabilities) string {
	if c.Reasons {
		return ""
	}
	return "every release must be the model's; a call the model releases may go unreleased (no reasons claimed)"
}

func previewsPartly(c Capabilities) string {
	if previews(c) {
		return ""
	}
	return "no peek is sent; only that no release comes from a preview is checked"
}

func compensatesPartly(c Capabilities) string {
	if c.emits(sealgate.Compensate) {
		return ""
	}
	return "no compensation is expected; a release after a bad end is still a violation"
}

func restartsPartly(c Capabilities) string {
	if c.takes(sealgate.Restart) {
		return ""
	}
	return "within one process life only (no restart is sent)"
}

func verdictsPartly(c Capabilities) string {
	if verdicts(c) {
		return ""
	}
	return "only double verdicts (a subject that cannot reject and reconcile owes no verdict to a call it drops)"
}

// Invariants runs the catalog over a trace and returns the first
// violation, in catalog order, or nil. It runs the invariants that apply
// to the trace's capabilities (Checks), after checking that every decision
// is one the subject claims.
func Invariants(t *Trace) error {
	if t.Refused {
		return nil
	}
	if ev, msg := outOfCapabilities(t.Caps, t.Decisions); msg != "" {
		return &Violation{ID: "CAPS", Name: "decisions within the declared capabilities", Event: ev, Msg: msg}
	}
	a := analyze(t)
	for _, inv := range catalog {
		if !inv.Applies(t.Caps) {
			continue
		}
		if ev, msg := inv.judge(a); msg != "" {
			return &Violation{ID: inv.ID, Name: inv.Name, Event: ev, Msg: msg}
		}
	}
	return nil
}

func (a *analysis) event(at int) sealgate.Event { return a.t.Events[at-1] }

func (a *analysis) calls(f func(*callRec) (int, string)) (int, string) {
	for _, r := range a.attempts {
		for _, c := range r.calls {
			if ev, msg := f(c); msg != "" {
				return ev, msg
			}
		}
	}
	return 0, ""
}

func (a *analysis) early(tool string) bool {
	if a.t.Config.Release != sealgate.PerCall {
		return false
	}
	t, ok := a.t.Config.Tool(tool)
	return ok && t.Early
}

// I1: no release before the call's end and, unless it is an early tool
// under per-call, its attempt's close complete.
func sealFirst(a *analysis) (int, string) {
	return a.calls(func(c *callRec) (int, string) {
		d := c.released
		if d == nil {
			return 0, ""
		}
		if c.endAt == 0 || c.endAt > d.At {
			return d.At, fmt.Sprintf("%s released before its end", d)
		}
		if d.At == c.attempt.wellAt {
			return 0, ""
		}
		if a.early(c.tool) && d.At == c.endAt {
			return 0, ""
		}
		return d.At, fmt.Sprintf("%s released at %q, which is neither its attempt's close complete nor (early tool, per-call) its own end", d, a.event(d.At))
	})
}

// I2: released bytes are the call's own fragments in arrival order,
// compacted; I8 (isolation) follows, since only this attempt's deltas
// for this item count.
func exactBytes(a *analysis) (int, string) {
	return a.calls(func(c *callRec) (int, string) {
		d := c.released
		if d == nil {
			return 0, ""
		}
		want := sealgate.Compact(c.bytesUpTo(d.At))
		if !bytes.Equal(d.Args, want) {
			return d.At, fmt.Sprintf("%s: args differ from the call's own fragments compacted: %s%s", d, strconv.Quote(string(want)), a.whoseBytes(c, d))
		}
		return 0, ""
	})
}

// whoseBytes names the other call whose fragments, compacted, are the
// args of release d of call c ("" when none is): the bytes a shared or
// misrouted buffer took.
func (a *analysis) whoseBytes(c *callRec, d *sealgate.Decision) string {
	for _, r := range a.attempts {
		for _, o := range r.calls {
			if o == c || len(o.fragments) == 0 {
				continue
			}
			if bytes.Equal(d.Args, sealgate.Compact(o.bytesUpTo(d.At))) {
				return fmt.Sprintf("; they are the fragments of item %s (call=%s) of attempt %s", o.item, o.call, r.id)
			}
		}
	}
	return ""
}

// I3: a release never happens at a peek, a peek is answered by exactly one
// preview line and nothing else, and a preview value is "-" or strictly
// valid JSON: it is display, not input.
func previewsApart(a *analysis) (int, string) {
	for i, ds := range a.byEvent {
		at := i + 1
		isPeek := a.event(at).Kind == sealgate.Peek
		previews := 0
		for _, d := range ds {
			switch {
			case d.Kind == sealgate.PreviewAnswer && !isPeek:
				return at, fmt.Sprintf("%s answers an event that is not a peek", d)
			case d.Kind == sealgate.PreviewAnswer:
				previews++
				if d.Preview.Value != "-" {
					if r, err := model.CheckJSON([]byte(d.Preview.Value), a.t.Config.Limits.Depth); r != "" {
						return at, fmt.Sprintf("%s: preview value is not strict JSON: %v", d, err)
					}
				}
			case isPeek:
				return at, fmt.Sprintf("a peek caused %s", d)
			}
		}
		if isPeek && previews != 1 {
			return at, fmt.Sprintf("a peek got %d preview lines, want 1", previews)
		}
	}
	return 0, ""
}

// I4: an attempt that ends badly releases nothing from then on, each of its
// earlier releases is compensated at that event with that release's key
// (the executor acks it fail), and nothing else is ever compensated.
func badEnds(a *analysis) (int, string) {
	return a.calls(func(c *callRec) (int, string) {
		bad := c.attempt.badlyAt
		var compAt []int
		for _, d := range c.compensations {
			compAt = append(compAt, d.At)
		}
		if d := c.released; d != nil {
			if bad != 0 && d.At >= bad {
				return d.At, fmt.Sprintf("%s after its attempt ended badly at event %d", d, bad)
			}
			if bad != 0 && a.t.Caps.emits(sealgate.Compensate) && (len(compAt) != 1 || compAt[0] != bad) {
				return bad, fmt.Sprintf("attempt %s ended badly, but its early release of item %s was compensated at events %v, want exactly [%d]", c.attempt.id, c.item, compAt, bad)
			}
		}
		if (c.released == nil || bad == 0) && len(compAt) > 0 {
			return compAt[0], fmt.Sprintf("compensate for %s item %s, which was not released early in an attempt that ended badly", c.attempt.id, c.item)
		}
		for _, d := range c.compensations {
			if d.Key != c.released.Key {
				return d.At, fmt.Sprintf("%s, but the release it undoes has key %s", d, c.released.Key)
			}
		}
		return 0, ""
	})
}

// I7: between two releases with one idempotency key there is an accepted
// "ack KEY fail". For a subject that is not full, the key is the one the
// SPEC gives the released args, and one that takes acks must report it.
func atMostOnce(a *analysis) (int, string) {
	releasedAt := map[string]int{}
	for i, ev := range a.t.Events {
		at := i + 1
		if ev.Kind == sealgate.Ack && !ev.OK && !a.ackRefused[at] {
			delete(releasedAt, ev.Key)
		}
		for _, d := range a.byEvent[i] {
			if d.Kind != sealgate.Release {
				continue
			}
			key := d.Key
			if !a.t.Caps.Full {
				// The subject's keys are its own; the SPEC's decide.
				k, ok := a.specKeys[releaseRef{d.At, d.Attempt, d.Item}]
				if !ok {
					continue // args with no key: SEAL reports them
				}
				if a.t.Caps.Acks && d.Key != k {
					return at, fmt.Sprintf("%s: the SPEC's key is %s, so the executor's acks cannot reach this release", d, k)
				}
				key = k
			}
			if prev, ok := releasedAt[key]; ok {
				return at, fmt.Sprintf("%s: key %s was already released at event %d and no ack fail cleared it", d, key, prev)
			}
			releasedAt[key] = at
		}
	}
	return 0, ""
}

// I8: a peek sees only its own call's bytes in its own live attempt:
// bytes= counts exactly what that call received, and a call that is not
// live answers bytes=0 value=-.
func attemptsIsolated(a *analysis) (int, string) {
	for _, p := range a.peeks {
		var d *sealgate.Decision
		for i := range a.byEvent[p.at-1] {
			if a.byEvent[p.at-1][i].Kind == sealgate.PreviewAnswer {
				d = &a.byEvent[p.at-1][i]
			}
		}
		if d == nil {
			continue // I3 reports it
		}
		if !p.liveCall {
			if d.Preview != sealgate.NoPreview {
				return p.at, fmt.Sprintf("%s for a call that is not live, want bytes=0 value=-", d)
			}
			continue
		}
		if want := len(p.call.bytesUpTo(p.at)); d.Preview.Bytes != want {
			return p.at, fmt.Sprintf("%s, but the call received %d bytes in this attempt", d, want)
		}
	}
	return 0, ""
}

// I9: retained raw bytes never pass the limits, and a decided call retains
// none: the gate holds exactly the bytes of undecided calls of live attempts.
func bounded(a *analysis) (int, string) {
	if len(a.limitBreaches) > 0 {
		return 0, a.limitBreaches[0]
	}
	for i, got := range a.t.Retained {
		if want := a.expectRetained[i]; got != want {
			return i + 1, fmt.Sprintf("the gate retains %d raw bytes; undecided calls of live attempts hold %d", got, want)
		}
	}
	return 0, ""
}

// I10: in every preview, each secret field present shows "[redacted]".
func redaction(a *analysis) (int, string) {
	for _, p := range a.peeks {
		if p.call == nil {
			continue
		}
		tool, ok := a.t.Config.Tool(p.call.tool)
		if !ok || len(tool.Secrets) == 0 {
			continue
		}
		for _, d := range a.byEvent[p.at-1] {
			if d.Kind != sealgate.PreviewAnswer || d.Preview.Value == "-" {
				continue
			}
			var v any
			dec := json.NewDecoder(bytes.NewReader([]byte(d.Preview.Value)))
			dec.UseNumber()
			if err := dec.Decode(&v); err != nil {
				continue // I3 reports it
			}
			for _, s := range tool.Secrets {
				path, err := sealgate.SecretPath(s)
				if err != nil {
					continue
				}
				if got, found := lookup(v, path); found && got != "[redacted]" {
					return p.at, fmt.Sprintf("preview of %s item %s shows secret %s unredacted", p.call.attempt.id, p.call.item, s)
				}
			}
		}
	}
	return 0, ""
}

func lookup(v any, path []string) (any, bool) {
	for _, step := range path {
		m, ok := v.(map[string]any)
		if !ok {
			return nil, false
		}
		if v, ok = m[step]; !ok {
			return nil, false
		}
	}
	return v, true
}

// I11: every call begun while its attempt was live gets exactly one verdict
// by the time the attempt stops being live (unless a restart came first),
// and never more than one.
func accountability(a *analysis) (int, string) {
	return a.calls(func(c *callRec) (int, string) {
		if len(c.verdicts) > 1 {
			return c.verdicts[1].At, fmt.Sprintf("%s item %s got a second verdict %s after %s", c.attempt.id, c.item, c.verdicts[1], c.verdicts[0])
		}
		if down := c.attempt.downAt; down != 0 && verdicts(a.t.Caps) && !c.decidedBy(down) {
			return down, fmt.Sprintf("attempt %s stopped being live, but its call item %s has no verdict", c.attempt.id, c.item)
		}
		return 0, ""
	})
}

// I13: the verdicts and compensations given at one event come in their
// calls' begin order, as SPEC section 6 decides them ("one call at a time
// in begin order"; an attempt that ends badly "decides its calls at that
// event, in begin order"), so an executor that runs releases in the order
// given runs them in the order the model asked for them.
func beginOrder(a *analysis) (int, string) {
	for i, lines := range a.callLines {
		for j := 1; j < len(lines); j++ {
			prev, cur := lines[j-1], lines[j]
			if cur.call.beginAt < prev.call.beginAt {
				return i + 1, fmt.Sprintf("%s comes after %s, but item %s began at event %d, before item %s at event %d",
					cur.d, prev.d, cur.call.item, cur.call.beginAt, prev.call.item, prev.call.beginAt)
			}
		}
	}
	return 0, ""
}

// SEAL (research/peers.md): every release names a call the stream began in
// a live attempt, with that call's id and tool, and its args are one
// strictly valid JSON object (within the depth limit, as the seal's parse
// requires) equal to the call's own fragments compacted. The gate == model
// comparison implies it; this states it for subjects that have no model
// to agree with, and for the real gate as well.
func sealed(a *analysis) (int, string) {
	if len(a.orphans) > 0 {
		d := a.orphans[0]
		return d.At, fmt.Sprintf("%s names no call begun in a live attempt", d)
	}
	return a.calls(func(c *callRec) (int, string) {
		d := c.released
		if d == nil {
			return 0, ""
		}
		if d.Call != c.call || d.Tool != c.tool {
			return d.At, fmt.Sprintf("%s, but item %s of %s began as call=%s tool=%s", d, c.item, c.attempt.id, c.call, c.tool)
		}
		if _, err := model.CheckJSON(d.Args, a.t.Config.Limits.Depth); err != nil {
			return d.At, fmt.Sprintf("%s: args are not strictly valid JSON: %v", d, err)
		}
		if i := bytes.IndexFunc(d.Args, func(r rune) bool { return !isJSONSpace(r) }); i < 0 || d.Args[i] != '{' {
			return d.At, fmt.Sprintf("%s: args are not a JSON object", d)
		}
		if want := sealgate.Compact(c.bytesUpTo(d.At)); !bytes.Equal(d.Args, want) {
			return d.At, fmt.Sprintf("%s: args are not the call's own fragments compacted: %s%s", d, strconv.Quote(string(want)), a.whoseBytes(c, d))
		}
		return 0, ""
	})
}

func isJSONSpace(r rune) bool { return r == ' ' || r == '\t' || r == '\n' || r == '\r' }

func itoa(n int) string { return strconv.Itoa(n) }

// I14: every release of the subject is one the reference model makes on
// the same stream and configuration: the same call, the same arguments
// compacted, and (when the subject takes acks) the same key. Capabilities
// excuse what a subject does not report, never what it releases. A subject
// that claims the SPEC's reasons must also release what the model releases
// and not reject it.
func releaseSound(a *analysis) (int, string) {
	want := a.t.Shape
	if want == nil {
		want = model.Run(a.t.Config, a.t.Events)
	}
	// A call is its attempt and item within one process life: a replay
	// after a restart reuses the ids of calls the ledger already holds.
	type callID struct {
		epoch         int
		attempt, item string
	}
	epochs := make([]int, len(a.t.Events)+1)
	for i, ev := range a.t.Events {
		epochs[i+1] = epochs[i]
		if ev.Kind == sealgate.Restart {
			epochs[i+1]++
		}
	}
	id := func(d sealgate.Decision) callID {
		return callID{epochs[min(max(d.At, 0), len(a.t.Events))], d.Attempt, d.Item}
	}
	modelSays := map[callID][]sealgate.Decision{}
	for _, d := range want {
		if d.Kind == sealgate.Release || d.Kind == sealgate.Reject || d.Kind == sealgate.Reconcile {
			modelSays[id(d)] = append(modelSays[id(d)], d)
		}
	}
	modelRelease := func(k callID) *sealgate.Decision {
		for i, d := range modelSays[k] {
			if d.Kind == sealgate.Release {
				return &modelSays[k][i]
			}
		}
		return nil
	}
	keys := a.t.Caps.Acks
	for _, d := range a.t.Decisions {
		if d.Kind != sealgate.Release {
			continue
		}
		k := id(d)
		m := modelRelease(k)
		switch {
		case m == nil:
			return d.At, fmt.Sprintf("%s: the model does not release it: it says %s", d, verdictWords(modelSays[k]))
		case d.Call != m.Call || d.Tool != m.Tool:
			return d.At, fmt.Sprintf("%s: the model releases call=%s tool=%s for this item", d, m.Call, m.Tool)
		case !bytes.Equal(sealgate.Compact(d.Args), sealgate.Compact(m.Args)):
			return d.At, fmt.Sprintf("%s: the model releases args=%s", d, m.Args)
		case keys && d.Key != m.Key:
			return d.At, fmt.Sprintf("%s: the model releases it with key=%s", d, m.Key)
		}
	}
	if !a.t.Caps.Reasons {
		return 0, ""
	}
	for _, d := range a.t.Decisions {
		if d.Kind != sealgate.Reject {
			continue
		}
		if m := modelRelease(id(d)); m != nil {
			return d.At, fmt.Sprintf("%s: the model releases it: %s", d, m)
		}
	}
	return 0, ""
}

// verdictWords says what the model decided for a call, for a report.
func verdictWords(ds []sealgate.Decision) string {
	if len(ds) == 0 {
		return "nothing (no verdict: the call is not released)"
	}
	var w []string
	for _, d := range ds {
		switch d.Kind {
		case sealgate.Reject:
			w = append(w, "reject "+string(d.Reason))
		default:
			w = append(w, d.Kind.String())
		}
	}
	return strings.Join(w, ", ")
}
