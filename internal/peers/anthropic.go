package peers

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"

	"github.com/anthropics/anthropic-sdk-go"
	"github.com/anthropics/anthropic-sdk-go/option"
	"github.com/sealgate/sealgate/wire"
)

const anthropicModule = "github.com/anthropics/anthropic-sdk-go"

func anthropicClient(c Conn) anthropic.Client {
	return anthropic.NewClient(option.WithBaseURL(c.BaseURL), option.WithHTTPClient(c.HTTP),
		option.WithAPIKey("sk-ant-peer-offline"), option.WithMaxRetries(0))
}

func anthropicParams(c Conn) anthropic.MessageNewParams {
	p := anthropic.MessageNewParams{
		Model:     anthropic.ModelClaudeSonnet5_5,
		MaxTokens: 1024,
		Messages:  []anthropic.MessageParam{anthropic.NewUserMessage(anthropic.NewTextBlock("What is the weather?"))},
	}
	for _, t := range c.Tools {
		p.Tools = append(p.Tools, anthropic.ToolUnionParamOfTool(anthropic.ToolInputSchemaParam{}, t))
	}
	return p
}

func blockItem(msg string, index int) string { return fmt.Sprintf("%s:%d", msg, index) }

// anthropicBlockStop is the in-stream idiom: Accumulate every event and run
// a tool_use block at its content_block_stop.
var anthropicBlockStop = &Peer{
	Name: "anthropic/block-stop", Module: anthropicModule, Protocol: wire.Anthropic,
	Idiom: "message.Accumulate(event); at content_block_stop of a tool_use block, run message.Content[index].Input",
	Drive: func(ctx context.Context, c Conn, emit func(Release)) error {
		client := anthropicClient(c)
		stream := client.Messages.NewStreaming(ctx, anthropicParams(c))
		defer stream.Close()
		msg := anthropic.Message{}
		for stream.Next() {
			ev := stream.Current()
			if err := msg.Accumulate(ev); err != nil {
				return err
			}
			if ev.Type != "content_block_stop" {
				continue
			}
			if b := msg.Content[ev.Index]; b.Type == "tool_use" {
				emit(Release{Attempt: msg.ID, Item: blockItem(msg.ID, int(ev.Index)), Call: b.ID, Tool: b.Name, Args: b.Input})
			}
		}
		return stream.Err()
	},
}

// anthropicCareful runs the message's tool_use blocks only after the
// stream ended without error and the message stopped for tool_use.
var anthropicCareful = &Peer{
	Name: "anthropic/careful", Module: anthropicModule, Protocol: wire.Anthropic,
	Idiom: "Accumulate every event; after the loop, if stream.Err() == nil and message.StopReason == \"tool_use\", run every tool_use block's Input",
	Drive: func(ctx context.Context, c Conn, emit func(Release)) error {
		client := anthropicClient(c)
		stream := client.Messages.NewStreaming(ctx, anthropicParams(c))
		defer stream.Close()
		msg := anthropic.Message{}
		for stream.Next() {
			if err := msg.Accumulate(stream.Current()); err != nil {
				return err
			}
		}
		if err := stream.Err(); err != nil {
			return err
		}
		if msg.StopReason != anthropic.StopReasonToolUse {
			return nil
		}
		for i, b := range msg.Content {
			if b.Type == "tool_use" {
				emit(Release{Attempt: msg.ID, Item: blockItem(msg.ID, i), Call: b.ID, Tool: b.Name, Args: b.Input})
			}
		}
		return nil
	},
}

// runnerTool is a tool registered with the SDK's tool runner: its Execute
// is the release.
type runnerTool struct {
	name string
	runs *runs
}

// runs ties the runner's executions to the tool_use blocks of the turn
// being answered; the runner executes a turn's tools in parallel.
type runs struct {
	mu   sync.Mutex
	msg  anthropic.BetaMessage
	used map[int]bool
	emit func(Release)
}

func (t runnerTool) Name() string        { return t.name }
func (t runnerTool) Description() string { return "a tool under test" }
func (t runnerTool) InputSchema() anthropic.BetaToolInputSchemaParam {
	return anthropic.BetaToolInputSchemaParam{}
}

// Execute reports the run as the release of the tool_use block it answers:
// the first unmatched block of this tool whose input marshals to the bytes
// received (the runner marshals Input before Execute).
func (t runnerTool) Execute(ctx context.Context, input json.RawMessage) ([]anthropic.BetaToolResultBlockParamContentUnion, error) {
	r := t.runs
	r.mu.Lock()
	defer r.mu.Unlock()
	item, call := "unmatched", "unmatched"
	for i, b := range r.msg.Content {
		if r.used[i] || b.Type != "tool_use" || b.Name != t.name {
			continue
		}
		if in, err := json.Marshal(b.AsToolUse().Input); err == nil && string(in) == string(input) {
			r.used[i] = true
			item, call = blockItem(r.msg.ID, i), b.ID
			break
		}
	}
	r.emit(Release{Attempt: r.msg.ID, Item: item, Call: call, Tool: t.name, Args: input})
	return []anthropic.BetaToolResultBlockParamContentUnion{{OfText: &anthropic.BetaTextBlockParam{Text: "ok"}}}, nil
}

// anthropicToolRunner is the SDK's own streaming tool runner: the first
// step streams the body, the second runs its tools (the release) and asks
// again, and the follow-up body ends the conversation.
var anthropicToolRunner = &Peer{
	Name: "anthropic/tool-runner", Module: anthropicModule, Protocol: wire.Anthropic,
	Idiom: "client.Beta.Messages.NewToolRunnerStreaming(tools, params); a tool's Execute(ctx, input) is the release",
	Drive: func(ctx context.Context, c Conn, emit func(Release)) error {
		client := anthropicClient(c)
		r := &runs{used: map[int]bool{}, emit: emit}
		var tools []anthropic.BetaTool
		for _, name := range c.Tools {
			tools = append(tools, runnerTool{name: name, runs: r})
		}
		runner := client.Beta.Messages.NewToolRunnerStreaming(tools, anthropic.BetaToolRunnerParams{
			BetaMessageNewParams: anthropic.BetaMessageNewParams{
				Model:     anthropic.ModelClaudeSonnet5_5,
				MaxTokens: 1024,
				Messages:  []anthropic.BetaMessageParam{anthropic.NewBetaUserMessage(anthropic.NewBetaTextBlock("What is the weather?"))},
			},
			MaxIterations: 2,
		})
		step := func() error {
			for _, err := range runner.NextStreaming(ctx) {
				if err != nil {
					return err
				}
			}
			return nil
		}
		if err := step(); err != nil || runner.IsCompleted() || runner.LastMessage() == nil {
			return err
		}
		r.mu.Lock()
		r.msg = *runner.LastMessage()
		r.mu.Unlock()
		return step()
	},
}
