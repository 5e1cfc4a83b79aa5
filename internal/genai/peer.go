package main

import (
	"context"
	"encoding/json"
	"fmt"

	"google.golang.org/genai"

	"github.com/sealgate/sealgate/internal/peers"
	"github.com/sealgate/sealgate/wire"
)

const genaiModule = "google.golang.org/genai"

// genaiDocs is what the SDK's own documentation says about a streamed
// call: the godoc of FunctionCall.WillContinue and PartialArg.WillContinue
// (the SDK assembles nothing: partialArgs reach the application raw).
const genaiDocs = "FunctionCall.WillContinue: \"Whether this is the last part of the FunctionCall. If true, another partial message for the current FunctionCall is expected to follow.\" " +
	"PartialArg.WillContinue: \"Whether this is not the last part of the same json_path. If true, another PartialArg message for the current json_path is expected to follow.\""

// Peers are the genai SDK's streaming idioms under test.
func Peers() []*peers.Peer { return []*peers.Peer{lastPart, careful} }

// lastPart is the idiom the godoc leads to: a call runs at its last part,
// the first functionCall chunk of it that does not say willContinue (a
// whole call at once).
var lastPart = &peers.Peer{
	Name: "genai/last-part", Module: genaiModule, Protocol: wire.Gemini, Docs: genaiDocs,
	Idiom: "range Models.GenerateContentStream; a functionCall with a name starts a call, its partialArgs are set at their jsonPath; run the call at its first functionCall chunk without willContinue",
	Drive: func(ctx context.Context, c peers.Conn, emit func(peers.Release)) error {
		_, err := stream(ctx, c, func(call *streamedCall) error {
			rel, err := call.release()
			if err == nil {
				emit(rel)
			}
			return err
		})
		return err
	},
}

// careful runs the calls that reached their last part only once the
// stream ended without error and every candidate finished with STOP.
var careful = &peers.Peer{
	Name: "genai/careful", Module: genaiModule, Protocol: wire.Gemini, Docs: genaiDocs,
	Idiom: "range Models.GenerateContentStream, assembling calls as last-part does; after the loop, if no error came and every candidate's FinishReason is STOP, run the calls that reached their last part",
	Drive: func(ctx context.Context, c peers.Conn, emit func(peers.Release)) error {
		var ended []*streamedCall
		finish, err := stream(ctx, c, func(call *streamedCall) error {
			ended = append(ended, call)
			return nil
		})
		if err != nil {
			return err
		}
		if len(finish) == 0 {
			return nil
		}
		for _, f := range finish {
			if f != genai.FinishReasonStop {
				return nil
			}
		}
		for _, call := range ended {
			rel, err := call.release()
			if err != nil {
				return err
			}
			emit(rel)
		}
		return nil
	},
}

// streamedCall is one function call as the application gathers it from
// the chunks.
type streamedCall struct {
	responseID string
	item       string // candidate:N, N counting that candidate's calls
	id, name   string
	whole      map[string]any // a call sent whole: its Args
	args       *callArgs      // a call sent as partialArgs
}

// release is what the application hands its tool: the arguments as a
// map (a whole call's Args, or the assembled partialArgs).
func (s *streamedCall) release() (peers.Release, error) {
	m := s.whole
	if s.args.pieces > 0 {
		var err error
		if m, err = s.args.Object(); err != nil {
			return peers.Release{}, fmt.Errorf("call %s %s: %v", s.item, s.name, err)
		}
	}
	if m == nil {
		m = map[string]any{} // the tool is handed a map with no entries
	}
	b, err := json.Marshal(m)
	if err != nil {
		return peers.Release{}, fmt.Errorf("call %s %s: %v", s.item, s.name, err)
	}
	call := s.id
	if call == "" {
		call = "pos:" + s.item
	}
	return peers.Release{Attempt: s.responseID, Item: s.item, Call: call, Tool: s.name, Args: b, Object: true}, nil
}

// client is a Vertex AI client of the loopback server, over the
// harness's stepped HTTP client.
func client(ctx context.Context, c peers.Conn) (*genai.Client, error) {
	return genai.NewClient(ctx, &genai.ClientConfig{
		Backend: genai.BackendVertexAI, APIKey: "vertex-peer-offline",
		HTTPClient:  c.HTTP,
		HTTPOptions: genai.HTTPOptions{BaseURL: c.BaseURL + "/"},
	})
}

// stream runs one GenerateContentStream with the tools declared and
// streamed arguments asked for, calls last for each call at its last part,
// and returns every candidate's finish reason ("" for one that did not
// finish).
func stream(ctx context.Context, c peers.Conn, last func(*streamedCall) error) ([]genai.FinishReason, error) {
	cl, err := client(ctx, c)
	if err != nil {
		return nil, err
	}
	var decls []*genai.FunctionDeclaration
	for _, t := range c.Tools {
		decls = append(decls, &genai.FunctionDeclaration{Name: t, ParametersJsonSchema: map[string]any{"type": "object"}})
	}
	on := true
	cfg := &genai.GenerateContentConfig{
		Tools:      []*genai.Tool{{FunctionDeclarations: decls}},
		ToolConfig: &genai.ToolConfig{FunctionCallingConfig: &genai.FunctionCallingConfig{StreamFunctionCallArguments: &on}},
	}
	open := map[int32]*streamedCall{} // by candidate: the call still sending parts
	count := map[int32]int{}
	finish := map[int32]genai.FinishReason{}
	for resp, err := range cl.Models.GenerateContentStream(ctx, "gemini-3-flash-preview", genai.Text("What is the weather?"), cfg) {
		if err != nil {
			return nil, err
		}
		for _, cand := range resp.Candidates {
			if f, seen := finish[cand.Index]; !seen || f == "" {
				finish[cand.Index] = cand.FinishReason // "" until it finishes
			}
			if cand.Content == nil {
				continue
			}
			for _, part := range cand.Content.Parts {
				fc := part.FunctionCall
				if fc == nil {
					continue
				}
				call := open[cand.Index]
				if fc.Name != "" {
					call = &streamedCall{responseID: resp.ResponseID, item: fmt.Sprintf("%d:%d", cand.Index, count[cand.Index]),
						id: fc.ID, name: fc.Name, whole: fc.Args, args: newCallArgs()}
					count[cand.Index]++
					open[cand.Index] = call
				}
				if call == nil {
					continue // a part of no call: nothing to run
				}
				for _, pa := range fc.PartialArgs {
					if err := call.args.add(pa); err != nil {
						return nil, fmt.Errorf("call %s %s: %v", call.item, call.name, err)
					}
				}
				if fc.WillContinue == nil || !*fc.WillContinue {
					delete(open, cand.Index)
					if err := last(call); err != nil {
						return nil, err
					}
				}
			}
		}
	}
	var out []genai.FinishReason
	for _, f := range finish {
		out = append(out, f)
	}
	return out, nil
}
