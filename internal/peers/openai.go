package peers

import (
	"context"
	"fmt"

	"github.com/go-json-experiment/json/jsontext"
	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
	"github.com/openai/openai-go/v3/responses"
	"github.com/sealgate/sealgate/wire"
)

const openaiModule = "github.com/openai/openai-go/v3"

func openaiClient(c Conn) openai.Client {
	return openai.NewClient(option.WithBaseURL(c.BaseURL+"/v1"), option.WithHTTPClient(c.HTTP),
		option.WithAPIKey("sk-peer-offline"), option.WithMaxRetries(0))
}

// chatParams asks for a streamed completion with one function tool per
// tool the body names; what the server answers does not depend on it.
func chatParams(c Conn) openai.ChatCompletionNewParams {
	p := openai.ChatCompletionNewParams{
		Model:    openai.ChatModelGPT5_5,
		Messages: []openai.ChatCompletionMessageParamUnion{openai.UserMessage("What is the weather?")},
	}
	for _, t := range c.Tools {
		p.Tools = append(p.Tools, openai.ChatCompletionFunctionTool(openai.FunctionDefinitionParam{Name: t}))
	}
	return p
}

// strictObject is the careful application's parse: one strictly valid JSON
// object (no duplicate names, valid UTF-8, no trailing bytes).
func strictObject(args string) bool {
	v := jsontext.Value(args)
	return v.IsValid() && v.Kind() == '{'
}

// chatJustFinished is the in-stream idiom of openai-go's README: add each
// chunk to a ChatCompletionAccumulator and run the call that
// JustFinishedToolCall reports.
var chatJustFinished = &Peer{
	Name: "openai-chat/just-finished", Module: openaiModule, Protocol: wire.OpenAIChat,
	Idiom: "ChatCompletionAccumulator.AddChunk, then run JustFinishedToolCall() when it reports one",
	Drive: func(ctx context.Context, c Conn, emit func(Release)) error {
		client := openaiClient(c)
		stream := client.Chat.Completions.NewStreaming(ctx, chatParams(c))
		defer stream.Close()
		acc := openai.ChatCompletionAccumulator{}
		for stream.Next() {
			chunk := stream.Current()
			if !acc.AddChunk(chunk) {
				continue
			}
			if tc, ok := acc.JustFinishedToolCall(); ok {
				choice := int64(0)
				if len(chunk.Choices) > 0 {
					choice = chunk.Choices[0].Index
				}
				emit(Release{Attempt: acc.ID, Item: fmt.Sprintf("%d:%d", choice, tc.Index),
					Call: tc.ID, Tool: tc.Name, Args: []byte(tc.Arguments)})
			}
		}
		return stream.Err()
	},
}

// chatCareful runs calls only after the stream ended without error, for
// choices that finished with tool_calls, and only arguments that parse
// strictly as an object.
var chatCareful = &Peer{
	Name: "openai-chat/careful", Module: openaiModule, Protocol: wire.OpenAIChat,
	Idiom: "accumulate every chunk; after the loop, if stream.Err() == nil, run the tool calls of each choice with finish_reason \"tool_calls\" whose arguments parse strictly as an object",
	Drive: func(ctx context.Context, c Conn, emit func(Release)) error {
		client := openaiClient(c)
		stream := client.Chat.Completions.NewStreaming(ctx, chatParams(c))
		defer stream.Close()
		acc := openai.ChatCompletionAccumulator{}
		for stream.Next() {
			acc.AddChunk(stream.Current())
		}
		if err := stream.Err(); err != nil {
			return err
		}
		for _, ch := range acc.Choices {
			if ch.FinishReason != "tool_calls" {
				continue
			}
			for i, tc := range ch.Message.ToolCalls {
				if tc.ID == "" || !strictObject(tc.Function.Arguments) {
					continue
				}
				emit(Release{Attempt: acc.ID, Item: fmt.Sprintf("%d:%d", ch.Index, i),
					Call: tc.ID, Tool: tc.Function.Name, Args: []byte(tc.Function.Arguments)})
			}
		}
		return nil
	},
}

func responsesParams(c Conn) responses.ResponseNewParams {
	p := responses.ResponseNewParams{
		Model: openai.ChatModelGPT5_5,
		Input: responses.ResponseNewParamsInputUnion{OfString: openai.String("What is the weather?")},
	}
	for _, t := range c.Tools {
		p.Tools = append(p.Tools, responses.ToolParamOfFunction(t, map[string]any{"type": "object"}, false))
	}
	return p
}

// fnCall is a function call as the Responses stream announced it.
type fnCall struct{ call, tool string }

// responsesArgsDone is the in-stream idiom: run a call at its
// response.function_call_arguments.done event.
var responsesArgsDone = &Peer{
	Name: "openai-responses/arguments-done", Module: openaiModule, Protocol: wire.OpenAIResponses,
	Idiom: "run a function call at its response.function_call_arguments.done event (AsResponseFunctionCallArgumentsDone().Arguments)",
	Drive: func(ctx context.Context, c Conn, emit func(Release)) error {
		client := openaiClient(c)
		stream := client.Responses.NewStreaming(ctx, responsesParams(c))
		defer stream.Close()
		var id string
		calls := map[int64]fnCall{}
		for stream.Next() {
			ev := stream.Current()
			switch ev.Type {
			case "response.created":
				id = ev.Response.ID
			case "response.output_item.added":
				if ev.Item.Type == "function_call" {
					calls[ev.OutputIndex] = fnCall{ev.Item.CallID, ev.Item.Name}
				}
			case "response.function_call_arguments.done":
				done := ev.AsResponseFunctionCallArgumentsDone()
				fc := calls[done.OutputIndex]
				emit(Release{Attempt: id, Item: fmt.Sprint(done.OutputIndex), Call: fc.call, Tool: fc.tool,
					Args: []byte(done.Arguments)})
			}
		}
		return stream.Err()
	},
}

// responsesCompleted is the careful idiom: collect the function calls of
// response.output_item.done and run them only at response.completed.
var responsesCompleted = &Peer{
	Name: "openai-responses/completed", Module: openaiModule, Protocol: wire.OpenAIResponses,
	Idiom: "collect function_call items at response.output_item.done; run them only at response.completed",
	Drive: func(ctx context.Context, c Conn, emit func(Release)) error {
		client := openaiClient(c)
		stream := client.Responses.NewStreaming(ctx, responsesParams(c))
		defer stream.Close()
		var id string
		var done []Release
		for stream.Next() {
			ev := stream.Current()
			switch ev.Type {
			case "response.created":
				id, done = ev.Response.ID, nil
			case "response.output_item.done":
				if ev.Item.Type == "function_call" {
					done = append(done, Release{Attempt: id, Item: fmt.Sprint(ev.OutputIndex),
						Call: ev.Item.CallID, Tool: ev.Item.Name, Args: []byte(ev.Item.Arguments.OfString)})
				}
			case "response.completed":
				for _, r := range done {
					emit(r)
				}
				done = nil
			}
		}
		return stream.Err()
	},
}
