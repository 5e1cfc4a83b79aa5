package langchaingo_test

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/tmc/langchaingo/llms"
	"github.com/tmc/langchaingo/llms/anthropic"
	"github.com/tmc/langchaingo/tools"

	"github.com/sealgate/sealgate"
	"github.com/sealgate/sealgate/gate"
	seallcg "github.com/sealgate/sealgate/integrations/langchaingo"
	"github.com/sealgate/sealgate/internal/loopback"
)

var anthropicTools = []string{"get_weather", "make_file"}

// runAnthropic is the tool loop an application writes over langchaingo's
// Anthropic client: GenerateContent, streaming, with tools; then each tool
// call of the answer through its tool. Behind a Gate when protect is set.
func runAnthropic(t *testing.T, srv *loopback.Server, protect bool) outcome {
	t.Helper()
	ran := &ranLog{}
	byName := map[string]tools.Tool{}
	for _, n := range anthropicTools {
		byName[n] = recTool{n, ran}
	}
	client := srv.Client()
	var sg *seallcg.Gate
	if protect {
		cfg := sealgate.DefaultConfig()
		for _, n := range anthropicTools {
			cfg.Tools = append(cfg.Tools, sealgate.Tool{Name: n, Schema: `{"type":"object"}`})
		}
		g, err := gate.New(cfg, gate.NewMemoryLedger())
		if err != nil {
			t.Fatal(err)
		}
		if sg, err = seallcg.New(g, seallcg.Options{Next: srv.Client().Transport}); err != nil {
			t.Fatal(err)
		}
		client = sg.HTTPClient()
		for n, tl := range byName {
			byName[n] = sg.Tool(tl)
		}
	}
	llm, err := anthropic.New(anthropic.WithBaseURL(srv.URL+"/v1"), anthropic.WithToken("test"), anthropic.WithModel("claude-sonnet-4-5"), anthropic.WithHTTPClient(client))
	if err != nil {
		t.Fatal(err)
	}
	var m llms.Model = streaming{llm}
	if protect {
		m = sg.Model(llm)
	}
	var defs []llms.Tool
	for _, n := range anthropicTools {
		defs = append(defs, llms.Tool{Type: "function", Function: &llms.FunctionDefinition{Name: n, Description: "a tool under test", Parameters: map[string]any{"type": "object"}}})
	}
	ctx := context.Background()
	resp, err := m.GenerateContent(ctx, []llms.MessageContent{llms.TextParts(llms.ChatMessageTypeHuman, "weather in Paris?")}, llms.WithTools(defs))
	var out outcome
	out.err = err
	if err == nil {
		for _, ch := range resp.Choices {
			for _, tc := range ch.ToolCalls {
				obs, terr := byName[tc.FunctionCall.Name].Call(ctx, tc.FunctionCall.Arguments)
				if terr != nil {
					t.Fatalf("tool %s: %v", tc.FunctionCall.Name, terr)
				}
				out.results += obs + "\n"
			}
		}
	}
	ran.mu.Lock()
	out.ran = slices.Sorted(slices.Values(ran.runs))
	ran.mu.Unlock()
	return out
}

func TestAnthropicOverFixtures(t *testing.T) {
	type want struct {
		ran     []string
		errHas  string
		results string // a substring of the observations
	}
	cases := []struct {
		name        string
		body        func(t testing.TB) loopback.Body
		bare, gated want
	}{
		{"complete", func(t testing.TB) loopback.Body { return loopback.Whole(loopback.Fixture(t, loopback.AnthropicSingle)) },
			want{ran: []string{`get_weather {"location":"Paris"}`}, results: "ok"},
			want{ran: []string{`get_weather {"location":"Paris"}`}, results: "ok"}},
		{"max-tokens-cut", func(t testing.TB) loopback.Body {
			return loopback.Whole(loopback.Fixture(t, loopback.AnthropicMaxToken))
		},
			want{ran: []string{"make_file {}"}, results: "ok"},
			want{ran: nil, results: "not run: turn-truncated"}},
		{"drop-mid-arguments", loopback.AnthropicDropMidArgs,
			want{ran: nil, errHas: "unexpected EOF"},
			want{ran: nil, errHas: "unexpected EOF"}},
		{"drop-after-call-end", loopback.AnthropicDropAfterEnd,
			want{ran: nil, errHas: "unexpected EOF"},
			want{ran: nil, errHas: "unexpected EOF"}},
	}
	for _, c := range cases {
		for _, protect := range []bool{false, true} {
			w, mode := c.bare, "langchaingo alone"
			if protect {
				w, mode = c.gated, "behind the integration"
			}
			t.Run(c.name+"/"+strings.ReplaceAll(mode, " ", "-"), func(t *testing.T) {
				srv := loopback.NewServer(t, loopback.Body{}, c.body(t))
				got := runAnthropic(t, srv, protect)
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
					t.Errorf("%s: the observations lack %q: %s", mode, w.results, got.results)
				}
			})
		}
	}
}
