package exhaust

import (
	"slices"
	"strconv"
	"strings"

	"github.com/sealgate/sealgate"
)

// The alphabet's bounds: two attempts over at most two turns,
// two items, two call ids, the setup's two tools.
const (
	maxAttempts = 2
	maxTurns    = 2
	maxItems    = 2
	maxCalls    = 2
)

// Fragment shapes. Whole is a complete object in one fragment; Head and
// Tail are the same text split in two (inside the string, so a preview sees
// half a value); Head alone is truncated, Tail alone is not JSON, and any
// other concatenation (Whole twice, Tail first) is malformed; Empty is the
// legal empty fragment. Every setup has these four.
var shapes = [][]byte{
	[]byte(`{"v":"ab"}`),
	[]byte(`{"v":"a`),
	[]byte(`b"}`),
	{},
}

// Number is another complete object, {"v":1}, written with its member name
// escaped and a mantissa of 801 digits: a fields: key finds the member by
// its unescaped name, and a key's number is the literal's round-to-nearest
// double, which strconv.ParseFloat misses past 800 digits. Only the setups
// that name it (Setup.Extra) have it: as a fragment cut into single bytes
// for I6 it costs hundreds of events per check.
var Number = []byte(`{"\u0076":1` + strings.Repeat("0", 800) + `e-800}`)

// Nonchar is {"v":"\uDBFF\uDFFF"}: the noncharacter U+10FFFF, outside the
// BMP, as an escaped surrogate pair, which the seal refuses.
var Nonchar = []byte(`{"v":"\uDBFF\uDFFF"}`)

// Whole is the complete argument text, also the one final= an end may
// carry (it matches Whole and Head+Tail, and nothing else).
var whole = shapes[0]

var statuses = []sealgate.Status{sealgate.Complete, sealgate.Truncated, sealgate.Failed,
	sealgate.Cancelled, sealgate.Disconnected}

// names gives the canonical names of one kind of id: the first one used in
// a sequence is names[0], the next new one names[1].
var (
	attemptNames = []string{"a1", "a2"}
	turnNames    = []string{"t1", "t2"}
	itemNames    = []string{"0", "1"}
	callNames    = []string{"c1", "c2"}
)

// used counts, per kind of id, how many distinct ones a sequence has
// named so far; they were named in canonical order, so they are the first
// ones of their list.
type used struct {
	attempts, turns, items, calls, tools int
}

// choices is the used names of a kind plus, below the bound, the next
// new one: renaming ids changes nothing, so a sequence that introduces a
// new id always introduces the first unused name (symmetry reduction by
// first-use order), and no two sequences generated differ only by a
// renaming.
func choices(n, bound int) int {
	if n < bound {
		return n + 1
	}
	return n
}

// room is what the letters at a state depend on besides the ids used, all
// of it read from the state's key: the ledger keys the run wrote (acks name
// only those) and the calls an extra shape may start.
type room struct {
	keys []string
	// fresh has bit freshBit(attempt, item) for each call of the setup's
	// ExtraTool in a live attempt that the model holds with no bytes, not
	// ended and not decided: an extra shape is there as the whole text of
	// a call whose release shows it, so it is a letter only where it
	// starts one (docs/research/exhaust.md says why that loses no bug).
	fresh uint64
}

// room.fresh has a bit per attempt and item: this fails to compile when
// the bounds outgrow it.
const _ = uint64(1) << (maxAttempts*maxItems - 1)

// freshBit is room.fresh's bit for the a-th attempt name and i-th item
// name; -1 for a name not in the lists.
func freshBit(attempt, item string) int {
	a, i := slices.Index(attemptNames, attempt), slices.Index(itemNames, item)
	if a < 0 || i < 0 {
		return -1
	}
	return a*maxItems + i
}

