package main

import (
	"bytes"
	"context"
	"errors"
	"io"
	"strings"
	"sync"

	einoopenai "github.com/cloudwego/eino-ext/components/model/openai"
	"github.com/cloudwego/eino/compose"
	"github.com/cloudwego/eino/flow/agent"
	"github.com/cloudwego/eino/flow/agent/react"
	"github.com/cloudwego/eino/schema"
	"github.com/sealgate/sealgate"
	"github.com/sealgate/sealgate/gate"
	sealeino "github.com/sealgate/sealgate/integrations/eino"
	seallcg "github.com/sealgate/sealgate/integrations/langchaingo"
	"github.com/sealgate/sealgate/internal/peers"
	"github.com/sealgate/sealgate/wire"
	"github.com/tmc/langchaingo/agents"
	"github.com/tmc/langchaingo/chains"
	"github.com/tmc/langchaingo/llms"
	"github.com/tmc/langchaingo/llms/anthropic"
	"github.com/tmc/langchaingo/llms/openai"
	"github.com/tmc/langchaingo/tools"
)

// The same idioms behind the project's integrations: the controls, which
// must show no violation on any body.

// einoGated is eino/react-raw with the eino integration: the guarded HTTP
// client in the model config, its callbacks handler on the run and its
// tool-call middleware in the tools node.
func einoGated(ctx context.Context, c peers.Conn, emit func(peers.Release)) error {
	g, err := gate.New(c.Config, gate.NewMemoryLedger())
	if err != nil {
		return err
	}
	rs := &releases{emit: emit}
	sg, err := sealeino.New(g, sealeino.Options{Next: chatClient(c).Transport, OnDecision: rs.record})
	if err != nil {
		return err
	}
	m, err := einoopenai.NewChatModel(ctx, &einoopenai.ChatModelConfig{
		APIKey: "sk-peer-offline", BaseURL: c.BaseURL + "/v1", Model: "gpt-peer", HTTPClient: sg.HTTPClient(),
	})
	if err != nil {
		return err
	}
	a, err := react.NewAgent(ctx, &react.AgentConfig{ToolCallingModel: m, MaxStep: 6, ToolsConfig: compose.ToolsNodeConfig{
		Tools: rawTools(c, rs.run), ToolCallMiddlewares: []compose.ToolMiddleware{sg.ToolMiddleware()}}})
	if err != nil {
		return err
	}
	sr, err := a.Stream(ctx, []*schema.Message{schema.UserMessage("What is the weather?")},
		agent.WithComposeOptions(compose.WithCallbacks(sg.Handler())))
	if err != nil {
		return err
	}
	defer sr.Close()
	for {
		if _, err := sr.Recv(); err != nil {
			if errors.Is(err, io.EOF) {
				return nil
			}
			return err
		}
	}
}

// lcFunctionsGated is langchaingo/openai-functions with the langchaingo
// integration: the guarded client, the model wrapper and the tool wrapper.
func lcFunctionsGated(ctx context.Context, c peers.Conn, emit func(peers.Release)) error {
	g, err := gate.New(c.Config, gate.NewMemoryLedger())
	if err != nil {
		return err
	}
	rs := &releases{emit: emit}
	sg, err := seallcg.New(g, seallcg.Options{Next: chatClient(c).Transport, OnDecision: rs.record})
	if err != nil {
		return err
	}
	llm, err := openai.New(openai.WithToken("sk-peer-offline"), openai.WithBaseURL(c.BaseURL+"/v1"),
		openai.WithModel("gpt-peer"), openai.WithHTTPClient(sg.HTTPClient()))
	if err != nil {
		return err
	}
	// The tool behind the wrapper reports no call id: the integration
	// matches by tool and bytes, and the run is the release it matched
	// (langchaingo can hand an action another call's id and arguments).
	var ts []tools.Tool
	for _, name := range c.Tools {
		ts = append(ts, sg.Tool(appTool{name: name, call: new(string), emit: rs.run}))
	}
	exec := agents.NewExecutor(agents.NewOpenAIFunctionsAgent(sg.Model(llm), ts), agents.WithMaxIterations(3))
	_, err = chains.Call(ctx, exec, map[string]any{"input": "What is the weather?"},
		chains.WithStreamingFunc(func(context.Context, []byte) error { return nil }))
	return err
}

