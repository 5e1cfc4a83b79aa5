package boltledger_test

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	bolt "go.etcd.io/bbolt"
	"pgregory.net/rapid"

	"github.com/sealgate/sealgate"
	"github.com/sealgate/sealgate/boltledger"
	"github.com/sealgate/sealgate/check"
	"github.com/sealgate/sealgate/gate"
	"github.com/sealgate/sealgate/internal/machine"
	"github.com/sealgate/sealgate/internal/reduce"
	"github.com/sealgate/sealgate/scn"
)

// The ledger is a store, not a policy: over bbolt the gate must decide
// exactly as over MemoryLedger. These runs test decisions, not durability,
// so they use NoSync.

// twinGate feeds every event to a gate over a bolt ledger and to one over
// a memory ledger, and fails closed, naming the event, when they answer
// differently; otherwise it answers as the bolt one.
type twinGate struct {
	bolt, mem *gate.Gate
	n         int
}

func (g *twinGate) Feed(ev sealgate.Event) ([]sealgate.Decision, error) {
	g.n++
	b, berr := g.bolt.Feed(ev)
	m, merr := g.mem.Feed(ev)
	return g.same(b, berr, m, merr)
}

func (g *twinGate) FeedDelta(attempt, item string, p []byte) ([]sealgate.Decision, error) {
	g.n++
	b, berr := g.bolt.FeedDelta(attempt, item, p)
	m, merr := g.mem.FeedDelta(attempt, item, p)
	return g.same(b, berr, m, merr)
}

func (g *twinGate) same(b []sealgate.Decision, berr error, m []sealgate.Decision, merr error) ([]sealgate.Decision, error) {
	if berr != nil {
		return b, berr
	}
	if merr != nil {
		return b, fmt.Errorf("event %d: the memory ledger's gate failed and the bolt one did not: %w", g.n, merr)
	}
	if err := check.Compare("bolt ledger", b, "memory ledger", m); err != nil {
		return b, fmt.Errorf("event %d: %w", g.n, err)
	}
	return b, nil
}

func (g *twinGate) Retained() int { return g.bolt.Retained() }

// Capabilities: the twins are the real gate, which claims the whole SPEC.
func (g *twinGate) Capabilities() check.Capabilities { return check.FullCapabilities() }

