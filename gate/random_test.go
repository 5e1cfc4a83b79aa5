package gate

import (
	"math/rand"
	"reflect"
	"strconv"
	"testing"

	"github.com/sealgate/sealgate"
)

// randomEvent draws from small pools of ids and byte pieces so that events
// collide often: reopen, duplicate keys, splits mid-escape and mid-rune.
func randomEvent(r *rand.Rand) sealgate.Event {
	attempts := []string{"r1", "r2", "r3"}
	turns := []string{"t1", "t2"}
	items := []string{"0", "1", "2"}
	calls := []string{"c0", "c1", "c2"}
	tools := []string{"note", "save_file", "send", "nope"}
	pieces := []string{`{`, `}`, `"n":1`, `"n":1.0`, `,`, `"to":"x`, `"`, `\u00`, `e9`, "\xc3", "\xa9",
		`[`, `]`, ` `, ``, `"path":"notes.md","content":"`, `\ud83d`, `\ude00`, `1e400`, `"\uffff"`}
	a := attempts[r.Intn(len(attempts))]
	it := items[r.Intn(len(items))]
	switch n := r.Intn(100); {
	case n < 8:
		return sealgate.OpenEvent(a, turns[r.Intn(len(turns))])
	case n < 18:
		return sealgate.BeginEvent(a, it, calls[r.Intn(len(calls))], tools[r.Intn(len(tools))])
	case n < 60:
		var b []byte
		for k := r.Intn(3); k >= 0; k-- {
			b = append(b, pieces[r.Intn(len(pieces))]...)
		}
		return sealgate.DeltaEvent(a, it, b)
	case n < 72:
		if r.Intn(4) == 0 {
			return sealgate.EndFinalEvent(a, it, []byte(`{"n":1}`))
		}
		return sealgate.EndEvent(a, it)
	case n < 82:
		return sealgate.CloseEvent(a, sealgate.Status(1+r.Intn(5)))
	case n < 86:
		return sealgate.RestartEvent()
	case n < 92:
		return sealgate.PeekEvent(a, it)
	}
	keys := []string{argsKey("t1", "note", `{"n":1}`), argsKey("t2", "note", `{"n":1}`), argsKey("t1", "send", `{"to":"x"}`), "0000000000000000"}
	return sealgate.AckEvent(keys[r.Intn(len(keys))], r.Intn(2) == 0)
}

// randomStream builds mostly well-formed attempts (calls interleaved,
// fragments split at random bytes) with noise: random events, restarts,
// acks of released keys, peeks, regenerations of a turn.
func randomStream(r *rand.Rand, n int) []sealgate.Event {
	args := []string{`{"n":1}`, `{ "n" : 1.0 }`, `{"n":2}`, `{"to":"x"}`, `{"to":"\u0078"}`,
		`{"path":"notes.md","content":"h\u00e9 \ud83d\ude00"}`, `{"n":1`, `[]`, `{"a":{"b":{}}}`,
		`{"n":"x"}`, `{"s":"\uffff"}`, `{"n":1e400}`, `{"to":"y"}`, "{\"k\":\"\xc3\xa9\"}"}
	tools := []string{"note", "save_file", "send", "nope"}
	var keys []string // the args keys of some released calls, in every turn the stream opens
	for _, turn := range []string{"t0", "t1", "t2"} {
		keys = append(keys, argsKey(turn, "note", `{"n":1}`), argsKey(turn, "note", `{"n":2}`),
			argsKey(turn, "send", `{"to":"x"}`), argsKey(turn, "send", `{"to":"y"}`))
	}
	var evs []sealgate.Event
	next := 0
	for len(evs) < n {
		next++
		a := "r" + strconv.Itoa(next)
		if r.Intn(10) == 0 {
			a = "r" + strconv.Itoa(1+r.Intn(next)) // reopen
		}
		evs = append(evs, sealgate.OpenEvent(a, "t"+strconv.Itoa(r.Intn(3))))
		k := 1 + r.Intn(3)
		type pend struct {
			item string
			rest string
		}
		var calls []*pend
		for i := 0; i < k; i++ {
			item := strconv.Itoa(i)
			evs = append(evs, sealgate.BeginEvent(a, item, "c"+item, tools[r.Intn(len(tools))]))
			calls = append(calls, &pend{item: item, rest: args[r.Intn(len(args))]})
		}
		for len(calls) > 0 {
			i := r.Intn(len(calls))
			c := calls[i]
			switch x := r.Intn(40); {
			case x == 0:
				evs = append(evs, randomEvent(r))
			case x == 1:
				evs = append(evs, sealgate.PeekEvent(a, c.item))
			case x == 2:
				evs = append(evs, sealgate.AckEvent(keys[r.Intn(len(keys))], r.Intn(3) > 0))
			}
			if c.rest == "" {
				if r.Intn(8) > 0 {
					evs = append(evs, sealgate.EndEvent(a, c.item))
				}
				calls = append(calls[:i], calls[i+1:]...)
				continue
			}
			cut := 1 + r.Intn(len(c.rest))
			evs = append(evs, sealgate.DeltaEvent(a, c.item, []byte(c.rest[:cut])))
			c.rest = c.rest[cut:]
		}
		st := sealgate.Complete
		if r.Intn(5) == 0 {
			st = sealgate.Status(2 + r.Intn(4))
		}
		if r.Intn(10) > 0 {
			evs = append(evs, sealgate.CloseEvent(a, st))
		}
		if r.Intn(12) == 0 {
			evs = append(evs, sealgate.RestartEvent())
		}
		for r.Intn(3) == 0 {
			evs = append(evs, sealgate.AckEvent(keys[r.Intn(len(keys))], r.Intn(2) == 0))
		}
	}
	return evs
}