// lcAnthropicGated is langchaingo/anthropic-generate with the langchaingo
// integration: the guarded client and the model wrapper, and each tool call
// of the response run through the tool wrapper.
func lcAnthropicGated(ctx context.Context, c peers.Conn, emit func(peers.Release)) error {
	g, err := gate.New(c.Config, gate.NewMemoryLedger())
	if err != nil {
		return err
	}
	rs := &releases{emit: emit}
	sg, err := seallcg.New(g, seallcg.Options{Next: usageClient(c).Transport, OnDecision: rs.record})
	if err != nil {
		return err
	}
	llm, err := anthropic.New(anthropic.WithToken("sk-ant-peer-offline"), anthropic.WithBaseURL(c.BaseURL+"/v1"),
		anthropic.WithModel("claude-peer"), anthropic.WithHTTPClient(sg.HTTPClient()))
	if err != nil {
		return err
	}
	var ts []llms.Tool
	var call string // the id of the tool call being run, for the report
	byName := map[string]tools.Tool{}
	for _, name := range c.Tools {
		ts = append(ts, llms.Tool{Type: "function", Function: &llms.FunctionDefinition{
			Name: name, Description: "a tool under test", Parameters: map[string]any{"type": "object"}}})
		byName[name] = sg.Tool(appTool{name: name, call: &call, emit: rs.run})
	}
	resp, err := sg.Model(llm).GenerateContent(ctx,
		[]llms.MessageContent{llms.TextParts(llms.ChatMessageTypeHuman, "What is the weather?")},
		llms.WithTools(ts), llms.WithMaxTokens(1024))
	if err != nil {
		// langchaingo refuses the answer (a tool input that is not one JSON
		// value, say) and nothing runs: the bare idiom reports that failure;
		// the control judges what runs.
		return nil
	}
	for _, ch := range resp.Choices {
		if ch == nil {
			continue
		}
		for _, tc := range ch.ToolCalls {
			if tc.FunctionCall == nil {
				continue
			}
			if t, ok := byName[tc.FunctionCall.Name]; ok {
				call = tc.ID
				if _, err := t.Call(ctx, tc.FunctionCall.Arguments); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

// appTool is the application's tool behind the langchaingo wrapper: it
// runs with the released bytes, which it reports with the call id the
// application knows, if any.
type appTool struct {
	name string
	call *string
	emit func(peers.Release)
}

func (t appTool) Name() string        { return t.name }
func (t appTool) Description() string { return "a tool under test" }

func (t appTool) Call(_ context.Context, input string) (string, error) {
	t.emit(peers.Release{Call: *t.call, Tool: t.name, Args: []byte(input)})
	return "ok", nil
}

var (
	einoReactGated = &peers.Peer{
		Name: "eino/react-raw+sealgate", Module: "github.com/sealgate/sealgate/integrations/eino", Protocol: wire.OpenAIChat, Control: true,
		Idiom: "eino/react-raw behind the eino integration: HTTPClient in the model config, Handler on the run, ToolMiddleware in the tools node",
		Drive: einoGated,
	}
	lcFunctionsGatedPeer = &peers.Peer{
		Name: "langchaingo/openai-functions+sealgate", Module: "github.com/sealgate/sealgate/integrations/langchaingo", Protocol: wire.OpenAIChat, Control: true,
		Idiom: "langchaingo/openai-functions behind the langchaingo integration: HTTPClient, Model and Tool wrappers",
		Drive: lcFunctionsGated,
	}
	lcAnthropicGatedPeer = &peers.Peer{
		Name: "langchaingo/anthropic-generate+sealgate", Module: "github.com/sealgate/sealgate/integrations/langchaingo", Protocol: wire.Anthropic, Control: true,
		Idiom: "langchaingo/anthropic-generate behind the langchaingo integration: HTTPClient, Model wrapper, each tool call through the Tool wrapper",
		Drive: lcAnthropicGated,
	}
)

// releases are the gate's releases of one run, so that a control reports
// each tool run as the release it answers (attempt, item and the gate's
// key), which a call id alone cannot name when a retry reuses it.
type releases struct {
	mu   sync.Mutex
	list []sealgate.Decision
	used []bool
	emit func(peers.Release)
}

func (rs *releases) record(_ context.Context, d sealgate.Decision) {
	if d.Kind != sealgate.Release {
		return
	}
	rs.mu.Lock()
	defer rs.mu.Unlock()
	rs.list = append(rs.list, d)
	rs.used = append(rs.used, false)
}

// run reports a tool run as the first unused release of its call id (when
// it has one), tool and bytes; a run no release answers is reported as it
// is, for the checks to judge.
func (rs *releases) run(r peers.Release) {
	rs.mu.Lock()
	args := sealgate.Compact(r.Args)
	for i, d := range rs.list {
		if !rs.used[i] && d.Tool == r.Tool && (r.Call == "" || d.Call == r.Call) && bytes.Equal(d.Args, args) {
			rs.used[i] = true
			r.Attempt, r.Item, r.Call, r.Key = bodyAttempt(d.Attempt), d.Item, d.Call, d.Key
			break
		}
	}
	rs.mu.Unlock()
	rs.emit(r)
}

// bodyAttempt is the attempt id as the body names it: the guard prefixes
// each attempt with its response's number ("r1:"), and the body under test
// is the run's first response.
func bodyAttempt(a string) string {
	if rest, ok := strings.CutPrefix(a, "r1:"); ok {
		return rest
	}
	return a
}
