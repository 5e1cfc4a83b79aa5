package boltledger_test

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/sealgate/sealgate"
	"github.com/sealgate/sealgate/boltledger"
	"github.com/sealgate/sealgate/gate"
)

// Open a ledger file, build the gate over it, execute what it releases and
// ack it. A later process over the same file refuses a replay of the turn.
func Example() {
	dir, _ := os.MkdirTemp("", "ledger")
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "sealgate.db")

	cfg := sealgate.DefaultConfig()
	cfg.Tools = []sealgate.Tool{{Name: "save_file", Schema: `{"type":"object","required":["path"]}`}}
	stream := func(attempt string) []sealgate.Event {
		return []sealgate.Event{
			sealgate.OpenEvent(attempt, "turn-1"),
			sealgate.BeginEvent(attempt, "0", "call_0", "save_file"),
			sealgate.DeltaEvent(attempt, "0", []byte(`{"path":"notes.md"}`)),
			sealgate.EndEvent(attempt, "0"),
			sealgate.CloseEvent(attempt, sealgate.Complete),
		}
	}
	for _, attempt := range []string{"r1", "r2"} { // r2: the next process
		ledger, err := boltledger.Open(path, nil)
		if err != nil {
			fmt.Println(err) // e.g. another process holds the file
			return
		}
		g, err := gate.New(cfg, ledger)
		if err != nil {
			panic(err)
		}
		for _, ev := range stream(attempt) {
			ds, err := g.Feed(ev)
			if err != nil {
				fmt.Println(err) // the ledger could not write: the gate is closed
				return
			}
			for _, d := range ds {
				switch d.Kind {
				case sealgate.Release:
					fmt.Println(attempt, "execute", d.Tool, d.Args)
					if _, err := g.Ack(d.Key, true); err != nil { // durable when it returns
						fmt.Println(err)
						return
					}
				case sealgate.Reject:
					fmt.Println(attempt, "refused:", d.Reason)
				}
			}
		}
		ledger.Close()
	}
	// Output:
	// r1 execute save_file {"path":"notes.md"}
	// r2 refused: duplicate-effect
}
