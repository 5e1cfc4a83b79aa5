package eino_test

import (
	"context"
	"errors"
	"io"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/cloudwego/eino-ext/components/model/openai"
	"github.com/cloudwego/eino/components/tool"
	"github.com/cloudwego/eino/compose"
	"github.com/cloudwego/eino/flow/agent"
	"github.com/cloudwego/eino/flow/agent/react"
	"github.com/cloudwego/eino/schema"

	"github.com/sealgate/sealgate"
	"github.com/sealgate/sealgate/gate"
	sealeino "github.com/sealgate/sealgate/integrations/eino"
	"github.com/sealgate/sealgate/internal/loopback"
)

// rawTool is a tool that takes the argument string as the model sent it
// (or as the gate released it) and records each run.
type rawTool struct {
	name string
	ran  *ranLog
}

type ranLog struct {
	mu   sync.Mutex
	runs []string // "tool args"
}

func (l *ranLog) add(s string) {
	l.mu.Lock()
	l.runs = append(l.runs, s)
	l.mu.Unlock()
}

func (l *ranLog) list() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	out := slices.Clone(l.runs)
	slices.Sort(out)
	return out
}

func (t rawTool) Info(context.Context) (*schema.ToolInfo, error) {
	return &schema.ToolInfo{Name: t.name, Desc: "a tool under test",
		ParamsOneOf: schema.NewParamsOneOfByParams(map[string]*schema.ParameterInfo{"city": {Type: schema.String}})}, nil
}

func (t rawTool) InvokableRun(_ context.Context, args string, _ ...tool.Option) (string, error) {
	t.ran.add(t.name + " " + args)
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

// outcome is what one agent run did: the tools it ran, what it answered or
// the error it returned, and the tool results it sent back to the model.
type outcome struct {
	ran     []string
	answer  string
	err     error
	results string // the second request's body (the tool results), if any
}

// runAgent runs eino's ReAct agent, streaming, over eino-ext's OpenAI model
// against srv; with a Gate when protect is set.
func runAgent(t *testing.T, srv *loopback.Server, protect bool) outcome {
	t.Helper()
	ctx := context.Background()
	ran := &ranLog{}
	cfg := &openai.ChatModelConfig{BaseURL: srv.URL + "/v1", APIKey: "test", Model: "gpt-4o", HTTPClient: srv.Client()}
	tools := compose.ToolsNodeConfig{Tools: []tool.BaseTool{rawTool{toolNames[0], ran}, rawTool{toolNames[1], ran}}}
	var opts []agent.AgentOption
	if protect {
		g, err := gate.New(gateConfig(), gate.NewMemoryLedger())
		if err != nil {
			t.Fatal(err)
		}
		sg, err := sealeino.New(g, sealeino.Options{Next: srv.Client().Transport})
		if err != nil {
			t.Fatal(err)
		}
		cfg.HTTPClient = sg.HTTPClient()
		tools.ToolCallMiddlewares = []compose.ToolMiddleware{sg.ToolMiddleware()}
		opts = append(opts, agent.WithComposeOptions(compose.WithCallbacks(sg.Handler())))
	}
	cm, err := openai.NewChatModel(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	a, err := react.NewAgent(ctx, &react.AgentConfig{ToolCallingModel: cm, ToolsConfig: tools, MaxStep: 6})
	if err != nil {
		t.Fatal(err)
	}
	var out outcome
	sr, err := a.Stream(ctx, []*schema.Message{schema.UserMessage("weather in Edinburgh?")}, opts...)
	if err == nil {
		var b strings.Builder
		for {
			m, rerr := sr.Recv()
			if errors.Is(rerr, io.EOF) {
				break
			}
			if rerr != nil {
				err = rerr
				break
			}
			b.WriteString(m.Content)
		}
		sr.Close()
		out.answer = b.String()
	}
	out.err = err
	out.ran = ran.list()
	if reqs := srv.Requests(); len(reqs) > 1 {
		out.results = string(reqs[1])
	}
	return out
}

const (
	weatherArgs = `{"city":"Edinburgh","country":"UK","units":"c"}`
	stockArgs   = `{"ticker":"AAPL","exchange":"NASDAQ"}`
)

// The cases of the issue: each body, what eino does with it alone
// (measured), and what it does behind the integration.
func TestAgentOverFixtures(t *testing.T) {
	type want struct {
		ran     []string
		errHas  string // "" : no error
		results string // a substring of the tool results sent back, "" : no second request
	}
	cases := []struct {
		name        string
		body        func(t testing.TB) loopback.Body
		bare, gated want
	}{
		{"complete", func(t testing.TB) loopback.Body { return loopback.Whole(loopback.Fixture(t, loopback.ChatSingle)) },
			want{ran: []string{"GetWeatherArgs " + weatherArgs}, results: `"content":"ok"`},
			want{ran: []string{"GetWeatherArgs " + weatherArgs}, results: `"content":"ok"`}},
		{"length-cut", loopback.ChatLengthCut,
			want{ran: []string{`GetWeatherArgs {"city":"Edinburgh`}, results: `"content":"ok"`},
			want{ran: nil, results: `not run: turn-truncated`}},
		{"drop-mid-arguments", loopback.ChatDropMidArgs,
			want{ran: nil, errHas: "unexpected EOF"},
			want{ran: nil, errHas: "unexpected EOF"}},
		{"drop-after-call-end", loopback.ChatDropAfterEnd,
			want{ran: nil, errHas: "unexpected EOF"},
			want{ran: nil, errHas: "unexpected EOF"}},
		{"parallel", func(t testing.TB) loopback.Body { return loopback.Whole(loopback.Fixture(t, loopback.ChatParallel)) },
			want{ran: []string{"GetWeatherArgs " + `{"city": "Edinburgh", "country": "GB", "units": "c"}`, "get_stock_price " + `{"ticker": "AAPL", "exchange": "NASDAQ"}`}, results: `"content":"ok"`},
			want{ran: []string{"GetWeatherArgs " + `{"city":"Edinburgh","country":"GB","units":"c"}`, "get_stock_price " + stockArgs}, results: `"content":"ok"`}},
	}
	for _, c := range cases {
		for _, protect := range []bool{false, true} {
			w, mode := c.bare, "eino alone"
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
