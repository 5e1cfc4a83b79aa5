package gate_test

import (
	"fmt"
	"log"

	"github.com/sealgate/sealgate"
	"github.com/sealgate/sealgate/gate"
)

// A gate over one streamed turn: the arguments arrive in fragments, the
// gate says nothing until the turn completes, and then releases the call.
// Only a Release decision's Args ever reach a tool.
func ExampleGate() {
	cfg := sealgate.DefaultConfig()
	cfg.Tools = []sealgate.Tool{{Name: "save_file",
		Schema: `{"type":"object","required":["path","content"]}`}}
	g, err := gate.New(cfg, gate.NewMemoryLedger())
	if err != nil {
		log.Fatal(err)
	}
	stream := []sealgate.Event{
		sealgate.OpenEvent("r1", "t1"),
		sealgate.BeginEvent("r1", "0", "call_1", "save_file"),
		sealgate.DeltaEvent("r1", "0", []byte(`{"path": "notes.md",`)),
		sealgate.DeltaEvent("r1", "0", []byte(` "content": "Topic confirmed."}`)),
		sealgate.EndEvent("r1", "0"),
		sealgate.CloseEvent("r1", sealgate.Complete),
	}
	for _, ev := range stream {
		ds, err := g.Feed(ev)
		if err != nil {
			log.Fatal(err)
		}
		for _, d := range ds {
			if d.Kind == sealgate.Release {
				fmt.Printf("event %d: run %s %s\n", d.At, d.Tool, d.Args)
			}
		}
	}
	// Output:
	// event 6: run save_file {"path":"notes.md","content":"Topic confirmed."}
}

// The same call cut by a dropped connection: its text happens to parse, yet
// it is rejected, because the protocol never said it was complete.
func ExampleGate_disconnected() {
	cfg := sealgate.DefaultConfig()
	cfg.Tools = []sealgate.Tool{{Name: "save_file", Schema: `{"type":"object"}`}}
	g, err := gate.New(cfg, gate.NewMemoryLedger())
	if err != nil {
		log.Fatal(err)
	}
	for _, ev := range []sealgate.Event{
		sealgate.OpenEvent("r1", "t1"),
		sealgate.BeginEvent("r1", "0", "call_1", "save_file"),
		sealgate.DeltaEvent("r1", "0", []byte(`{"path":"notes.md"}`)),
		sealgate.CloseEvent("r1", sealgate.Disconnected),
	} {
		ds, _ := g.Feed(ev)
		for _, d := range ds {
			fmt.Println(d)
		}
	}
	// Output:
	// @4 reject r1 item=0 reason=turn-disconnected
}

// A preview stream in a UI: after each delta, the changes since the last
// read are applied to a view the UI keeps. The preview is for showing
// progress only (a PreviewChange is not sealgate.Sealed, so it cannot be
// handed to the release path), and a secret member never appears in it.
func ExampleGate_Watch() {
	cfg := sealgate.DefaultConfig()
	cfg.Tools = []sealgate.Tool{{Name: "send_mail", Schema: `{"type":"object"}`,
		Secrets: []string{"token"}}}
	g, err := gate.New(cfg, gate.NewMemoryLedger())
	if err != nil {
		log.Fatal(err)
	}
	g.Feed(sealgate.OpenEvent("r1", "t1"))
	g.Feed(sealgate.BeginEvent("r1", "0", "call_1", "send_mail"))
	s, ok := g.Watch("r1", "0")
	if !ok {
		log.Fatal("the call is not live")
	}
	var view gate.PreviewView
	for _, part := range []string{`{"to":"ada@exa`, `mple.org","token":"s3cr`, `et","body":"Hi`} {
		if _, err := g.FeedDelta("r1", "0", []byte(part)); err != nil {
			log.Fatal(err)
		}
		for _, c := range s.Next(nil) {
			view.Apply(c)
		}
		fmt.Println(view.String())
	}
	// Output:
	// {"to":"ada@exa"}
	// {"to":"ada@example.org","token":"[redacted]"}
	// {"to":"ada@example.org","token":"[redacted]","body":"Hi"}
}
