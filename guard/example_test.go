package guard_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"

	"github.com/sealgate/sealgate"
	"github.com/sealgate/sealgate/gate"
	"github.com/sealgate/sealgate/guard"
)

// exampleStream is a Chat Completions stream with one tool call, as the
// vendor sends it.
const exampleStream = `data: {"id":"chatcmpl-1","object":"chat.completion.chunk","created":1,"model":"gpt-4o","choices":[{"index":0,"delta":{"role":"assistant","tool_calls":[{"index":0,"id":"call_1","type":"function","function":{"name":"get_weather","arguments":""}}]},"finish_reason":null}]}

data: {"id":"chatcmpl-1","object":"chat.completion.chunk","created":1,"model":"gpt-4o","choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":"{\"city\": \"Par"}}]},"finish_reason":null}]}

data: {"id":"chatcmpl-1","object":"chat.completion.chunk","created":1,"model":"gpt-4o","choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":"is\"}"}}]},"finish_reason":null}]}

data: {"id":"chatcmpl-1","object":"chat.completion.chunk","created":1,"model":"gpt-4o","choices":[{"index":0,"delta":{},"finish_reason":"tool_calls"}]}

data: [DONE]

`

// An openai-go client whose transport is the guard: the application reads
// the stream with its SDK as usual, and runs only what OnDecision releases.
// A retry of the same turn is not run again.
func Example() {
	vendor := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		fmt.Fprint(w, exampleStream)
	}))
	defer vendor.Close()

	cfg := sealgate.DefaultConfig()
	cfg.Tools = []sealgate.Tool{{Name: "get_weather", Schema: `{"type":"object","required":["city"]}`}}
	g, err := gate.New(cfg, gate.NewMemoryLedger())
	if err != nil {
		panic(err)
	}
	var tr *guard.Guard
	tr, err = guard.New(http.DefaultTransport, g, guard.Options{
		OnDecision: func(ctx context.Context, d sealgate.Decision) {
			switch d.Kind {
			case sealgate.Release:
				fmt.Println("run", d.Tool, d.Args) // the tool runs here, and reports:
				tr.Ack(d.Key, true)
			case sealgate.Reject:
				fmt.Println("not run:", d.Reason)
			}
		},
	})
	if err != nil {
		panic(err)
	}
	client := openai.NewClient(option.WithBaseURL(vendor.URL), option.WithAPIKey("sk-example"),
		option.WithHTTPClient(&http.Client{Transport: tr}))

	for _, turn := range []string{"t1", "t1", "t2"} {
		stream := client.Chat.Completions.NewStreaming(guard.WithTurn(context.Background(), turn),
			openai.ChatCompletionNewParams{Model: openai.ChatModelGPT5_5,
				Messages: []openai.ChatCompletionMessageParamUnion{openai.UserMessage("Weather in Paris?")}})
		for stream.Next() {
			// The application uses the chunks as it always did.
		}
		stream.Close()
	}
	// Output:
	// run get_weather {"city":"Paris"}
	// not run: duplicate
	// run get_weather {"city":"Paris"}
}
