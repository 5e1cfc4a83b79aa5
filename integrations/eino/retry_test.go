package eino_test

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/cloudwego/eino-ext/components/model/openai"
	"github.com/cloudwego/eino/adk"
	"github.com/cloudwego/eino/callbacks"
	"github.com/cloudwego/eino/components/tool"
	"github.com/cloudwego/eino/compose"
	"github.com/cloudwego/eino/schema"

	"github.com/sealgate/sealgate"
	"github.com/sealgate/sealgate/gate"
	"github.com/sealgate/sealgate/guard"
	sealeino "github.com/sealgate/sealgate/integrations/eino"
	"github.com/sealgate/sealgate/internal/loopback"
)

// eino's model retry (adk.ModelRetryConfig) re-runs a model call whose
// stream failed. The Handler gives the retry the turn of the call it
// retries: the first attempt (dropped after the call's end, so rejected
// turn-disconnected) and the retry (whole, released) are one turn, and the
// tool runs once.
func TestModelRetryKeepsTheTurn(t *testing.T) {
	ctx := context.Background()
	srv := loopback.NewServer(t, loopback.ChatFinal("done"), loopback.ChatDropAfterEnd(t), loopback.Whole(loopback.Fixture(t, loopback.ChatSingle)))
	g, err := gate.New(gateConfig(), gate.NewMemoryLedger())
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var seen []string // "kind turn"
	sg, err := sealeino.New(g, sealeino.Options{Next: srv.Client().Transport, OnDecision: func(ctx context.Context, d sealgate.Decision) {
		turn, _ := guard.TurnFrom(ctx)
		mu.Lock()
		seen = append(seen, d.Kind.String()+" "+turn)
		mu.Unlock()
	}})
	if err != nil {
		t.Fatal(err)
	}
	cm, err := openai.NewChatModel(ctx, &openai.ChatModelConfig{BaseURL: srv.URL + "/v1", APIKey: "test", Model: "gpt-4o", HTTPClient: sg.HTTPClient()})
	if err != nil {
		t.Fatal(err)
	}
	ran := &ranLog{}
	a, err := adk.NewChatModelAgent(ctx, &adk.ChatModelAgentConfig{
		Name: "weather", Description: "answers about the weather", Model: cm,
		ToolsConfig: adk.ToolsConfig{ToolsNodeConfig: compose.ToolsNodeConfig{
			Tools:               []tool.BaseTool{rawTool{toolNames[0], ran}},
			ToolCallMiddlewares: []compose.ToolMiddleware{sg.ToolMiddleware()},
		}},
		ModelRetryConfig: &adk.ModelRetryConfig{MaxRetries: 2, BackoffFunc: func(context.Context, int) time.Duration { return 0 }},
	})
	if err != nil {
		t.Fatal(err)
	}
	ctx = callbacks.InitCallbacks(ctx, &callbacks.RunInfo{Name: "test"}, sg.Handler())
	it := adk.NewRunner(ctx, adk.RunnerConfig{Agent: a, EnableStreaming: true}).Run(ctx, []adk.Message{schema.UserMessage("weather in Edinburgh?")})
	for {
		ev, ok := it.Next()
		if !ok {
			break
		}
		if ev.Err != nil {
			t.Logf("agent event error: %v", ev.Err)
		}
		if ev.Output != nil && ev.Output.MessageOutput != nil && ev.Output.MessageOutput.IsStreaming {
			ev.Output.MessageOutput.MessageStream.Close()
		}
	}
	if got := ran.list(); len(got) != 1 || got[0] != "GetWeatherArgs "+weatherArgs {
		t.Errorf("ran %q, want the call once with %s", got, weatherArgs)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(seen) != 2 || seen[0][:7] != "reject " || seen[1][:8] != "release " || seen[0][7:] != seen[1][8:] {
		t.Errorf("decisions %q: want a reject, then a release of the same turn", seen)
	}
	if n := len(srv.Requests()); n != 3 {
		t.Errorf("%d requests, want 3: the dropped call, its retry, the answer after the tool", n)
	}
}
