// Package eino puts the gate under a cloudwego/eino agent. The framework
// runs tools from its own copy of the model stream, so guarding the stream
// alone does not protect its user: this package joins the three places
// where eino can be reached.
//
//   - HTTPClient, for the model's config (eino-ext's openai
//     ChatModelConfig.HTTPClient): every streamed response feeds the gate.
//   - Handler, an eino callbacks handler: each model call gets its own turn,
//     and a retry of that call (eino's model retry re-runs it with the same
//     messages) keeps it, so that a call released once is never released
//     again.
//   - ToolMiddleware, for the tools node (compose.ToolsNodeConfig): a tool
//     runs only when the gate released its call, with the released bytes,
//     and is acked; any other call is answered "not run: REASON" as its tool
//     result, so that the model can re-plan.
//
// The gate decides streamed responses only: run the agent with Stream.
// See docs/integrations.md.
package eino

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/cloudwego/eino/callbacks"
	"github.com/cloudwego/eino/components"
	"github.com/cloudwego/eino/components/model"
	"github.com/cloudwego/eino/compose"
	"github.com/cloudwego/eino/schema"

	"github.com/sealgate/sealgate"
	"github.com/sealgate/sealgate/gate"
	"github.com/sealgate/sealgate/guard"
)

// Options configure a Gate.
type Options struct {
	// Next is the transport under the guard; nil is http.DefaultTransport.
	Next http.RoundTripper
	// OnDecision, optional, sees every decision of the gate after the Gate
	// recorded it (for logs and metrics; the tools node needs no help).
	OnDecision func(ctx context.Context, d sealgate.Decision)
	// OnError, optional, receives a body that broke its protocol or a
	// failed ledger (guard.Options.OnError).
	OnError func(ctx context.Context, err error)
}

// Gate is the gate of one or many eino agents. It is safe for concurrent
// use.
type Gate struct {
	guard  *guard.Guard
	o      Options
	prefix string // makes turn ids unique across processes sharing a ledger

	mu       sync.Mutex
	turns    int
	calls    []modelCall                    // the latest model calls, newest last, to know a retry
	released map[string][]sealgate.Decision // by call id, until a tool takes it
	turnOf   map[string]string              // the turn of each released call id
	reasons  map[string][]sealgate.Reason   // reject reasons by turn
	order    []string                       // turns with reasons, oldest first
}

// New builds the Gate over g, which it owns from then on (as the guard does).
func New(g *gate.Gate, o Options) (*Gate, error) {
	var nonce [6]byte
	if _, err := rand.Read(nonce[:]); err != nil {
		return nil, fmt.Errorf("eino: turn id prefix: %w", err)
	}
	s := &Gate{o: o, prefix: "eino" + hex.EncodeToString(nonce[:]) + ".",
		released: map[string][]sealgate.Decision{}, turnOf: map[string]string{}, reasons: map[string][]sealgate.Reason{}}
	tr, err := guard.New(o.Next, g, guard.Options{OnDecision: s.record, OnError: o.OnError})
	if err != nil {
		return nil, fmt.Errorf("eino: %w", err)
	}
	s.guard = tr
	return s, nil
}

// HTTPClient is the client for the model's config: its transport is the
// guard.
func (s *Gate) HTTPClient() *http.Client { return &http.Client{Transport: s.guard} }

// Guard is the RoundTripper under HTTPClient, for a client built otherwise.
func (s *Gate) Guard() *guard.Guard { return s.guard }

// modelCall identifies a model call by its messages: eino's retry passes
// the very same slice again, while the next call of an agent loop has more
// messages (the tool results).
type modelCall struct {
	first *schema.Message
	n     int
	turn  string
}

// keep bounds what the Gate remembers of model calls and of reject reasons:
// a retry follows its call at once, and a tools node its model call.
const keep = 256

// toolsRun is one run of a tools node: the calls of the assistant message it
// executes, and the turn that message came from.
type toolsRun struct {
	calls []string
	turn  string
}

type toolsRunKey struct{}

