package gate_test

import (
	"fmt"
	"slices"

	"github.com/sealgate/sealgate"
	"github.com/sealgate/sealgate/gate"
)

// The executor runs each release and acks it. A retry of the same turn
// (the request sent again) is refused: this process released the key.
func ExampleGate_Ack() {
	cfg := sealgate.DefaultConfig()
	cfg.Tools = []sealgate.Tool{{Name: "save_file", Schema: `{"type":"object","required":["path"]}`}}
	g, err := gate.New(cfg, gate.NewMemoryLedger())
	if err != nil {
		panic(err)
	}
	attempt := func(id string) []sealgate.Event {
		return []sealgate.Event{
			sealgate.OpenEvent(id, "turn-1"),
			sealgate.BeginEvent(id, "0", "call_0", "save_file"),
			sealgate.DeltaEvent(id, "0", []byte(`{"path":`)),
			sealgate.DeltaEvent(id, "0", []byte(`"notes.md"}`)),
			sealgate.EndEvent(id, "0"),
			sealgate.CloseEvent(id, sealgate.Complete),
		}
	}
	for _, ev := range append(attempt("r1"), attempt("r2")...) {
		ds, err := g.Feed(ev)
		if err != nil {
			panic(err) // the ledger failed: the gate is closed
		}
		for _, d := range ds {
			switch d.Kind {
			case sealgate.Release:
				fmt.Println("execute", d.Tool, d.Args)
				if _, err := g.Ack(d.Key, true); err != nil {
					panic(err)
				}
			case sealgate.Reject:
				fmt.Println(d.Attempt, "refused:", d.Reason)
			}
		}
	}
	// Output:
	// execute save_file {"path":"notes.md"}
	// r2 refused: duplicate
}

// A process released a call and died before its ack: the key is left in
// intent. The gate of the next process, over the same ledger, answers a
// retry of that turn with reconcile, never a release. The executor asks the
// effect's own record whether it happened and acks accordingly.
func Example_reconcile() {
	cfg := sealgate.DefaultConfig()
	cfg.Tools = []sealgate.Tool{{Name: "pay", Schema: `{"type":"object","required":["amount"]}`}}
	ledger := gate.NewMemoryLedger() // use boltledger to survive a real crash
	turn := func(attempt string) []sealgate.Event {
		return []sealgate.Event{
			sealgate.OpenEvent(attempt, "turn-7"),
			sealgate.BeginEvent(attempt, "0", "call_0", "pay"),
			sealgate.DeltaEvent(attempt, "0", []byte(`{"amount":30}`)),
			sealgate.EndEvent(attempt, "0"),
			sealgate.CloseEvent(attempt, sealgate.Complete),
		}
	}
	paid := map[string]bool{} // the payment system's own record, by key

	first, _ := gate.New(cfg, ledger)
	for _, ev := range turn("r1") {
		ds, _ := first.Feed(ev)
		for _, d := range ds {
			if d.Kind == sealgate.Release {
				paid[d.Key] = true
				fmt.Println("paid; the process dies before its ack")
			}
		}
	}

	next, _ := gate.New(cfg, ledger) // the restarted process
	for _, ev := range turn("r2") {
		ds, err := next.Feed(ev)
		if err != nil {
			panic(err)
		}
		for _, d := range ds {
			switch d.Kind {
			case sealgate.Release:
				fmt.Println("paid twice: never happens")
			case sealgate.Reconcile:
				happened := paid[d.Key]
				fmt.Println("reconcile: the payment happened:", happened)
				if _, err := next.Ack(d.Key, happened); err != nil {
					panic(err)
				}
			}
		}
	}
	st, _ := ledger.State(sealgate.Key(sealgate.ArgsMaterial("turn-7", "pay", []byte(`{"amount":30}`))))
	fmt.Println("ledger:", st)
	// Output:
	// paid; the process dies before its ack
	// reconcile: the payment happened: true
	// ledger: done
}

