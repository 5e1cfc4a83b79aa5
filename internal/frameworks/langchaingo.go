package main

import (
	"context"

	"github.com/sealgate/sealgate/internal/peers"
	"github.com/sealgate/sealgate/wire"
	"github.com/tmc/langchaingo/agents"
	"github.com/tmc/langchaingo/callbacks"
	"github.com/tmc/langchaingo/chains"
	"github.com/tmc/langchaingo/llms"
	"github.com/tmc/langchaingo/llms/anthropic"
	"github.com/tmc/langchaingo/llms/openai"
	"github.com/tmc/langchaingo/schema"
	"github.com/tmc/langchaingo/tools"
)

const (
	langchaingoModule = "github.com/tmc/langchaingo"
	langchaingoDocsFn = "agents.Executor \"is the chain responsible for running agents\"; OpenAIFunctionsAgent \"is an Agent driven by OpenAIs function powered API\""
	langchaingoDocsAn = "llms.ToolCall \"is a call to a tool (as requested by the model) that should be executed\""
)

// lcTool is a langchaingo tool: Call gets the input string and no call
// id; the id of the action being run is taken from the executor's
// callbacks, which announce each action just before its tool is called.
type lcTool struct {
	name   string
	action *actionID
	emit   func(peers.Release)
}

// actionID is the call id of the action the executor is running.
type actionID struct {
	callbacks.SimpleHandler
	id string
}

func (a *actionID) HandleAgentAction(_ context.Context, action schema.AgentAction) {
	a.id = action.ToolID
}

func (t lcTool) Name() string        { return t.name }
func (t lcTool) Description() string { return "a tool under test" }

func (t lcTool) Call(_ context.Context, input string) (string, error) {
	t.emit(peers.Release{Call: t.action.id, Tool: t.name, Args: []byte(input)})
	return "ok", nil
}

// lcFunctionsAgent runs the OpenAI functions agent under an Executor; the
// agent streams every model call (it always sets a streaming func).
func lcFunctionsAgent(ctx context.Context, c peers.Conn, emit func(peers.Release)) error {
	llm, err := openai.New(openai.WithToken("sk-peer-offline"), openai.WithBaseURL(c.BaseURL+"/v1"),
		openai.WithModel("gpt-peer"), openai.WithHTTPClient(chatClient(c)))
	if err != nil {
		return err
	}
	action := &actionID{}
	var ts []tools.Tool
	for _, name := range c.Tools {
		ts = append(ts, lcTool{name: name, action: action, emit: emit})
	}
	agent := agents.NewOpenAIFunctionsAgent(llm, ts)
	exec := agents.NewExecutor(agent, agents.WithMaxIterations(3), agents.WithCallbacksHandler(action))
	// The agent's own streaming func (set when it has a callbacks handler)
	// is overridden by the chain's call options, so streaming is turned on
	// there.
	_, err = chains.Call(ctx, exec, map[string]any{"input": "What is the weather?"},
		chains.WithStreamingFunc(func(context.Context, []byte) error { return nil }))
	return err
}

// lcAnthropicGenerate streams one GenerateContent call with tools and runs
// the tool calls of the response's choices.
func lcAnthropicGenerate(ctx context.Context, c peers.Conn, emit func(peers.Release)) error {
	llm, err := anthropic.New(anthropic.WithToken("sk-ant-peer-offline"), anthropic.WithBaseURL(c.BaseURL+"/v1"),
		anthropic.WithModel("claude-peer"), anthropic.WithHTTPClient(usageClient(c)))
	if err != nil {
		return err
	}
	var ts []llms.Tool
	for _, name := range c.Tools {
		ts = append(ts, llms.Tool{Type: "function", Function: &llms.FunctionDefinition{
			Name: name, Description: "a tool under test", Parameters: map[string]any{"type": "object"}}})
	}
	resp, err := llm.GenerateContent(ctx,
		[]llms.MessageContent{llms.TextParts(llms.ChatMessageTypeHuman, "What is the weather?")},
		llms.WithTools(ts), llms.WithMaxTokens(1024),
		llms.WithStreamingFunc(func(context.Context, []byte) error { return nil }))
	if err != nil {
		return err
	}
	for _, ch := range resp.Choices {
		if ch == nil {
			continue
		}
		for _, tc := range ch.ToolCalls {
			if tc.FunctionCall != nil {
				emit(peers.Release{Call: tc.ID, Tool: tc.FunctionCall.Name, Args: []byte(tc.FunctionCall.Arguments), Object: true})
			}
		}
	}
	return nil
}

var (
	lcOpenAIFunctions = &peers.Peer{
		Name: "langchaingo/openai-functions", Module: langchaingoModule, Protocol: wire.OpenAIChat, Docs: langchaingoDocsFn,
		Idiom: "agents.NewOpenAIFunctionsAgent over llms/openai under agents.NewExecutor; chains.Call with chains.WithStreamingFunc; a tools.Tool's Call(ctx, input) is the release",
		Drive: lcFunctionsAgent,
	}
	lcAnthropic = &peers.Peer{
		Name: "langchaingo/anthropic-generate", Module: langchaingoModule, Protocol: wire.Anthropic, Docs: langchaingoDocsAn,
		Idiom: "llms/anthropic GenerateContent with WithTools and WithStreamingFunc; run each choice's ToolCalls (FunctionCall.Arguments)",
		Drive: lcAnthropicGenerate,
	}
)
