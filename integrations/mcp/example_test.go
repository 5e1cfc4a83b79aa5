package mcp_test

import (
	"context"
	"fmt"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/sealgate/sealgate"
	"github.com/sealgate/sealgate/gate"
	sealmcp "github.com/sealgate/sealgate/integrations/mcp"
	"github.com/sealgate/sealgate/wire"
)

// A chat stream with one call in two pieces. Whole, it is the first turn;
// cut between the pieces, the second.
const stream = `data: {"id":"c1","object":"chat.completion.chunk","choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"call_1","type":"function","function":{"name":"get_weather","arguments":"{\"city\": \"Edin"}}]},"finish_reason":null}]}

data: {"id":"c1","object":"chat.completion.chunk","choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":"burgh\"}"}}]},"finish_reason":null}]}

data: {"id":"c1","object":"chat.completion.chunk","choices":[{"index":0,"delta":{},"finish_reason":"tool_calls"}]}

data: [DONE]

`

type weather struct {
	City string `json:"city"`
}

// The host runs an MCP tool only from a gate release: the server gets the
// released arguments and the gate's key in _meta; a tools/call no release
// names is refused before it leaves the client.
func Example() {
	ctx := context.Background()

	// The MCP server: its tool reads the key a ledger would keep.
	server := mcp.NewServer(&mcp.Implementation{Name: "weather", Version: "v1"}, nil)
	mcp.AddTool(server, &mcp.Tool{Name: "get_weather", Description: "the weather of a city"},
		func(ctx context.Context, req *mcp.CallToolRequest, in weather) (*mcp.CallToolResult, any, error) {
			key, _ := sealmcp.KeyFrom(req)
			fmt.Printf("server: get_weather %s (key %d chars)\n", in.City, len(key))
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "rain"}}}, nil, nil
		})

	// The host: a gate, and a client whose tools/calls go through the Host.
	cfg := sealgate.DefaultConfig()
	cfg.Tools = []sealgate.Tool{{Name: "get_weather", Schema: `{"type":"object"}`}}
	g, err := gate.New(cfg, gate.NewMemoryLedger())
	if err != nil {
		panic(err)
	}
	host, err := sealmcp.NewHost(g)
	if err != nil {
		panic(err)
	}
	client := mcp.NewClient(&mcp.Implementation{Name: "host", Version: "v1"}, nil)
	client.AddSendingMiddleware(host.Middleware())
	st, ct := mcp.NewInMemoryTransports()
	if _, err := server.Connect(ctx, st, nil); err != nil {
		panic(err)
	}
	cs, err := client.Connect(ctx, ct, nil)
	if err != nil {
		panic(err)
	}
	defer cs.Close()

	// Two turns of the model: whole, and a second response (another id)
	// cut inside the arguments.
	cut := strings.ReplaceAll(stream, `"c1"`, `"c2"`)
	cut = cut[:strings.Index(cut, `burgh`)]
	for i, body := range []string{stream, cut} {
		err := wire.DecodeFunc(wire.OpenAIChat, strings.NewReader(body), wire.Options{Turn: fmt.Sprintf("t%d", i+1)}, func(ev sealgate.Event) error {
			ds, err := g.Feed(ev)
			for _, d := range ds {
				switch d.Kind {
				case sealgate.Release:
					res, err := host.CallTool(ctx, cs, d)
					if err != nil {
						return err
					}
					fmt.Printf("host: %s %s -> %s\n", d.Tool, d.Args, res.Content[0].(*mcp.TextContent).Text)
				case sealgate.Reject:
					fmt.Printf("host: not run: %s\n", d.Reason)
				}
			}
			return err
		})
		if err != nil {
			panic(err)
		}
	}

	// Any other path to the tool is refused.
	_, err = cs.CallTool(ctx, &mcp.CallToolParams{Name: "get_weather", Arguments: map[string]any{"city": "Edinburgh"}})
	fmt.Println("direct:", err)
	// Output:
	// server: get_weather Edinburgh (key 16 chars)
	// host: get_weather {"city":"Edinburgh"} -> rain
	// host: not run: turn-disconnected
	// direct: sealgate: tools/call get_weather refused: the gate released no such call (no sealgate/key in _meta that names a release being called)
}
