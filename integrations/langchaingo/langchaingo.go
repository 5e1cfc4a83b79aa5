// Package langchaingo puts the gate under a tmc/langchaingo agent. The
// framework runs tools from its own copy of the model's answer, so guarding
// the stream alone does not protect its user: this package wraps both ends.
//
//   - HTTPClient, for the model client (openai.WithHTTPClient,
//     anthropic.WithHTTPClient): every streamed response feeds the gate.
//   - Model wraps an llms.Model: each GenerateContent is its own turn, and
//     streams (the gate reads streams only; a call without a streaming func
//     gets one that does nothing).
//   - Tool wraps a tools.Tool: it runs only a call the gate released, with
//     the released bytes, and acks it; any other call returns
//     "not run: REASON" as its observation, so that the agent can re-plan.
//
// langchaingo gives a tool no call id, only its input string: a call is
// matched to a release by tool name and compacted arguments. See
// docs/integrations.md for what that costs.
package langchaingo

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"sync"

	"github.com/tmc/langchaingo/llms"
	"github.com/tmc/langchaingo/tools"

	"github.com/sealgate/sealgate"
	"github.com/sealgate/sealgate/gate"
	"github.com/sealgate/sealgate/guard"
)

// Options configure a Gate.
type Options struct {
	// Next is the transport under the guard; nil is http.DefaultTransport.
	Next http.RoundTripper
	// OnDecision, optional, sees every decision after the Gate recorded it.
	OnDecision func(ctx context.Context, d sealgate.Decision)
	// OnError, optional, receives a body that broke its protocol, a failed
	// ledger (guard.Options.OnError) or a failed ack.
	OnError func(ctx context.Context, err error)
}

// MaxPending bounds the releases waiting for their tool: past it, the
// oldest is dropped and acked not-ok (an agent that never runs a released
// call must not grow the Gate without end).
const MaxPending = 1024

// Gate is the gate of one or many langchaingo agents. It is safe for
// concurrent use.
type Gate struct {
	guard  *guard.Guard
	o      Options
	prefix string // makes turn ids unique across processes sharing a ledger

	mu      sync.Mutex
	turns   int
	pending []sealgate.Decision // releases no tool took yet, oldest first
	reasons []sealgate.Reason   // the reject reasons of the latest turn that had any
	lastRej string              // that turn
}

// New builds the Gate over g, which it owns from then on (as the guard does).
func New(g *gate.Gate, o Options) (*Gate, error) {
	var nonce [6]byte
	if _, err := rand.Read(nonce[:]); err != nil {
		return nil, fmt.Errorf("langchaingo: turn id prefix: %w", err)
	}
	s := &Gate{o: o, prefix: "lcg" + hex.EncodeToString(nonce[:]) + "."}
	tr, err := guard.New(o.Next, g, guard.Options{OnDecision: s.record, OnError: o.OnError})
	if err != nil {
		return nil, fmt.Errorf("langchaingo: %w", err)
	}
	s.guard = tr
	return s, nil
}

// HTTPClient is the client for the model client's options: its transport is
// the guard.
func (s *Gate) HTTPClient() *http.Client { return &http.Client{Transport: s.guard} }

// Guard is the RoundTripper under HTTPClient.
func (s *Gate) Guard() *guard.Guard { return s.guard }

func (s *Gate) record(ctx context.Context, d sealgate.Decision) {
	var drop []sealgate.Decision
	s.mu.Lock()
	switch d.Kind {
	case sealgate.Release:
		s.pending = append(s.pending, d)
		if n := len(s.pending) - MaxPending; n > 0 {
			drop = append(drop, s.pending[:n]...)
			s.pending = append([]sealgate.Decision(nil), s.pending[n:]...)
		}
	case sealgate.Reject:
		turn, _ := guard.TurnFrom(ctx)
		if turn != s.lastRej {
			s.lastRej, s.reasons = turn, nil
		}
		s.reasons = append(s.reasons, d.Reason)
	}
	s.mu.Unlock()
	for _, x := range drop {
		s.ack(ctx, x, errors.New("dropped: more than MaxPending releases waiting"))
	}
	if s.o.OnDecision != nil {
		s.o.OnDecision(ctx, d)
	}
}