// Handler is the callbacks handler to run the agent with (for a ReAct
// agent: agent.WithComposeOptions(compose.WithCallbacks(h)); or
// callbacks.AppendGlobalHandlers). It gives each model call its turn, and
// lets the tools node know the turn its calls came from.
func (s *Gate) Handler() callbacks.Handler {
	return callbacks.NewHandlerBuilder().
		OnStartFn(s.onStart).
		OnEndFn(func(ctx context.Context, info *callbacks.RunInfo, _ callbacks.CallbackOutput) context.Context {
			s.toolsDone(ctx, info)
			return ctx
		}).
		OnErrorFn(func(ctx context.Context, info *callbacks.RunInfo, _ error) context.Context {
			s.toolsDone(ctx, info)
			return ctx
		}).
		OnEndWithStreamOutputFn(func(ctx context.Context, info *callbacks.RunInfo, out *schema.StreamReader[callbacks.CallbackOutput]) context.Context {
			out.Close()
			// The tools node has run every call when its output starts.
			s.toolsDone(ctx, info)
			return ctx
		}).
		Build()
}

func (s *Gate) onStart(ctx context.Context, info *callbacks.RunInfo, in callbacks.CallbackInput) context.Context {
	if info == nil {
		return ctx
	}
	switch info.Component {
	case components.ComponentOfChatModel:
		return guard.WithTurn(ctx, s.turnFor(model.ConvCallbackInput(in)))
	case compose.ComponentOfToolsNode:
		if m, ok := in.(*schema.Message); ok {
			return context.WithValue(ctx, toolsRunKey{}, s.toolsStart(m))
		}
	}
	return ctx
}

// turnFor is the turn of a model call: its retry's when it is one, else a
// new one.
func (s *Gate) turnFor(in *model.CallbackInput) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	var c modelCall
	if in != nil && len(in.Messages) > 0 {
		c = modelCall{first: in.Messages[0], n: len(in.Messages)}
		for _, old := range slices.Backward(s.calls) {
			if old.first == c.first && old.n == c.n {
				return old.turn
			}
		}
	}
	s.turns++
	c.turn = s.prefix + strconv.Itoa(s.turns)
	if c.first != nil {
		s.calls = append(s.calls, c)
		if len(s.calls) > keep {
			s.calls = slices.Delete(s.calls, 0, len(s.calls)-keep)
		}
	}
	return c.turn
}

// toolsStart finds the turn of the assistant message a tools node is about
// to execute: the turn of its released calls, else the latest turn the gate
// decided.
func (s *Gate) toolsStart(m *schema.Message) *toolsRun {
	s.mu.Lock()
	defer s.mu.Unlock()
	tr := &toolsRun{}
	for _, tc := range m.ToolCalls {
		tr.calls = append(tr.calls, tc.ID)
		if t, ok := s.turnOf[tc.ID]; ok && tr.turn == "" {
			tr.turn = t
		}
	}
	if tr.turn == "" && len(s.order) > 0 {
		tr.turn = s.order[len(s.order)-1]
	}
	return tr
}

// toolsDone acks not-ok the releases of a tools node's calls that no tool
// took: the ledger must not keep them pending.
func (s *Gate) toolsDone(ctx context.Context, info *callbacks.RunInfo) {
	// The tools' own callbacks see the node's context too: only the node
	// itself ends its run.
	tr, ok := ctx.Value(toolsRunKey{}).(*toolsRun)
	if !ok || info == nil || info.Component != compose.ComponentOfToolsNode {
		return
	}
	var left []sealgate.Decision
	s.mu.Lock()
	for _, id := range tr.calls {
		left = append(left, s.released[id]...)
		delete(s.released, id)
		delete(s.turnOf, id)
	}
	s.mu.Unlock()
	for _, d := range left {
		s.ack(d, errNotRun)
	}
}

// record is the guard's OnDecision: it files each release under its call
// id, and each reject reason under its turn.
func (s *Gate) record(ctx context.Context, d sealgate.Decision) {
	turn, _ := guard.TurnFrom(ctx)
	s.mu.Lock()
	switch d.Kind {
	case sealgate.Release:
		s.released[d.Call] = append(s.released[d.Call], d)
		s.turnOf[d.Call] = turn
	case sealgate.Reject:
		if _, ok := s.reasons[turn]; !ok {
			s.order = append(s.order, turn)
			if len(s.order) > keep {
				delete(s.reasons, s.order[0])
				s.order = s.order[1:]
			}
		}
		s.reasons[turn] = append(s.reasons[turn], d.Reason)
	}
	s.mu.Unlock()
	if s.o.OnDecision != nil {
		s.o.OnDecision(ctx, d)
	}
}

