package peers

import (
	"context"
	"fmt"
	"net/http"
	"strings"

	"github.com/sealgate/sealgate"
	"github.com/sealgate/sealgate/gate"
	"github.com/sealgate/sealgate/wire"
)

// Controls lists the project's own gate behind the same adapter, one per
// protocol: the body is decoded live by wire and gated as it arrives. They
// must show no violation and the same releases as `sealfuzz replay -wire`.
func Controls() []*Peer { return controls }

var controls = []*Peer{control(wire.OpenAIChat), control(wire.OpenAIResponses), control(wire.Anthropic), control(wire.Gemini)}

func control(p wire.Protocol) *Peer {
	return &Peer{
		Name: string(p) + "/sealgate", Module: "github.com/sealgate/sealgate", Protocol: p, Control: true,
		Idiom: "the project's gate: wire.DecodeFunc on the response body, each event fed to gate.Gate, its releases run",
		Drive: func(ctx context.Context, c Conn, emit func(Release)) error {
			g, err := gate.New(c.Config, gate.NewMemoryLedger())
			if err != nil {
				return err
			}
			req, err := http.NewRequestWithContext(ctx, http.MethodPost, c.BaseURL+"/control", strings.NewReader("{}"))
			if err != nil {
				return err
			}
			resp, err := c.HTTP.Do(req)
			if err != nil {
				return err
			}
			defer resp.Body.Close()
			return wire.DecodeFunc(p, resp.Body, wire.Options{Turn: Turn}, func(ev sealgate.Event) error {
				ds, err := g.Feed(ev)
				for _, d := range ds {
					if d.Kind == sealgate.Release {
						emit(Release{Attempt: d.Attempt, Item: d.Item, Call: d.Call, Tool: d.Tool, Args: d.Args, Key: d.Key})
					}
				}
				if err != nil {
					return fmt.Errorf("gate failed closed: %w", err)
				}
				return nil
			})
		},
	}
}