// Model wraps m so that each GenerateContent is a turn of its own, streamed
// through the guard (m's client must use HTTPClient).
func (s *Gate) Model(m llms.Model) llms.Model { return &model{s: s, m: m} }

type model struct {
	s *Gate
	m llms.Model
}

func (w *model) GenerateContent(ctx context.Context, msgs []llms.MessageContent, opts ...llms.CallOption) (*llms.ContentResponse, error) {
	var co llms.CallOptions
	for _, o := range opts {
		o(&co)
	}
	if co.StreamingFunc == nil {
		opts = append(opts, llms.WithStreamingFunc(func(context.Context, []byte) error { return nil }))
	}
	w.s.mu.Lock()
	w.s.turns++
	turn := w.s.prefix + strconv.Itoa(w.s.turns)
	w.s.mu.Unlock()
	return w.m.GenerateContent(guard.WithTurn(ctx, turn), msgs, opts...)
}

// Call is llms.Model's text-only form, through GenerateContent.
func (w *model) Call(ctx context.Context, prompt string, opts ...llms.CallOption) (string, error) {
	return llms.GenerateFromSinglePrompt(ctx, w, prompt, opts...)
}

// Tool wraps t so that it runs only calls the gate released.
func (s *Gate) Tool(t tools.Tool) tools.Tool { return &tool{s: s, t: t} }

type tool struct {
	s *Gate
	t tools.Tool
}

func (w *tool) Name() string        { return w.t.Name() }
func (w *tool) Description() string { return w.t.Description() }

// Call runs the wrapped tool with the released input matching this call,
// and acks the release; without one it answers "not run: REASON".
func (w *tool) Call(ctx context.Context, input string) (string, error) {
	d, in, why := w.s.take(w.t.Name(), input)
	if why != "" {
		return NotRun(why), nil
	}
	out, err := w.t.Call(ctx, in)
	w.s.ack(ctx, d, err)
	return out, err
}

// NotRun is the observation of a call the gate did not release.
func NotRun(reason string) string { return "not run: " + reason }

// take removes and returns the oldest release for tool whose arguments
// match input, with the input the tool gets: the released bytes, or, when
// the agent unwrapped a single {"__arg1": "..."} argument, that string as
// released. Without one it says why the call must not run.
func (s *Gate) take(toolName, input string) (sealgate.Decision, string, string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	compact := compacted(input)
	for i, d := range s.pending {
		if d.Tool != toolName {
			continue
		}
		in, ok := "", false
		switch {
		case compact != nil && bytes.Equal(compact, d.Args):
			in, ok = string(d.Args), true
		default:
			var one map[string]json.RawMessage
			if json.Unmarshal(d.Args, &one) == nil && len(one) == 1 {
				var arg string
				if raw, has := one["__arg1"]; has && json.Unmarshal(raw, &arg) == nil && arg == input {
					in, ok = arg, true
				}
			}
		}
		if ok {
			s.pending = append(s.pending[:i:i], s.pending[i+1:]...)
			return d, in, ""
		}
	}
	if len(s.reasons) > 0 {
		var words []string
		for _, r := range s.reasons {
			if !contains(words, string(r)) {
				words = append(words, string(r))
			}
		}
		return sealgate.Decision{}, "", strings.Join(words, ", ")
	}
	return sealgate.Decision{}, "", "no release from the gate for this tool with these arguments"
}

func contains(ws []string, w string) bool {
	for _, x := range ws {
		if x == w {
			return true
		}
	}
	return false
}

// compacted is input without insignificant whitespace, or nil when it is
// not JSON (it can then match no release: the gate releases JSON only).
func compacted(input string) []byte {
	var b bytes.Buffer
	if err := json.Compact(&b, []byte(input)); err != nil {
		return nil
	}
	return b.Bytes()
}

func (s *Gate) ack(ctx context.Context, d sealgate.Decision, err error) {
	if _, aerr := s.guard.Ack(d.Key, err == nil); aerr != nil && s.o.OnError != nil {
		s.o.OnError(ctx, fmt.Errorf("langchaingo: ack %s: %w", d.Key, aerr))
	}
}
