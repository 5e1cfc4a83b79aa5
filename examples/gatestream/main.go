// Command gatestream reads one streamed Anthropic response from stdin and
// runs a tool call only when the gate releases it.
package main

import (
	"fmt"
	"log"
	"os"

	"github.com/sealgate/sealgate"
	"github.com/sealgate/sealgate/gate"
	"github.com/sealgate/sealgate/wire"
)

func main() {
	cfg := sealgate.DefaultConfig()
	cfg.Tools = []sealgate.Tool{{Name: "get_weather",
		Schema: `{"type":"object","required":["location"],"properties":{"location":{"type":"string"}}}`}}
	g, err := gate.New(cfg, gate.NewMemoryLedger())
	if err != nil {
		log.Fatal(err)
	}
	err = wire.DecodeFunc(wire.Anthropic, os.Stdin, wire.Options{}, func(ev sealgate.Event) error {
		ds, err := g.Feed(ev)
		for _, d := range ds {
			switch d.Kind {
			case sealgate.Release: // the only place a tool runs
				fmt.Printf("run %s %s\n", d.Tool, d.Args)
			case sealgate.Reject:
				fmt.Printf("not run: %s (%s)\n", d.Item, d.Reason)
			}
		}
		return err
	})
	if err != nil {
		log.Fatal(err)
	}
}
