package model

import (
	"math/rand"
	"reflect"
	"strings"
	"testing"

	"github.com/sealgate/sealgate"
)

var randomPieces = []string{`{`, `}`, `[`, `]`, `"path":`, `"notes.md"`, `"content":`, `"x`, `y"`, `,`, ` `, `1`,
	`e5`, `-`, `\`, `\u00`, `e9`, "\xC3", "\xA9", `true`, `nu`, `ll`, `{"path":"notes.md","content":"a"}`,
	`{"path":"b c","content":"\u0062"}`, `[1,2]`, `{"k":{"k":{"k":{}}}}`, ``}

func randomConfig(rng *rand.Rand) sealgate.Config {
	cfg := sealgate.DefaultConfig()
	cfg.Tools = []sealgate.Tool{
		{Name: "save_file", Schema: saveSchema, Allow: &sealgate.Allow{Field: "path", Values: []string{"notes.md", "b c"}},
			Secrets: []string{"content", "/k/k"}},
		{Name: "late", Schema: `{"type":"object"}`, Idem: sealgate.Idem{Mode: sealgate.IdemCall}},
		{Name: "f", Schema: `true`, Idem: sealgate.Idem{Mode: sealgate.IdemFields, Fields: []string{"path"}}},
	}
	switch rng.Intn(3) {
	case 0:
		cfg.Batch = sealgate.Atomic
	case 1:
		cfg.Release = sealgate.PerCall
		cfg.Tools[0].Early = rng.Intn(2) == 0
		cfg.Tools[2].Early = rng.Intn(2) == 0
	}
	if rng.Intn(2) == 0 {
		cfg.Limits = sealgate.Limits{CallBytes: 1 + rng.Intn(60), TurnBytes: 1 + rng.Intn(120),
			Calls: 1 + rng.Intn(3), Depth: 1 + rng.Intn(3), PreviewBytes: 1 + rng.Intn(40)}
	}
	return cfg
}

// randomEvent mostly talks about the last opened attempt, so that calls get
// far enough to be sealed.
func randomEvent(rng *rand.Rand, keys []string, last *string) sealgate.Event {
	pick := func(xs ...string) string { return xs[rng.Intn(len(xs))] }
	bytesOf := func() []byte {
		var b strings.Builder
		for k := rng.Intn(4); k > 0; k-- {
			b.WriteString(randomPieces[rng.Intn(len(randomPieces))])
		}
		s := b.String()
		if len(s) > 0 && rng.Intn(4) == 0 {
			s = s[:rng.Intn(len(s))] // split anywhere, mid-rune too
		}
		return []byte(s)
	}
	a, item := pick("r1", "r2", "r3", "r4"), pick("0", "1", "2")
	if rng.Intn(10) < 8 {
		a, item = *last, pick("0", "1")
	}
	if rng.Intn(3) == 0 {
		// a whole valid argument text
		return sealgate.DeltaEvent(a, item, []byte(randomPieces[22+rng.Intn(4)]))
	}
	switch rng.Intn(14) {
	case 0, 12:
		a = pick("r1", "r2", "r3", "r4")
		*last = a
		return sealgate.OpenEvent(a, pick("t1", "t2"))
	case 1, 2:
		return sealgate.BeginEvent(a, item, pick("c1", "c2", "c3"), pick("save_file", "late", "f", "nope"))
	case 3, 4, 5:
		return sealgate.DeltaEvent(a, item, bytesOf())
	case 6, 7:
		if rng.Intn(3) == 0 {
			return sealgate.EndFinalEvent(a, item, bytesOf())
		}
		return sealgate.EndEvent(a, item)
	case 8, 13:
		if rng.Intn(2) == 0 {
			return sealgate.CloseEvent(a, sealgate.Complete)
		}
		return sealgate.CloseEvent(a, sealgate.Status(1+rng.Intn(5)))
	case 9:
		key := "0000000000000000"
		if len(keys) > 0 && rng.Intn(4) != 0 {
			key = keys[rng.Intn(len(keys))]
		}
		return sealgate.AckEvent(key, rng.Intn(2) == 0)
	case 10:
		if rng.Intn(3) == 0 {
			return sealgate.RestartEvent()
		}
		return sealgate.PeekEvent(a, item)
	}
	return sealgate.PeekEvent(a, item)
}

// wellFormed writes a plausible stream: attempts with calls that begin,
// stream a whole argument text in random fragments and end, then close.
func wellFormed(rng *rand.Rand) []sealgate.Event {
	pick := func(xs ...string) string { return xs[rng.Intn(len(xs))] }
	var evs []sealgate.Event
	for a := 0; a < 1+rng.Intn(3); a++ {
		id := pick("r1", "r2", "r3")
		evs = append(evs, sealgate.OpenEvent(id, pick("t1", "t2")))
		for c := 0; c < rng.Intn(4); c++ {
			item := string(rune('0' + c))
			evs = append(evs, sealgate.BeginEvent(id, item, pick("c1", "c2", "c3", "c4"), pick("save_file", "late", "f", "nope")))
			text := randomPieces[22+rng.Intn(4)]
			for len(text) > 0 {
				n := 1 + rng.Intn(len(text))
				evs = append(evs, sealgate.DeltaEvent(id, item, []byte(text[:n])))
				text = text[n:]
			}
			evs = append(evs, sealgate.EndEvent(id, item))
		}
		if rng.Intn(4) == 0 {
			evs = append(evs, sealgate.RestartEvent())
		}
		evs = append(evs, sealgate.CloseEvent(id, sealgate.Status(1+rng.Intn(5)/4*rng.Intn(5))))
	}
	return evs
}

// Run never panics on random event lists, is deterministic, gives each
// call at most one verdict, and releases only at an end or a close complete.
func TestRunRandomNoPanic(t *testing.T) {
	for seed := int64(1); seed <= 4; seed++ {
		rng := rand.New(rand.NewSource(seed))
		for n := 0; n < 1000; n++ {
			cfg := randomConfig(rng)
			last := "r1"
			var events []sealgate.Event
			if n%2 == 0 {
				events = []sealgate.Event{sealgate.OpenEvent("r1", "t1")}
				for k := rng.Intn(30); k > 0; k-- {
					events = append(events, randomEvent(rng, nil, &last))
				}
			} else {
				// a well-formed stream, lightly mutated
				for _, e := range wellFormed(rng) {
					switch rng.Intn(20) {
					case 0: // dropped
					case 1:
						events = append(events, e, e)
					case 2:
						events = append(events, randomEvent(rng, nil, &last), e)
					default:
						events = append(events, e)
					}
				}
			}
			// then acks of keys the run released, peeks, more noise
			var keys []string
			for _, d := range Run(cfg, events) {
				if d.Key != "" {
					keys = append(keys, d.Key)
				}
			}
			for k := rng.Intn(15); k > 0; k-- {
				events = append(events, randomEvent(rng, keys, &last))
			}
			got := func() (d []sealgate.Decision) {
				defer func() {
					if r := recover(); r != nil {
						t.Fatalf("seed %d case %d: panic %v on %v", seed, n, r, events)
					}
				}()
				return Run(cfg, events)
			}()
			if again := Run(cfg, events); !reflect.DeepEqual(got, again) {
				t.Fatalf("seed %d case %d: not deterministic", seed, n)
			}
			checkVerdicts(t, events, got)
		}
	}
}

func checkVerdicts(t *testing.T, events []sealgate.Event, ds []sealgate.Decision) {
	t.Helper()
	epochAt := make([]int, len(events)+1)
	epoch := 0
	for i, e := range events {
		if e.Kind == sealgate.Restart {
			epoch++
		}
		epochAt[i+1] = epoch
	}
	type callID struct {
		epoch         int
		attempt, item string
	}
	seen := map[callID]bool{}
	for _, d := range ds {
		if d.At < 1 || d.At > len(events) {
			t.Fatalf("decision %v outside the events", d)
		}
		switch d.Kind {
		case sealgate.Release, sealgate.Reject, sealgate.Reconcile:
			id := callID{epochAt[d.At], d.Attempt, d.Item}
			if seen[id] {
				t.Fatalf("second verdict %v in %v", d, ds)
			}
			seen[id] = true
		}
		if d.Kind == sealgate.Release {
			e := events[d.At-1]
			if !(e.Kind == sealgate.End || (e.Kind == sealgate.Close && e.Status == sealgate.Complete)) {
				t.Fatalf("release %v at event %v", d, e)
			}
			if r, err := CheckJSON(d.Args, 64); r != "" {
				t.Fatalf("release %v: args %v", d, err)
			}
		}
	}
}
