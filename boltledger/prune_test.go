package boltledger_test

import (
	"fmt"
	"os"
	"testing"
	"time"

	"github.com/sealgate/sealgate"
	"github.com/sealgate/sealgate/boltledger"
	"github.com/sealgate/sealgate/gate"
)

// clock is a settable Options.Now.
type clock struct{ t time.Time }

func (c *clock) now() time.Time { return c.t }

func TestPruneDropsOnlyOldDoneKeys(t *testing.T) {
	c := &clock{t: time.Unix(1000, 0)}
	l, _ := openTemp(t, &boltledger.Options{Now: c.now})
	write := func(at int64, op func(string) error, key string) {
		c.t = time.Unix(at, 0)
		if err := op(key); err != nil {
			t.Fatal(err)
		}
	}
	write(1000, l.Intent, "old-intent")
	write(1001, l.Intent, "old-done")
	write(1002, l.Done, "old-done")
	write(1003, l.Intent, "new-done")
	write(1005, l.Done, "new-done")
	write(1006, l.Intent, "new-intent")
	n, err := l.Prune(time.Unix(1004, 0))
	if err != nil || n != 1 {
		t.Fatalf("Prune dropped %d (err %v), want 1", n, err)
	}
	for key, want := range map[string]gate.LedgerState{"old-intent": gate.Intent, "old-done": gate.Absent,
		"new-done": gate.Done, "new-intent": gate.Intent} {
		if st, _ := l.State(key); st != want {
			t.Errorf("after Prune, %s is %v, want %v", key, st, want)
		}
	}
	if err := l.Check(); err != nil {
		t.Fatal(err)
	}
}

func TestPruneGoesPastOneBatch(t *testing.T) {
	defer boltledger.SetPruneBatch(4)()
	l, _ := openTemp(t, &boltledger.Options{NoSync: true})
	for i := 0; i < 25; i++ {
		key := fmt.Sprintf("k%02d", i)
		if err := l.Intent(key); err != nil {
			t.Fatal(err)
		}
		if i%3 != 0 {
			if err := l.Done(key); err != nil {
				t.Fatal(err)
			}
		}
	}
	n, err := l.Prune(time.Now().Add(time.Hour))
	if err != nil || n != 16 {
		t.Fatalf("Prune dropped %d (err %v), want the 16 done keys", n, err)
	}
	left := 0
	l.Each(func(k string, st gate.LedgerState, _ time.Time) error {
		left++
		if st != gate.Intent {
			t.Errorf("%s left %v", k, st)
		}
		return nil
	})
	if left != 9 {
		t.Errorf("%d keys left, want the 9 intents", left)
	}
}

// TestPruneCost shows what pruning gives up: a replay of a turn older than
// the horizon runs again.
func TestPruneCost(t *testing.T) {
	c := &clock{t: time.Unix(1000, 0)}
	l, _ := openTemp(t, &boltledger.Options{Now: c.now})
	cfg := testConfig()
	attempt := func(id string) []sealgate.Event {
		return turn{attempt: id, turn: "t1", args: []string{`{"n":1}`}, status: sealgate.Complete}.events()
	}
	releases := func(g *gate.Gate, evs []sealgate.Event) []sealgate.Decision {
		ds, err := feedAll(g, evs)
		if err != nil {
			t.Fatal(err)
		}
		return only(sealgate.Release, ds)
	}
	g, _ := gate.New(cfg, l)
	r := releases(g, attempt("r1"))
	if len(r) != 1 {
		t.Fatal("no release")
	}
	if _, err := g.Ack(r[0].Key, true); err != nil {
		t.Fatal(err)
	}
	g, _ = gate.New(cfg, l) // a new process
	if len(releases(g, attempt("r2"))) != 0 {
		t.Fatal("a replay ran before any pruning")
	}
	c.t = time.Unix(5000, 0)
	if _, err := l.Prune(time.Unix(4000, 0)); err != nil {
		t.Fatal(err)
	}
	g, _ = gate.New(cfg, l)
	if len(releases(g, attempt("r3"))) != 1 {
		t.Fatal("a replay older than the horizon was still refused: did Prune drop the key?")
	}
}

// BenchmarkFileSize writes keys as the gate does (intent, then done), one
// second apart on a fake clock, and reports the file's size at the end:
// with no pruning, and pruning every 10,000 keys the done keys older than
// 10,000 seconds. Run it for a fixed count of keys:
//
//	go test -run '^$' -bench FileSize -benchtime 100000x ./boltledger/
//
// NoSync: the size does not depend on fsync, and 200,000 fsynced commits
// would measure the disk instead.
func BenchmarkFileSize(b *testing.B) {
	for _, prune := range []bool{false, true} {
		b.Run(fmt.Sprintf("prune=%t", prune), func(b *testing.B) {
			c := &clock{t: time.Unix(0, 0)}
			path := b.TempDir() + "/ledger.db"
			l, err := boltledger.Open(path, &boltledger.Options{NoSync: true, Now: c.now})
			if err != nil {
				b.Fatal(err)
			}
			defer l.Close()
			const horizon = 10000
			for i := 0; i < b.N; i++ {
				c.t = time.Unix(int64(i), 0)
				key := sealgate.Key([]byte(fmt.Sprint(i)))
				if err := l.Intent(key); err != nil {
					b.Fatal(err)
				}
				if err := l.Done(key); err != nil {
					b.Fatal(err)
				}
				if prune && i%horizon == horizon-1 {
					if _, err := l.Prune(time.Unix(int64(i-horizon), 0)); err != nil {
						b.Fatal(err)
					}
				}
			}
			b.StopTimer()
			fi, err := os.Stat(path)
			if err != nil {
				b.Fatal(err)
			}
			kept := 0
			l.Each(func(string, gate.LedgerState, time.Time) error { kept++; return nil })
			b.ReportMetric(float64(fi.Size()), "file-bytes")
			b.ReportMetric(float64(kept), "keys-kept")
		})
	}
}

// BenchmarkDurableWrite is the cost of one fsynced ledger write, which a
// release and an ack each pay: mostly the disk's.
func BenchmarkDurableWrite(b *testing.B) {
	l, err := boltledger.Open(b.TempDir()+"/ledger.db", nil)
	if err != nil {
		b.Fatal(err)
	}
	defer l.Close()
	for i := 0; b.Loop(); i++ {
		if err := l.Intent(sealgate.Key([]byte(fmt.Sprint(i)))); err != nil {
			b.Fatal(err)
		}
	}
}
