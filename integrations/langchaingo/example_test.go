package langchaingo_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"sync/atomic"

	"github.com/tmc/langchaingo/agents"
	"github.com/tmc/langchaingo/chains"
	"github.com/tmc/langchaingo/llms/openai"
	"github.com/tmc/langchaingo/tools"

	"github.com/sealgate/sealgate"
	"github.com/sealgate/sealgate/gate"
	seallcg "github.com/sealgate/sealgate/integrations/langchaingo"
)

// The model's first answer is a call cut by max_tokens: its arguments stop
// at {"city":"Edin. langchaingo alone would run the tool with them.
const cutCall = `data: {"id":"c1","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{"role":"assistant","tool_calls":[{"index":0,"id":"call_1","type":"function","function":{"name":"get_weather","arguments":"{\"city\":\"Edin"}}]},"finish_reason":null}]}

data: {"id":"c1","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{},"finish_reason":"length"}]}

data: [DONE]

`

const final = `data: {"id":"c2","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{"role":"assistant","content":"Sorry, I could not look it up."},"finish_reason":"stop"}]}

data: [DONE]

`

type weatherTool struct{}

func (weatherTool) Name() string        { return "get_weather" }
func (weatherTool) Description() string { return "the weather of a city" }
func (weatherTool) Call(_ context.Context, input string) (string, error) {
	fmt.Println("tool ran with", input)
	return "rain", nil
}

// An OpenAIFunctionsAgent protected by wrapping its model and its tools.
func Example() {
	var requests atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n := requests.Add(1)
		if n > 1 { // show the observation the model gets back
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
	sg, err := seallcg.New(g, seallcg.Options{})
	if err != nil {
		panic(err)
	}
	llm, err := openai.New(openai.WithBaseURL(srv.URL), openai.WithToken("k"), openai.WithModel("m"),
		openai.WithHTTPClient(sg.HTTPClient()))
	if err != nil {
		panic(err)
	}
	agent := agents.NewOpenAIFunctionsAgent(sg.Model(llm), []tools.Tool{sg.Tool(weatherTool{})})
	answer, err := chains.Run(context.Background(), agents.NewExecutor(agent, agents.WithMaxIterations(3)), "Weather in Edinburgh?")
	if err != nil {
		panic(err)
	}
	fmt.Println("answer:", answer)
	// Output:
	// model gets tool: not run: turn-truncated
	// answer: Sorry, I could not look it up.
}
