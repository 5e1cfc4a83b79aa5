package langchaingo_test

import (
	"context"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/tmc/langchaingo/agents"
	"github.com/tmc/langchaingo/chains"
	"github.com/tmc/langchaingo/llms"
	"github.com/tmc/langchaingo/llms/openai"
	"github.com/tmc/langchaingo/tools"

	"github.com/sealgate/sealgate"
	"github.com/sealgate/sealgate/gate"
	seallcg "github.com/sealgate/sealgate/integrations/langchaingo"
	"github.com/sealgate/sealgate/internal/loopback"
)

// recTool records each input it is called with.
type recTool struct {
	name string
	ran  *ranLog
}

type ranLog struct {
	mu   sync.Mutex
	runs []string
}

func (t recTool) Name() string        { return t.name }
func (t recTool) Description() string { return "a tool under test" }
func (t recTool) Call(_ context.Context, input string) (string, error) {
	t.ran.mu.Lock()
	t.ran.runs = append(t.ran.runs, t.name+" "+input)
	t.ran.mu.Unlock()
	return "ok", nil
}

var toolNames = []string{"GetWeatherArgs", "get_stock_price"}

func gateConfig() sealgate.Config {
	cfg := sealgate.DefaultConfig()
	for _, n := range toolNames {
		cfg.Tools = append(cfg.Tools, sealgate.Tool{Name: n, Schema: `{"type":"object"}`})
	}
	return cfg
}

// streaming turns streaming on, as an application that shows the answer
// as it comes does (the integration's Model does it too).
type streaming struct{ llms.Model }

func (m streaming) GenerateContent(ctx context.Context, msgs []llms.MessageContent, opts ...llms.CallOption) (*llms.ContentResponse, error) {
	return m.Model.GenerateContent(ctx, msgs, append(opts, llms.WithStreamingFunc(func(context.Context, []byte) error { return nil }))...)
}

type outcome struct {
	ran     []string
	err     error
	results string // the second request's body (the tool results), if any
}

// runAgent runs langchaingo's OpenAIFunctionsAgent with its Executor over
// its OpenAI client, streaming, against srv; behind a Gate when protect is set.
func runAgent(t *testing.T, srv *loopback.Server, protect bool) outcome {
	t.Helper()
	ran := &ranLog{}
	var ts []tools.Tool
	for _, n := range toolNames {
		ts = append(ts, recTool{n, ran})
	}
	client := srv.Client()
	var sg *seallcg.Gate
	if protect {
		g, err := gate.New(gateConfig(), gate.NewMemoryLedger())
		if err != nil {
			t.Fatal(err)
		}
		if sg, err = seallcg.New(g, seallcg.Options{Next: srv.Client().Transport}); err != nil {
			t.Fatal(err)
		}
		client = sg.HTTPClient()
		for i := range ts {
			ts[i] = sg.Tool(ts[i])
		}
	}
	llm, err := openai.New(openai.WithBaseURL(srv.URL+"/v1"), openai.WithToken("test"), openai.WithModel("gpt-4o"), openai.WithHTTPClient(client))
	if err != nil {
		t.Fatal(err)
	}
	var m llms.Model = streaming{llm}
	if protect {
		m = sg.Model(llm)
	}
	a := agents.NewOpenAIFunctionsAgent(m, ts)
	ex := agents.NewExecutor(a, agents.WithMaxIterations(3))
	_, err = chains.Run(context.Background(), ex, "weather in Edinburgh?")
	var out outcome
	out.err = err
	ran.mu.Lock()
	out.ran = slices.Sorted(slices.Values(ran.runs))
	ran.mu.Unlock()
	if reqs := srv.Requests(); len(reqs) > 1 {
		out.results = string(reqs[1])
	}
	return out
}

const weatherArgs = `{"city":"Edinburgh","country":"UK","units":"c"}`

func TestAgentOverFixtures(t *testing.T) {
	type want struct {
		ran     []string
		errHas  string
		results string
	}
	cases := []struct {
		name        string
		body        func(t testing.TB) loopback.Body
		bare, gated want
	}{
		{"complete", func(t testing.TB) loopback.Body { return loopback.Whole(loopback.Fixture(t, loopback.ChatSingle)) },
			want{ran: []string{"GetWeatherArgs " + weatherArgs}, results: "ok"},
			want{ran: []string{"GetWeatherArgs " + weatherArgs}, results: "ok"}},
		{"length-cut", loopback.ChatLengthCut,
			want{ran: []string{`GetWeatherArgs {"city":"Edinburgh`}, results: "ok"},
			want{ran: nil, results: "not run: turn-truncated"}},
		{"drop-mid-arguments", loopback.ChatDropMidArgs,
			want{ran: nil, errHas: "unexpected EOF"},
			want{ran: nil, errHas: "unexpected EOF"}},
		{"drop-after-call-end", loopback.ChatDropAfterEnd,
			want{ran: nil, errHas: "unexpected EOF"},
			want{ran: nil, errHas: "unexpected EOF"}},
		{"parallel", func(t testing.TB) loopback.Body { return loopback.Whole(loopback.Fixture(t, loopback.ChatParallel)) },
			want{ran: []string{`GetWeatherArgs {"city": "Edinburgh", "country": "GB", "units": "c"}`, `get_stock_price {"ticker": "AAPL", "exchange": "NASDAQ"}`}, results: "ok"},
			want{ran: []string{`GetWeatherArgs {"city":"Edinburgh","country":"GB","units":"c"}`, `get_stock_price {"ticker":"AAPL","exchange":"NASDAQ"}`}, results: "ok"}},
	}
	for _, c := range cases {
		for _, protect := range []bool{false, true} {
			w, mode := c.bare, "langchaingo alone"
			if protect {
				w, mode = c.gated, "behind the integration"
			}
			t.Run(c.name+"/"+strings.ReplaceAll(mode, " ", "-"), func(t *testing.T) {
				srv := loopback.NewServer(t, loopback.ChatFinal("done"), c.body(t))
				got := runAgent(t, srv, protect)
				if !slices.Equal(got.ran, w.ran) {
					t.Errorf("%s ran %q, want %q (error %v)", mode, got.ran, w.ran, got.err)
				}
				switch {
				case w.errHas == "" && got.err != nil:
					t.Errorf("%s: error %v", mode, got.err)
				case w.errHas != "" && (got.err == nil || !strings.Contains(got.err.Error(), w.errHas)):
					t.Errorf("%s: error %v, want one with %q", mode, got.err, w.errHas)
				}
				if w.results != "" && !strings.Contains(got.results, w.results) {
					t.Errorf("%s: the tool results sent back lack %q: %s", mode, w.results, got.results)
				}
			})
		}
	}
}
