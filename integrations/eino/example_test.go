package eino_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"

	"github.com/cloudwego/eino-ext/components/model/openai"
	"github.com/cloudwego/eino/components/tool"
	"github.com/cloudwego/eino/components/tool/utils"
	"github.com/cloudwego/eino/compose"
	"github.com/cloudwego/eino/flow/agent"
	"github.com/cloudwego/eino/flow/agent/react"
	"github.com/cloudwego/eino/schema"

	"github.com/sealgate/sealgate"
	"github.com/sealgate/sealgate/gate"
	sealeino "github.com/sealgate/sealgate/integrations/eino"
)

// The model's first answer is a call cut by max_tokens: its arguments stop
// at {"city":"Edin. eino alone would run the tool with them.
const cutCall = `data: {"id":"c1","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{"role":"assistant","tool_calls":[{"index":0,"id":"call_1","type":"function","function":{"name":"get_weather","arguments":"{\"city\":\"Edin"}}]},"finish_reason":null}]}

data: {"id":"c1","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{},"finish_reason":"length"}]}

data: [DONE]

`

const final = `data: {"id":"c2","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{"role":"assistant","content":"Sorry, I could not look it up."},"finish_reason":"stop"}]}

data: [DONE]

`

// A ReAct agent protected in three lines: the model's HTTP client, the
// tools node's middleware, the callbacks handler.
func Example() {
	ctx := context.Background()
	var requests atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n := requests.Add(1)
		if n > 1 { // show the tool result the model gets back
			var req struct {
				Messages []struct{ Role, Content string }
			}
			body, _ := io.ReadAll(r.Body)
			if err := json.Unmarshal(body, &req); err == nil {
				m := req.Messages[len(req.Messages)-1]
				fmt.Printf("model gets %s: %s\n", m.Role, m.Content)
			}
		}
		w.Header().Set("Content-Type", "text/event-stream")
		io.WriteString(w, map[bool]string{true: cutCall, false: final}[n == 1])
	}))
	defer srv.Close()

	cfg := sealgate.DefaultConfig()
	cfg.Tools = []sealgate.Tool{{Name: "get_weather", Schema: `{"type":"object","required":["city"]}`}}
	g, err := gate.New(cfg, gate.NewMemoryLedger())
	if err != nil {
		panic(err)
	}
	sg, err := sealeino.New(g, sealeino.Options{})
	if err != nil {
		panic(err)
	}
	weather, err := utils.InferTool("get_weather", "the weather of a city", func(_ context.Context, in struct {
		City string `json:"city"`
	}) (string, error) {
		fmt.Println("tool ran for", in.City)
		return "rain", nil
	})
	if err != nil {
		panic(err)
	}
	cm, err := openai.NewChatModel(ctx, &openai.ChatModelConfig{BaseURL: srv.URL, APIKey: "k", Model: "m",
		HTTPClient: sg.HTTPClient()}) // 1
	if err != nil {
		panic(err)
	}
	a, err := react.NewAgent(ctx, &react.AgentConfig{ToolCallingModel: cm, ToolsConfig: compose.ToolsNodeConfig{
		Tools:               []tool.BaseTool{weather},
		ToolCallMiddlewares: []compose.ToolMiddleware{sg.ToolMiddleware()}, // 2
	}})
	if err != nil {
		panic(err)
	}
	sr, err := a.Stream(ctx, []*schema.Message{schema.UserMessage("Weather in Edinburgh?")},
		agent.WithComposeOptions(compose.WithCallbacks(sg.Handler()))) // 3
	if err != nil {
		panic(err)
	}
	var answer strings.Builder
	for {
		m, err := sr.Recv()
		if err != nil {
			break
		}
		answer.WriteString(m.Content)
	}
	fmt.Println("answer:", answer.String())
	// Output:
	// model gets tool: not run: turn-truncated
	// answer: Sorry, I could not look it up.
}
