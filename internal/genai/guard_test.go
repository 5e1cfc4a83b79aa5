package main

// The guard under Google's Go GenAI SDK (google.golang.org/genai) on the
// Vertex AI backend, against a loopback server replaying the Vertex
// captures whose calls stream their arguments as pieces, whole and cut.

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"sync"
	"testing"

	"google.golang.org/genai"

	"github.com/sealgate/sealgate"
	"github.com/sealgate/sealgate/gate"
	"github.com/sealgate/sealgate/guard"
)

// decisions keeps what a guard hands over.
type decisions struct {
	mu   sync.Mutex
	ds   []sealgate.Decision
	errs []error
}

func (r *decisions) all() ([]sealgate.Decision, []error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]sealgate.Decision(nil), r.ds...), append([]error(nil), r.errs...)
}

// newGuard is a guard over a fresh gate that declares tools, each taking
// any object.
func newGuard(t *testing.T, tools ...string) (*guard.Guard, *decisions) {
	t.Helper()
	cfg := sealgate.DefaultConfig()
	for _, name := range tools {
		cfg.Tools = append(cfg.Tools, sealgate.Tool{Name: name, Schema: `{"type":"object"}`})
	}
	g, err := gate.New(cfg, gate.NewMemoryLedger())
	if err != nil {
		t.Fatal(err)
	}
	rec := &decisions{}
	gd, err := guard.New(nil, g, guard.Options{
		OnDecision: func(_ context.Context, d sealgate.Decision) {
			rec.mu.Lock()
			rec.ds = append(rec.ds, d)
			rec.mu.Unlock()
		},
		OnError: func(_ context.Context, err error) {
			rec.mu.Lock()
			rec.errs = append(rec.errs, err)
			rec.mu.Unlock()
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	return gd, rec
}

// sdkCall is a call as the SDK's own structs spell it: its name and the
// arguments its chunks give, whole (Args) or assembled from partialArgs.
type sdkCall struct {
	name  string
	args  *callArgs
	whole map[string]any
	ended bool // a chunk without willContinue, or the terminal functionCall:{}
}

// streamVertex runs GenerateContentStream with the guard on the SDK's HTTP
// client and returns the calls the SDK's chunks spell and the error the
// SDK reported, if any.
func streamVertex(t *testing.T, baseURL string, gd *guard.Guard) ([]*sdkCall, error) {
	t.Helper()
	client, err := genai.NewClient(context.Background(), &genai.ClientConfig{
		Backend: genai.BackendVertexAI, APIKey: "vertex-offline",
		HTTPClient:  &http.Client{Transport: gd},
		HTTPOptions: genai.HTTPOptions{BaseURL: baseURL + "/"},
	})
	if err != nil {
		t.Fatal(err)
	}
	var calls []*sdkCall
	ctx := guard.WithTurn(context.Background(), "t1")
	for resp, err := range client.Models.GenerateContentStream(ctx, "gemini-3-flash-preview", genai.Text("Read the screens."), nil) {
		if err != nil {
			return calls, err
		}
		for _, fc := range resp.FunctionCalls() {
			var c *sdkCall
			switch {
			case fc.Name != "":
				c = &sdkCall{name: fc.Name, args: newCallArgs(), whole: fc.Args}
				calls = append(calls, c)
			case len(calls) > 0:
				c = calls[len(calls)-1]
			default:
				t.Fatalf("a functionCall chunk before any call: %+v", fc)
			}
			for _, pa := range fc.PartialArgs {
				if err := c.args.add(pa); err != nil {
					t.Fatalf("the SDK's pieces: %v", err)
				}
			}
			c.ended = fc.WillContinue == nil || !*fc.WillContinue
		}
	}
	return calls, nil
}

// spelled is the argument text a call's chunks spell.
func (c *sdkCall) spelled(t *testing.T) string {
	t.Helper()
	if c.args.pieces == 0 {
		if c.whole == nil {
			return "{}"
		}
		b, err := json.Marshal(c.whole)
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	return string(c.args.JSON())
}

func TestGenAIVertexWhole(t *testing.T) {
	for _, file := range vertexCaptures {
		t.Run(file, func(t *testing.T) {
			lines := fixtureLines(t, file)
			gd, rec := newGuard(t, "getWeather", "writeItems", "read_theme", "read_screen")
			calls, err := streamVertex(t, vertexServer(t, lines, "").URL, gd)
			if err != nil {
				t.Fatalf("SDK: %v", err)
			}
			ds, errs := rec.all()
			if len(errs) != 0 {
				t.Fatalf("guard errors: %v", errs)
			}
			if len(calls) == 0 || len(ds) != len(calls) {
				t.Fatalf("the SDK spelled %d calls; the gate decided %v", len(calls), ds)
			}
			for i, d := range ds {
				c := calls[i]
				if d.Kind != sealgate.Release || d.Tool != c.name || string(d.Args) != c.spelled(t) {
					t.Errorf("call %d: gate %s; the SDK's chunks spell %s %s", i, d, c.name, c.spelled(t))
				}
			}
		})
	}
}

// TestGenAIVertexCut cuts each capture inside its last streamed call: the
// SDK, which hands pieces over raw, still shows the pending call; the gate
// releases none of the attempt's calls when the body stops (the attempt
// closes disconnected), and releases all but the cut one when the turn
// finishes without the cut call's end.
func TestGenAIVertexCut(t *testing.T) {
	for _, file := range vertexCaptures {
		lines := fixtureLines(t, file)
		mid := lastWhere(t, lines, midString)
		open := lastWhere(t, lines, callContinues)
		if mid < 0 || open < 0 || open+1 >= len(lines) {
			t.Fatalf("%s: no streamed call to cut", file)
		}
		cases := []struct {
			name   string
			lines  []string
			half   string
			reason sealgate.Reason // of every call the attempt began
			sdkErr bool
		}{
			{"mid-string", lines[:mid+1], "", sealgate.TurnDisconnected, false},
			{"terminal-missing", append(append([]string{}, lines[:open+1]...), stopChunk(t, lines[open])), "", sealgate.Incomplete, false},
			{"dropped-connection", lines[:open+1], lines[open+1], sealgate.TurnDisconnected, true},
		}
		for _, c := range cases {
			t.Run(file+"/"+c.name, func(t *testing.T) {
				gd, rec := newGuard(t, "getWeather", "writeItems", "read_theme", "read_screen")
				calls, err := streamVertex(t, vertexServer(t, c.lines, c.half).URL, gd)
				if (err != nil) != c.sdkErr {
					t.Errorf("SDK error %v, want one: %v", err, c.sdkErr)
				}
				if len(calls) == 0 || calls[len(calls)-1].ended {
					t.Fatalf("the SDK shows no pending call: %d calls", len(calls))
				}
				ds, errs := rec.all()
				if len(errs) != 0 {
					t.Fatalf("guard errors: %v", errs)
				}
				if len(ds) != len(calls) {
					t.Fatalf("the SDK spelled %d calls; the gate decided %v", len(calls), ds)
				}
				for i, d := range ds {
					last := i == len(ds)-1
					switch {
					case c.reason == sealgate.Incomplete && !last:
						// the calls that ended before the finish stand
						if d.Kind != sealgate.Release || string(d.Args) != calls[i].spelled(t) {
							t.Errorf("call %d: %s, want released %s", i, d, calls[i].spelled(t))
						}
					case d.Kind != sealgate.Reject || d.Reason != c.reason:
						t.Errorf("call %d: %s, want rejected %s", i, d, c.reason)
					}
				}
			})
		}
	}
}

// TestGenAIVertexArrayPath pins what the issue saw a framework get wrong:
// an index in a jsonPath builds an array, never a member named
// "operations[0]", in the gate's bytes as in the SDK's pieces.
func TestGenAIVertexArrayPath(t *testing.T) {
	lines := fixtureLines(t, "gemini/vertex-partial-args-no-terminal-functioncall.jsonl")
	gd, rec := newGuard(t, "writeItems")
	if _, err := streamVertex(t, vertexServer(t, lines, "").URL, gd); err != nil {
		t.Fatal(err)
	}
	ds, _ := rec.all()
	if len(ds) != 1 || ds[0].Kind != sealgate.Release {
		t.Fatalf("decisions %v", ds)
	}
	var v struct {
		Operations []map[string]any `json:"operations"`
	}
	if err := json.Unmarshal(ds[0].Args, &v); err != nil || len(v.Operations) != 2 || strings.Contains(string(ds[0].Args), "operations[") {
		t.Fatalf("released %s (%v): want an array of two operations", ds[0].Args, err)
	}
}