// twinChecker builds twin gates whose bolt ledgers are fresh buckets of
// one file.
func twinChecker(t testing.TB) *check.Checker {
	// No fsync at all, not even when the file grows: these runs test
	// decisions.
	db, err := bolt.Open(filepath.Join(t.TempDir(), "equivalence.db"), 0o600,
		&bolt.Options{NoSync: true, NoGrowSync: true, NoFreelistSync: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	gates := 0
	return check.NewChecker(func(cfg sealgate.Config) (check.Subject, error) {
		gates++
		l, err := boltledger.New(db, &boltledger.Options{Bucket: fmt.Sprint("gate-", gates)})
		if err != nil {
			return nil, err
		}
		bg, err := gate.New(cfg, l)
		if err != nil {
			return nil, err
		}
		mg, err := gate.New(cfg, gate.NewMemoryLedger())
		if err != nil {
			return nil, fmt.Errorf("the memory ledger's gate refused what the bolt one took: %w", err)
		}
		return &twinGate{bolt: bg, mem: mg}, nil
	})
}

// TestCorpusOverBolt replays every corpus scenario over a bolt ledger: the
// decisions are the memory ledger's, event by event, and the expected ones.
func TestCorpusOverBolt(t *testing.T) {
	files, err := scn.Files("../corpus")
	if err != nil {
		t.Fatal(err)
	}
	if len(files) == 0 {
		t.Fatal("no corpus files under ../corpus")
	}
	chk := twinChecker(t)
	for _, f := range files {
		s, err := scn.ParseFile(f)
		if err != nil {
			t.Fatal(err)
		}
		r := chk.RunScenario(s)
		if r.GateErr != nil {
			t.Errorf("%s: %v", f, r.GateErr)
			continue
		}
		if err := check.Compare("expected", s.Expect, "bolt ledger", r.Gate); err != nil {
			t.Errorf("%s: %v", strings.TrimPrefix(f, "../"), err)
		}
	}
}

// TestStateMachineOverBolt runs the rapid state machine (restarts
// included: a restart keeps the ledger, here the bolt one) with every
// check, over twin gates: 30 runs, or SEALGATE_BOLT_CHECKS. The root
// suite runs the machine at full length over the memory ledger; this one
// is about the ledger, and a bolt write costs more.
func TestStateMachineOverBolt(t *testing.T) {
	checks := 30
	if s := os.Getenv("SEALGATE_BOLT_CHECKS"); s != "" {
		var err error
		if checks, err = strconv.Atoi(s); err != nil || checks < 1 {
			t.Fatalf("SEALGATE_BOLT_CHECKS=%q: want a positive number", s)
		}
	}
	seed := rand.Uint64()
	f, _, err := machine.Hunt(twinChecker(t), seed, checks)
	if err != nil {
		t.Fatal(err)
	}
	if f != nil {
		t.Fatalf("seed %d: %v\n\nthe stream, as a scenario:\n%s", seed, f.Err, reduce.Text(f.Config, f.Events, f.Err))
	}
	t.Logf("%d runs of the state machine over bolt and memory ledgers agree (seed %d)", checks, seed)
}

// TestTwinGateCatches shows the twin can fail: a bolt ledger that forgets
// done keys answers a replay differently from the memory one.
func TestTwinGateCatches(t *testing.T) {
	db, err := bolt.Open(filepath.Join(t.TempDir(), "t.db"), 0o600, &bolt.Options{NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	l, err := boltledger.New(db, nil)
	if err != nil {
		t.Fatal(err)
	}
	bg, _ := gate.New(testConfig(), forgetDone{l})
	mg, _ := gate.New(testConfig(), gate.NewMemoryLedger())
	g := &twinGate{bolt: bg, mem: mg}
	evs := turn{attempt: "r1", turn: "t1", args: []string{`{"n":1}`}, status: sealgate.Complete}.events()
	ds, err := feedAll(g, evs)
	if err != nil || len(only(sealgate.Release, ds)) != 1 {
		t.Fatalf("first attempt: %v %v", ds, err)
	}
	if _, err := g.Feed(sealgate.AckEvent(ds[0].Key, true)); err != nil {
		t.Fatal(err)
	}
	g.Feed(sealgate.RestartEvent())
	_, err = feedAll(g, turn{attempt: "r2", turn: "t1", args: []string{`{"n":1}`}, status: sealgate.Complete}.events())
	if err == nil || !strings.Contains(err.Error(), "memory ledger") {
		t.Fatalf("a ledger that forgets done keys went unnoticed: %v", err)
	}
}

// forgetDone is a broken ledger: done keys read as absent.
type forgetDone struct{ *boltledger.Ledger }

func (f forgetDone) State(key string) (gate.LedgerState, error) {
	st, err := f.Ledger.State(key)
	if st == gate.Done {
		st = gate.Absent
	}
	return st, err
}

// TestLedgerMatchesMemory drives a bolt ledger and a MemoryLedger with the
// same random writes (keys drawn from a small set, so that they collide),
// closing and reopening the file now and then: every read agrees.
func TestLedgerMatchesMemory(t *testing.T) {
	dir := t.TempDir()
	runs := 0
	rapid.Check(t, func(t *rapid.T) {
		runs++
		path := filepath.Join(dir, fmt.Sprint(runs, ".db"))
		o := &boltledger.Options{NoSync: true}
		l, err := boltledger.Open(path, o)
		if err != nil {
			t.Fatal(err)
		}
		defer func() { l.Close() }()
		mem := gate.NewMemoryLedger()
		key := rapid.SampledFrom([]string{"a", "b", "c", "0123456789abcdef"})
		t.Repeat(map[string]func(*rapid.T){
			"intent": func(t *rapid.T) { k := key.Draw(t, "k"); must(t, l.Intent(k)); mem.Intent(k) },
			"done":   func(t *rapid.T) { k := key.Draw(t, "k"); must(t, l.Done(k)); mem.Done(k) },
			"clear":  func(t *rapid.T) { k := key.Draw(t, "k"); must(t, l.Clear(k)); mem.Clear(k) },
			"reopen": func(t *rapid.T) {
				if err := l.Close(); err != nil {
					t.Fatal(err)
				}
				if l, err = boltledger.Open(path, o); err != nil {
					t.Fatal(err)
				}
			},
			"": func(t *rapid.T) {
				n := 0
				if err := l.Each(func(k string, st gate.LedgerState, _ time.Time) error {
					n++
					if want, _ := mem.State(k); st != want {
						t.Fatalf("%s: bolt %v, memory %v", k, st, want)
					}
					return nil
				}); err != nil {
					t.Fatal(err)
				}
				if n != mem.Len() {
					t.Fatalf("bolt holds %d keys, memory %d", n, mem.Len())
				}
				for _, k := range []string{"a", "b", "c", "0123456789abcdef"} {
					got, err := l.State(k)
					if want, _ := mem.State(k); err != nil || got != want {
						t.Fatalf("State(%s): bolt %v (err %v), memory %v", k, got, err, want)
					}
				}
			},
		})
	})
}

func must(t *rapid.T, err error) {
	if err != nil {
		t.Fatal(err)
	}
}
