package eino_test

import (
	"context"
	"io"
	"testing"

	"github.com/cloudwego/eino-ext/components/model/openai"
	"github.com/cloudwego/eino/components/tool"
	"github.com/cloudwego/eino/compose"
	"github.com/cloudwego/eino/flow/agent"
	"github.com/cloudwego/eino/flow/agent/react"
	"github.com/cloudwego/eino/schema"

	"github.com/sealgate/sealgate/gate"
	sealeino "github.com/sealgate/sealgate/integrations/eino"
	"github.com/sealgate/sealgate/internal/loopback"
)

// Two conversations on one Gate that share their system message (one
// pointer) and ask the same: each model call is a turn of its own, so the
// second conversation's call is not a duplicate of the first's, and the
// tool runs in both.
func TestConversationsAreDistinctTurns(t *testing.T) {
	ctx := context.Background()
	single := loopback.Whole(loopback.Fixture(t, loopback.ChatSingle))
	srv := loopback.NewServer(t, loopback.ChatFinal("done"), single, loopback.ChatFinal("done"), single)
	g, err := gate.New(gateConfig(), gate.NewMemoryLedger())
	if err != nil {
		t.Fatal(err)
	}
	sg, err := sealeino.New(g, sealeino.Options{Next: srv.Client().Transport})
	if err != nil {
		t.Fatal(err)
	}
	cm, err := openai.NewChatModel(ctx, &openai.ChatModelConfig{BaseURL: srv.URL + "/v1", APIKey: "test", Model: "gpt-4o", HTTPClient: sg.HTTPClient()})
	if err != nil {
		t.Fatal(err)
	}
	ran := &ranLog{}
	a, err := react.NewAgent(ctx, &react.AgentConfig{ToolCallingModel: cm, ToolsConfig: compose.ToolsNodeConfig{
		Tools:               []tool.BaseTool{rawTool{toolNames[0], ran}},
		ToolCallMiddlewares: []compose.ToolMiddleware{sg.ToolMiddleware()},
	}})
	if err != nil {
		t.Fatal(err)
	}
	system := schema.SystemMessage("You answer about the weather.")
	for range 2 {
		sr, err := a.Stream(ctx, []*schema.Message{system, schema.UserMessage("weather in Edinburgh?")},
			agent.WithComposeOptions(compose.WithCallbacks(sg.Handler())))
		if err != nil {
			t.Fatal(err)
		}
		for {
			if _, err := sr.Recv(); err == io.EOF {
				break
			} else if err != nil {
				t.Fatal(err)
			}
		}
		sr.Close()
	}
	if got := ran.list(); len(got) != 2 || got[0] != got[1] || got[0] != "GetWeatherArgs "+weatherArgs {
		t.Errorf("ran %q, want the call once per conversation", got)
	}
}
