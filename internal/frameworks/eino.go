package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"

	einoopenai "github.com/cloudwego/eino-ext/components/model/openai"
	"github.com/cloudwego/eino/adk"
	"github.com/cloudwego/eino/components/tool"
	"github.com/cloudwego/eino/components/tool/utils"
	"github.com/cloudwego/eino/compose"
	"github.com/cloudwego/eino/flow/agent/react"
	"github.com/cloudwego/eino/schema"
	"github.com/sealgate/sealgate/internal/peers"
	"github.com/sealgate/sealgate/wire"
)

const (
	einoModule   = "github.com/cloudwego/eino"
	einoDocsTool = "compose.ToolsNode: \"a node capable of executing tools within a graph\"; react.AgentConfig.StreamToolCallChecker: \"By default, it checks if the first chunk contains tool calls\""
	einoDocsADK  = "adk.NewChatModelAgent \"constructs a chat model-backed agent\"; its ToolsConfig is a compose.ToolsNodeConfig: \"a node capable of executing tools within a graph\""
)

// einoModel is eino-ext's OpenAI chat model on the harness's client.
func einoModel(ctx context.Context, c peers.Conn) (*einoopenai.ChatModel, error) {
	return einoopenai.NewChatModel(ctx, &einoopenai.ChatModelConfig{
		APIKey: "sk-peer-offline", BaseURL: c.BaseURL + "/v1", Model: "gpt-peer", HTTPClient: chatClient(c),
	})
}

// rawTool is a tool that takes the argument string as eino hands it, the
// shape eino's own tool.InvokableTool has.
type rawTool struct {
	name string
	emit func(peers.Release)
}

func (t rawTool) Info(context.Context) (*schema.ToolInfo, error) {
	return &schema.ToolInfo{Name: t.name, Desc: "a tool under test",
		ParamsOneOf: schema.NewParamsOneOfByParams(map[string]*schema.ParameterInfo{})}, nil
}

func (t rawTool) InvokableRun(ctx context.Context, args string, _ ...tool.Option) (string, error) {
	t.emit(peers.Release{Call: compose.GetToolCallID(ctx), Tool: t.name, Args: []byte(args)})
	return "ok", nil
}

func rawTools(c peers.Conn, emit func(peers.Release)) []tool.BaseTool {
	var ts []tool.BaseTool
	for _, name := range c.Tools {
		ts = append(ts, rawTool{name: name, emit: emit})
	}
	return ts
}

// inferTools are typed tools made by utils.InferTool: eino decodes the
// arguments into the tool's input type before the function runs.
func inferTools(c peers.Conn, emit func(peers.Release)) ([]tool.BaseTool, error) {
	var ts []tool.BaseTool
	for _, name := range c.Tools {
		t, err := utils.InferTool(name, "a tool under test", func(ctx context.Context, in map[string]any) (string, error) {
			b, err := json.Marshal(in)
			if err != nil {
				return "", err
			}
			emit(peers.Release{Call: compose.GetToolCallID(ctx), Tool: name, Args: b, Object: true})
			return "ok", nil
		})
		if err != nil {
			return nil, fmt.Errorf("eino InferTool %s: %w", name, err)
		}
		ts = append(ts, t)
	}
	return ts, nil
}

// reactDrive runs eino's ReAct agent, streaming, with the given tools.
func reactDrive(tools func(peers.Conn, func(peers.Release)) ([]tool.BaseTool, error)) peers.Drive {
	return func(ctx context.Context, c peers.Conn, emit func(peers.Release)) error {
		m, err := einoModel(ctx, c)
		if err != nil {
			return err
		}
		ts, err := tools(c, emit)
		if err != nil {
			return err
		}
		agent, err := react.NewAgent(ctx, &react.AgentConfig{
			ToolCallingModel: m, ToolsConfig: compose.ToolsNodeConfig{Tools: ts}, MaxStep: 6,
		})
		if err != nil {
			return err
		}
		sr, err := agent.Stream(ctx, []*schema.Message{schema.UserMessage("What is the weather?")})
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
}

// adkDrive runs adk.ChatModelAgent under an adk.Runner with streaming on.
func adkDrive(ctx context.Context, c peers.Conn, emit func(peers.Release)) error {
	m, err := einoModel(ctx, c)
	if err != nil {
		return err
	}
	agent, err := adk.NewChatModelAgent(ctx, &adk.ChatModelAgentConfig{
		Name: "weather", Description: "answers with tools", Instruction: "Use the tools.", Model: m,
		ToolsConfig:   adk.ToolsConfig{ToolsNodeConfig: compose.ToolsNodeConfig{Tools: rawTools(c, emit)}},
		MaxIterations: 3,
	})
	if err != nil {
		return err
	}
	runner := adk.NewRunner(ctx, adk.RunnerConfig{Agent: agent, EnableStreaming: true})
	iter := runner.Query(ctx, "What is the weather?")
	var errs []error
	for {
		ev, ok := iter.Next()
		if !ok {
			break
		}
		if ev.Err != nil {
			errs = append(errs, ev.Err)
			continue
		}
		if ev.Output != nil && ev.Output.MessageOutput != nil && ev.Output.MessageOutput.MessageStream != nil {
			s := ev.Output.MessageOutput.MessageStream
			for {
				if _, err := s.Recv(); err != nil {
					if !errors.Is(err, io.EOF) {
						errs = append(errs, err)
					}
					break
				}
			}
			s.Close()
		}
	}
	return errors.Join(errs...)
}

var (
	einoReactRaw = &peers.Peer{
		Name: "eino/react-raw", Module: einoModule, Protocol: wire.OpenAIChat, Docs: einoDocsTool,
		Idiom: "react.NewAgent over eino-ext's openai.ChatModel, Stream; a tool.InvokableTool whose InvokableRun(ctx, argumentsInJSON string) is the release",
		Drive: reactDrive(func(c peers.Conn, emit func(peers.Release)) ([]tool.BaseTool, error) {
			return rawTools(c, emit), nil
		}),
	}
	einoReactInfer = &peers.Peer{
		Name: "eino/react-infer", Module: einoModule, Protocol: wire.OpenAIChat, Docs: einoDocsTool,
		Idiom: "react.NewAgent over eino-ext's openai.ChatModel, Stream; a typed utils.InferTool[map[string]any] whose function is the release",
		Drive: reactDrive(inferTools),
	}
	einoADK = &peers.Peer{
		Name: "eino/adk-chatmodel", Module: einoModule, Protocol: wire.OpenAIChat, Docs: einoDocsADK,
		Idiom: "adk.NewChatModelAgent over eino-ext's openai.ChatModel under adk.NewRunner(EnableStreaming); a raw tool.InvokableTool is the release",
		Drive: adkDrive,
	}
)