// Under per-call release an early tool runs at its own end, before its
// attempt closes. When the attempt then ends badly the gate asks for
// compensation, with the release's key: the executor undoes the effect and
// acks that key fail, which clears it, so the regeneration of the turn runs
// it again.
func Example_compensate() {
	cfg := sealgate.DefaultConfig()
	cfg.Release = sealgate.PerCall
	cfg.Tools = []sealgate.Tool{{Name: "send", Schema: `{"type":"object","required":["to"]}`, Early: true}}
	g, err := gate.New(cfg, gate.NewMemoryLedger())
	if err != nil {
		panic(err)
	}
	attempt := func(id string, end sealgate.Status) []sealgate.Event {
		return []sealgate.Event{
			sealgate.OpenEvent(id, "turn-1"),
			sealgate.BeginEvent(id, "0", "call_0", "send"),
			sealgate.DeltaEvent(id, "0", []byte(`{"to":"ann"}`)),
			sealgate.EndEvent(id, "0"),
			sealgate.CloseEvent(id, end),
		}
	}
	// An early release is not acked ok until its attempt closes complete:
	// a compensate may still come, and a done key cannot be cleared.
	unacked := map[[2]string]string{} // (attempt, item) -> key
	events := append(attempt("r1", sealgate.Disconnected), attempt("r2", sealgate.Complete)...)
	for _, ev := range events {
		ds, err := g.Feed(ev)
		if err != nil {
			panic(err)
		}
		for _, d := range ds {
			switch d.Kind {
			case sealgate.Release:
				fmt.Println(d.Attempt, "send to", d.Args)
				unacked[[2]string{d.Attempt, d.Item}] = d.Key
			case sealgate.Compensate: // it carries the key of the release it undoes
				delete(unacked, [2]string{d.Attempt, d.Item})
				fmt.Println(d.Attempt, "compensate: recall the message")
				if _, err := g.Ack(d.Key, false); err != nil {
					panic(err)
				}
			}
		}
		if ev.Kind == sealgate.Close && ev.Status == sealgate.Complete {
			for at, key := range unacked {
				if at[0] == ev.Attempt {
					delete(unacked, at)
					if _, err := g.Ack(key, true); err != nil {
						panic(err)
					}
					fmt.Println(ev.Attempt, "closed complete: ack ok")
				}
			}
		}
	}
	// Output:
	// r1 send to {"to":"ann"}
	// r1 compensate: recall the message
	// r2 send to {"to":"ann"}
	// r2 closed complete: ack ok
}

// Tool calls execute in parallel, but the gate has one owner: the workers
// send their outcomes over a channel, and the goroutine that feeds the
// gate drains it and acks each.
func ExampleGate_Ack_parallel() {
	cfg := sealgate.DefaultConfig()
	cfg.Tools = []sealgate.Tool{{Name: "fetch", Schema: `{"type":"object","required":["url"]}`}}
	ledger := gate.NewMemoryLedger()
	g, err := gate.New(cfg, ledger)
	if err != nil {
		panic(err)
	}
	events := []sealgate.Event{sealgate.OpenEvent("r1", "turn-1")}
	for i, url := range []string{"a", "b", "c"} {
		item := fmt.Sprint(i)
		events = append(events,
			sealgate.BeginEvent("r1", item, "call_"+item, "fetch"),
			sealgate.DeltaEvent("r1", item, []byte(`{"url":"`+url+`"}`)),
			sealgate.EndEvent("r1", item))
	}
	events = append(events, sealgate.CloseEvent("r1", sealgate.Complete))

	type outcome struct {
		key string
		ok  bool
	}
	outcomes := make(chan outcome)
	running := 0
	for _, ev := range events {
		ds, err := g.Feed(ev)
		if err != nil {
			panic(err)
		}
		for _, d := range ds {
			if d.Kind != sealgate.Release {
				continue
			}
			running++
			go func(key string, args sealgate.Sealed) {
				// ... execute the tool with args ...
				outcomes <- outcome{key, string(args) != `{"url":"b"}`}
			}(d.Key, d.Args)
		}
	}
	var acked []string
	for ; running > 0; running-- {
		o := <-outcomes // only this goroutine touches g
		if _, err := g.Ack(o.key, o.ok); err != nil {
			panic(err)
		}
		acked = append(acked, fmt.Sprint(o.ok))
	}
	slices.Sort(acked)
	fmt.Println("acks:", acked)
	fmt.Println("keys kept (done):", ledger.Len())
	// Output:
	// acks: [false true true]
	// keys kept (done): 2
}