// Random streams: no panic, At counts events, retained bytes stay bounded
// and drop to 0 at restart, a release is strictly valid, and a key is
// released at most once until an ack fail clears it (I7, across restarts:
// the ledger remembers).
func TestRandomEvents(t *testing.T) {
	send := sealgate.Tool{Name: "send", Schema: `{"type":"object"}`, Early: true, Secrets: []string{"to"}}
	configs := []sealgate.Config{
		testConfig(),
		testConfig(atomic),
		testConfig(perCall, withTool(send)),
		testConfig(withLimits(func(l *sealgate.Limits) {
			*l = sealgate.Limits{CallBytes: 12, TurnBytes: 20, Calls: 2, Depth: 2, PreviewBytes: 4}
		})),
		testConfig(perCall, withTool(send), withLimits(func(l *sealgate.Limits) {
			*l = sealgate.Limits{CallBytes: 30, TurnBytes: 40, Calls: 3, Depth: 1, PreviewBytes: 1}
		})),
	}
	seen := map[sealgate.DecisionKind]int{}
	for ci, cfg := range configs {
		for seed := int64(1); seed <= 30; seed++ {
			r := rand.New(rand.NewSource(seed*100 + int64(ci)))
			g, err := New(cfg, NewMemoryLedger())
			if err != nil {
				t.Fatal(err)
			}
			var evs []sealgate.Event
			if seed%5 == 0 {
				for i := 0; i < 300; i++ {
					evs = append(evs, randomEvent(r))
				}
			} else {
				evs = randomStream(r, 300)
			}
			held := map[string]bool{} // released and not cleared by ack fail
			for i, ev := range evs {
				i++
				ds, err := g.Feed(ev)
				if err != nil {
					t.Fatalf("config %d seed %d event %d (%s): %v", ci, seed, i, ev, err)
				}
				anomaly := false
				for _, d := range ds {
					seen[d.Kind]++
					if d.At != i {
						t.Fatalf("config %d seed %d: %s at event %d", ci, seed, d, i)
					}
					switch d.Kind {
					case sealgate.Release:
						if held[d.Key] {
							t.Fatalf("config %d seed %d event %d: key %s released twice", ci, seed, i, d.Key)
						}
						held[d.Key] = true
						if rr, err := ValidJSON(d.Args, cfg.Limits.Depth); err != nil {
							t.Fatalf("config %d seed %d event %d: released invalid args (%s)", ci, seed, i, rr)
						}
					case sealgate.Anomaly:
						anomaly = true
					}
				}
				if ev.Kind == sealgate.Ack && !ev.OK && !anomaly {
					delete(held, ev.Key)
				}
				if ev.Kind == sealgate.Restart && g.Retained() != 0 {
					t.Fatalf("config %d seed %d: %d bytes retained after restart", ci, seed, g.Retained())
				}
				if g.Retained() < 0 || g.Retained() > cfg.Limits.TurnBytes*len(g.turns) {
					t.Fatalf("config %d seed %d event %d: Retained() = %d with %d live attempts",
						ci, seed, i, g.Retained(), len(g.turns))
				}
			}
		}
	}
	// The streams must reach every kind of decision, or they test little.
	for _, k := range []sealgate.DecisionKind{sealgate.Release, sealgate.Reject, sealgate.Anomaly,
		sealgate.Compensate, sealgate.Reconcile, sealgate.PreviewAnswer} {
		if seen[k] == 0 {
			t.Errorf("no %s decision in any random stream", k)
		}
	}
	t.Logf("decisions: %v", seen)
}

// FeedDelta answers exactly as Feed does with the delta as an Event:
// decisions, retained bytes and the event count, over the random streams
// (anomalies, budgets, dead and ended attempts included), every delta fed
// one way to one gate and the other way to another. Both entry points run
// the same delta path, so this holds the two thin entry points equal; the
// path itself answers to the model through the checks, and a gate that has
// failed closed to TestLedgerFailureFailsClosed.
func TestFeedDeltaIsFeed(t *testing.T) {
	configs := []sealgate.Config{
		testConfig(),
		testConfig(withLimits(func(l *sealgate.Limits) {
			*l = sealgate.Limits{CallBytes: 12, TurnBytes: 20, Calls: 2, Depth: 2, PreviewBytes: 4}
		})),
	}
	deltas := 0
	for ci, cfg := range configs {
		for seed := int64(1); seed <= 40; seed++ {
			r := rand.New(rand.NewSource(seed*7 + int64(ci)))
			var evs []sealgate.Event
			if seed%2 == 0 {
				for range 300 {
					evs = append(evs, randomEvent(r))
				}
			} else {
				evs = randomStream(r, 300)
			}
			viaEvent, err := New(cfg, NewMemoryLedger())
			if err != nil {
				t.Fatal(err)
			}
			direct, _ := New(cfg, NewMemoryLedger())
			for i, ev := range evs {
				want, werr := viaEvent.Feed(ev)
				var got []sealgate.Decision
				var gerr error
				if ev.Kind == sealgate.Delta {
					deltas++
					got, gerr = direct.FeedDelta(ev.Attempt, ev.Item, ev.Bytes)
				} else {
					got, gerr = direct.Feed(ev)
				}
				if !reflect.DeepEqual(got, want) || (gerr == nil) != (werr == nil) ||
					direct.Retained() != viaEvent.Retained() {
					t.Fatalf("config %d seed %d event %d (%s):\nFeedDelta %v, %v, retained %d\nFeed      %v, %v, retained %d",
						ci, seed, i+1, ev, got, gerr, direct.Retained(), want, werr, viaEvent.Retained())
				}
			}
		}
	}
	if deltas == 0 {
		t.Fatal("no delta in any stream")
	}
}
