package mcp

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/sealgate/sealgate"
)

type nopAcker struct{ acks []string }

func (a *nopAcker) Ack(key string, ok bool) ([]sealgate.Decision, error) {
	a.acks = append(a.acks, key)
	return nil, nil
}

// The middleware's check: only the tool and the exact bytes of a release
// being called pass.
func TestMiddlewareRefusesAllButTheRelease(t *testing.T) {
	h, err := NewHost(&nopAcker{})
	if err != nil {
		t.Fatal(err)
	}
	d := sealgate.Decision{Kind: sealgate.Release, Tool: "get_weather", Key: "k1", Args: sealgate.Sealed(`{"city":"Edinburgh"}`)}
	h.outstanding[d.Key] = d
	cases := []struct {
		name   string
		params mcp.Params
		refuse string // "" : passes
	}{
		{"the release", &mcp.CallToolParams{Meta: mcp.Meta{MetaKey: "k1"}, Name: "get_weather", Arguments: json.RawMessage(d.Args)}, ""},
		{"no key", &mcp.CallToolParams{Name: "get_weather", Arguments: json.RawMessage(d.Args)}, "released no such call"},
		{"unknown key", &mcp.CallToolParams{Meta: mcp.Meta{MetaKey: "k2"}, Name: "get_weather", Arguments: json.RawMessage(d.Args)}, "released no such call"},
		{"other tool", &mcp.CallToolParams{Meta: mcp.Meta{MetaKey: "k1"}, Name: "delete_all", Arguments: json.RawMessage(d.Args)}, "is for tool get_weather"},
		{"cut arguments", &mcp.CallToolParams{Meta: mcp.Meta{MetaKey: "k1"}, Name: "get_weather", Arguments: map[string]any{"city": "Edin"}}, "arguments differ"},
		{"re-serialized arguments", &mcp.CallToolParams{Meta: mcp.Meta{MetaKey: "k1"}, Name: "get_weather", Arguments: json.RawMessage(`{"city": "Edinburgh"}`)}, ""},
		{"not call params", &mcp.ListToolsParams{}, "unexpected params"},
	}
	for _, c := range cases {
		err := h.check(c.params)
		switch {
		case c.refuse == "" && err != nil:
			t.Errorf("%s: refused: %v", c.name, err)
		case c.refuse != "" && (err == nil || !strings.Contains(err.Error(), c.refuse)):
			t.Errorf("%s: %v, want a refusal with %q", c.name, err, c.refuse)
		}
	}
}

func TestCallToolTakesOnlyReleases(t *testing.T) {
	if _, err := NewHost(nil); err == nil {
		t.Error("NewHost(nil) accepted: the gate would never learn outcomes")
	}
	a := &nopAcker{}
	h, _ := NewHost(a)
	for _, d := range []sealgate.Decision{
		{Kind: sealgate.Reject, Reason: sealgate.TurnTruncated},
		{Kind: sealgate.Release, Tool: "get_weather"},
	} {
		if _, err := h.CallTool(context.Background(), nil, d); err == nil {
			t.Errorf("CallTool(%s) accepted", d)
		}
	}
	if len(a.acks) != 0 {
		t.Errorf("acks %v for calls never made", a.acks)
	}
}