// take removes and returns the release of the call, or says why the call
// must not run.
func (s *Gate) take(ctx context.Context, in *compose.ToolInput) (sealgate.Decision, string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if ds := s.released[in.CallID]; len(ds) > 0 {
		d := ds[0]
		if len(ds) == 1 {
			delete(s.released, in.CallID)
			delete(s.turnOf, in.CallID)
		} else {
			s.released[in.CallID] = ds[1:]
		}
		if d.Tool != in.Name {
			return sealgate.Decision{}, fmt.Sprintf("the gate released call %s for tool %s, not %s", in.CallID, d.Tool, in.Name)
		}
		return d, ""
	}
	var turn string
	if tr, ok := ctx.Value(toolsRunKey{}).(*toolsRun); ok {
		turn = tr.turn
	}
	if rs := s.reasons[turn]; len(rs) > 0 {
		var words []string
		for _, x := range rs {
			if w := string(x); !contains(words, w) {
				words = append(words, w)
			}
		}
		return sealgate.Decision{}, strings.Join(words, ", ")
	}
	return sealgate.Decision{}, "no release from the gate (the model's answer was not a stream through the guarded client, or this call was already run)"
}

func contains(ws []string, w string) bool {
	for _, x := range ws {
		if x == w {
			return true
		}
	}
	return false
}

// NotRun is the tool result of a call the gate did not release.
func NotRun(reason string) string { return "not run: " + reason }

// ToolMiddleware is the middleware for the tools node
// (compose.ToolsNodeConfig.ToolCallMiddlewares, also adk's tools config).
func (s *Gate) ToolMiddleware() compose.ToolMiddleware {
	return compose.ToolMiddleware{
		Invokable: func(next compose.InvokableToolEndpoint) compose.InvokableToolEndpoint {
			return func(ctx context.Context, in *compose.ToolInput) (*compose.ToolOutput, error) {
				d, why := s.take(ctx, in)
				if why != "" {
					return &compose.ToolOutput{Result: NotRun(why)}, nil
				}
				out, err := next(ctx, released(in, d))
				s.ack(d, err)
				return out, err
			}
		},
		Streamable: func(next compose.StreamableToolEndpoint) compose.StreamableToolEndpoint {
			return func(ctx context.Context, in *compose.ToolInput) (*compose.StreamToolOutput, error) {
				d, why := s.take(ctx, in)
				if why != "" {
					return &compose.StreamToolOutput{Result: schema.StreamReaderFromArray([]string{NotRun(why)})}, nil
				}
				out, err := next(ctx, released(in, d))
				s.ack(d, err)
				return out, err
			}
		},
		EnhancedInvokable: func(next compose.EnhancedInvokableToolEndpoint) compose.EnhancedInvokableToolEndpoint {
			return func(ctx context.Context, in *compose.ToolInput) (*compose.EnhancedInvokableToolOutput, error) {
				d, why := s.take(ctx, in)
				if why != "" {
					return &compose.EnhancedInvokableToolOutput{Result: notRunResult(why)}, nil
				}
				out, err := next(ctx, released(in, d))
				s.ack(d, err)
				return out, err
			}
		},
		EnhancedStreamable: func(next compose.EnhancedStreamableToolEndpoint) compose.EnhancedStreamableToolEndpoint {
			return func(ctx context.Context, in *compose.ToolInput) (*compose.EnhancedStreamableToolOutput, error) {
				d, why := s.take(ctx, in)
				if why != "" {
					return &compose.EnhancedStreamableToolOutput{Result: schema.StreamReaderFromArray([]*schema.ToolResult{notRunResult(why)})}, nil
				}
				out, err := next(ctx, released(in, d))
				s.ack(d, err)
				return out, err
			}
		},
	}
}

func notRunResult(why string) *schema.ToolResult {
	return &schema.ToolResult{Parts: []schema.ToolOutputPart{{Type: schema.ToolPartTypeText, Text: NotRun(why)}}}
}

// released is the tool input with the gate's bytes for arguments: the tool
// gets exactly what was sealed, never the framework's own copy.
func released(in *compose.ToolInput, d sealgate.Decision) *compose.ToolInput {
	c := *in
	c.Arguments = string(d.Args)
	return &c
}

// errNotRun is the outcome of a release that its tools node did not run.
var errNotRun = errors.New("the tools node ended without running the call")

// ack reports the outcome of a released call: ok when the tool ran without
// an error.
func (s *Gate) ack(d sealgate.Decision, err error) {
	if _, aerr := s.guard.Ack(d.Key, err == nil); aerr != nil && s.o.OnError != nil {
		s.o.OnError(context.Background(), errors.Join(fmt.Errorf("eino: ack %s", d.Key), aerr))
	}
}
