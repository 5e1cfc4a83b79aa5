// Package mcp puts the gate on the host side of the Model Context Protocol
// (modelcontextprotocol/go-sdk). An MCP server never sees the model's
// stream, so it cannot tell a finished call from a cut one: the host can.
// Host calls a tool only from a gate release, with the released bytes, the
// gate's key carried in _meta (for a server that keeps its own ledger), and
// acks the outcome. Its Middleware, on the client's sending side, refuses a
// tools/call that no outstanding release matches, so that no other code
// path of the host can call a tool the gate did not release.
//
// See docs/integrations.md.
package mcp

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/sealgate/sealgate"
)

// MetaKey is the _meta member that carries the gate's key of a call.
const MetaKey = "sealgate/key"

// Acker takes the executor's report of a released call: *gate.Gate and
// *guard.Guard are both one.
type Acker interface {
	Ack(key string, ok bool) ([]sealgate.Decision, error)
}

// Host calls MCP tools from gate releases. It is safe for concurrent use.
type Host struct {
	acker Acker

	mu          sync.Mutex
	outstanding map[string]sealgate.Decision // by key: released calls on their way to the server
}

// NewHost returns a Host that acks through a (the gate, or the guard that
// owns it).
func NewHost(a Acker) (*Host, error) {
	if a == nil {
		return nil, errors.New("mcp: nil Acker: the gate would never learn the outcome of a call")
	}
	return &Host{acker: a, outstanding: map[string]sealgate.Decision{}}, nil
}

// CallTool calls d's tool on cs with d's released arguments, as they were
// sealed, and d's key in _meta, then acks it: ok when the server answered
// (a tool error result included: the tool ran), not ok when the call failed
// on its way. d must be a release.
func (h *Host) CallTool(ctx context.Context, cs *mcp.ClientSession, d sealgate.Decision) (*mcp.CallToolResult, error) {
	if d.Kind != sealgate.Release {
		return nil, fmt.Errorf("mcp: CallTool takes a release, got %s", d.Kind)
	}
	if d.Key == "" || d.Tool == "" {
		return nil, fmt.Errorf("mcp: release without key or tool: %s", d)
	}
	h.mu.Lock()
	if _, dup := h.outstanding[d.Key]; dup {
		h.mu.Unlock()
		return nil, fmt.Errorf("mcp: release %s is already being called", d.Key)
	}
	h.outstanding[d.Key] = d
	h.mu.Unlock()
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{
		Meta:      mcp.Meta{MetaKey: d.Key},
		Name:      d.Tool,
		Arguments: json.RawMessage(d.Args),
	})
	h.mu.Lock()
	delete(h.outstanding, d.Key)
	h.mu.Unlock()
	if _, aerr := h.acker.Ack(d.Key, err == nil); aerr != nil {
		return res, errors.Join(err, fmt.Errorf("mcp: ack %s: %w", d.Key, aerr))
	}
	return res, err
}

// Middleware is a sending middleware for the client
// (Client.AddSendingMiddleware): it lets a tools/call through only when its
// _meta key names a release this Host is calling, with that release's tool
// and arguments. Every other method passes unchanged.
func (h *Host) Middleware() mcp.Middleware {
	return func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			if method == "tools/call" {
				if err := h.check(req.GetParams()); err != nil {
					return nil, err
				}
			}
			return next(ctx, method, req)
		}
	}
}

// check says why a tools/call must not be sent, or nil.
func (h *Host) check(p mcp.Params) error {
	params, ok := p.(*mcp.CallToolParams)
	if !ok || params == nil {
		return fmt.Errorf("sealgate: tools/call refused: unexpected params %T", p)
	}
	key, _ := params.Meta[MetaKey].(string)
	h.mu.Lock()
	d, ok := h.outstanding[key]
	h.mu.Unlock()
	if key == "" || !ok {
		return fmt.Errorf("sealgate: tools/call %s refused: the gate released no such call (no %s in _meta that names a release being called)", params.Name, MetaKey)
	}
	if params.Name != d.Tool {
		return fmt.Errorf("sealgate: tools/call %s refused: release %s is for tool %s", params.Name, key, d.Tool)
	}
	args, err := json.Marshal(params.Arguments)
	if err != nil {
		return fmt.Errorf("sealgate: tools/call %s refused: arguments: %v", params.Name, err)
	}
	if !bytes.Equal(args, d.Args) {
		return fmt.Errorf("sealgate: tools/call %s refused: arguments differ from the released ones of %s", params.Name, key)
	}
	return nil
}

// KeyFrom is, on the server side, the gate's key of a call, for a server
// that keeps a ledger of the calls it ran.
func KeyFrom(req *mcp.CallToolRequest) (string, bool) {
	if req == nil || req.Params == nil {
		return "", false
	}
	k, ok := req.Params.Meta[MetaKey].(string)
	return k, ok && k != ""
}