// freshCalls reads room.fresh from model.State's text, for the calls of
// tool ("": of every tool): a live attempt's line carries its turn, and
// each of its calls follows on a line of its own.
func freshCalls(state, tool string) uint64 {
	var fresh uint64
	attempt := ""
	for _, line := range strings.Split(state, "\n") {
		switch {
		case strings.HasPrefix(line, "attempt "):
			attempt = ""
			rest := line[len("attempt "):]
			q, err := strconv.QuotedPrefix(rest)
			if err != nil || !strings.HasPrefix(rest[len(q):], " turn=") {
				continue
			}
			attempt, _ = strconv.Unquote(q)
		case strings.HasPrefix(line, " call ") && attempt != "":
			f, ok := callFields(line[len(" call "):])
			if !ok || tool != "" && f["tool"] != tool || f["buf"] != "" || f["ended"] != "" || f["decided"] != "" {
				continue
			}
			if bit := freshBit(attempt, f["item"]); bit >= 0 {
				fresh |= 1 << bit
			}
		}
	}
	return fresh
}

// callFields reads a call line of model.State: name=quoted fields, then
// bare flags (given the value "on"). ok is false for a line it cannot read.
func callFields(s string) (map[string]string, bool) {
	f := map[string]string{}
	for s != "" {
		name, rest, hasValue := strings.Cut(s, "=")
		if !hasValue || strings.Contains(name, " ") {
			for _, flag := range strings.Fields(s) {
				f[flag] = "on"
			}
			return f, true
		}
		q, err := strconv.QuotedPrefix(rest)
		if err != nil {
			return nil, false
		}
		v, err := strconv.Unquote(q)
		if err != nil {
			return nil, false
		}
		f[name] = v
		s = strings.TrimPrefix(rest[len(q):], " ")
	}
	return f, true
}

// letters lists the events that may extend a sequence that has used u and
// is at room r. Events other than open name only attempts and (for delta,
// end and peek) items already named: a new attempt there is a no-open,
// which restart already reaches.
func (s *Setup) letters(u used, r room) ([]sealgate.Event, []used) {
	var evs []sealgate.Event
	var next []used
	add := func(e sealgate.Event, v used) {
		evs = append(evs, e)
		next = append(next, v)
	}
	toolChoices := len(s.Config.Tools)
	if s.Symmetric {
		toolChoices = choices(u.tools, len(s.Config.Tools))
	}
	for a := 0; a < choices(u.attempts, maxAttempts); a++ {
		for t := 0; t < choices(u.turns, maxTurns); t++ {
			v := u
			v.attempts, v.turns = max(v.attempts, a+1), max(v.turns, t+1)
			add(sealgate.OpenEvent(attemptNames[a], turnNames[t]), v)
		}
	}
	for a := 0; a < u.attempts; a++ {
		id := attemptNames[a]
		for i := 0; i < choices(u.items, maxItems); i++ {
			for c := 0; c < choices(u.calls, maxCalls); c++ {
				for t := 0; t < toolChoices; t++ {
					v := u
					v.items, v.calls = max(v.items, i+1), max(v.calls, c+1)
					if s.Symmetric {
						v.tools = max(v.tools, t+1)
					}
					add(sealgate.BeginEvent(id, itemNames[i], callNames[c], s.Config.Tools[t].Name), v)
				}
			}
		}
		for i := 0; i < u.items; i++ {
			item := itemNames[i]
			for _, b := range shapes {
				add(sealgate.DeltaEvent(id, item, b), u)
			}
			if r.fresh&(1<<(a*maxItems+i)) != 0 {
				for _, b := range s.Extra {
					add(sealgate.DeltaEvent(id, item, b), u)
				}
			}
			add(sealgate.EndEvent(id, item), u)
			add(sealgate.EndFinalEvent(id, item, whole), u)
			add(sealgate.PeekEvent(id, item), u)
		}
		for _, st := range statuses {
			add(sealgate.CloseEvent(id, st), u)
		}
	}
	for _, k := range r.keys {
		add(sealgate.AckEvent(k, true), u)
		add(sealgate.AckEvent(k, false), u)
	}
	add(sealgate.RestartEvent(), u)
	return evs, next
}
