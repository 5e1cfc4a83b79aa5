//go:build genai

package guard_test

// The guard under Google's Go GenAI SDK (google.golang.org/genai) on the
// Vertex AI backend, against a loopback server replaying the Vertex
// captures whose calls stream their arguments as pieces (partialArgs).
// The SDK asks for alt=sse; Vertex's other streaming body, one JSON array,
// is driven through the guard directly (the SDK cannot read it).
//
// Behind the genai build tag: the SDK's dependency tree (grpc, protobuf,
// cloud auth: some 220 packages) costs minutes of cold compilation under
// -race, more than the test suite may spend on it. Run it with
//
//	go test -tags genai -run TestGenAI ./guard

import (
	"context"
	"encoding/json"
	"net/http"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"google.golang.org/genai"

	"github.com/sealgate/sealgate"
	"github.com/sealgate/sealgate/guard"
)

var vertexCaptures = []struct {
	file  string
	calls int // the calls the capture completes
	cut   int // a line count that cuts the last call inside its pieces
}{
	{"gemini/vertex-partial-args-two-sequential-calls.jsonl", 2, 6},
	{"gemini/vertex-partial-args-no-terminal-functioncall.jsonl", 1, 12},
	{"gemini/vertex-no-args-call-then-three-partial-calls.jsonl", 4, 12},
}

func jsonlLines(b []byte) []string {
	return strings.Split(strings.TrimSpace(string(b)), "\n")
}

// spelledCall is a call as the SDK's chunks spell it, from the SDK's own
// structs, independently of wire: its leaves by jsonPath ($.a[0].b), each
// string piece appended to its path's string.
type spelledCall struct {
	name   string
	leaves map[string]any
}

// flatten lists the leaves of a decoded JSON value by their jsonPath.
func flatten(prefix string, v any, out map[string]any) {
	switch x := v.(type) {
	case map[string]any:
		for k, e := range x {
			flatten(prefix+"."+k, e, out)
		}
	case []any:
		for i, e := range x {
			flatten(prefix+"["+strconv.Itoa(i)+"]", e, out)
		}
	default:
		out[prefix] = v
	}
}

func TestGenAIVertexCaptures(t *testing.T) {
	for _, c := range vertexCaptures {
		lines := jsonlLines(fixture(t, c.file))
		for _, cut := range []bool{false, true} {
			n := len(lines)
			if cut {
				n = c.cut
			}
			name := c.file
			if cut {
				name += " cut"
			}
			t.Run(name, func(t *testing.T) {
				body := jsonlToSSE(t, []byte(strings.Join(lines[:n], "\n")), false)
				srv := newVendorServer(t, body)
				gd, rec := newGuard(t, nil, guard.Options{})
				client, err := genai.NewClient(context.Background(), &genai.ClientConfig{
					Backend: genai.BackendVertexAI, APIKey: "test-key",
					HTTPClient:  &http.Client{Transport: gd},
					HTTPOptions: genai.HTTPOptions{BaseURL: srv.URL + "/"},
				})
				if err != nil {
					t.Fatal(err)
				}
				var sdk []spelledCall
				for resp, err := range client.Models.GenerateContentStream(guard.WithTurn(context.Background(), "t1"),
					"gemini-3-flash-preview", genai.Text("Read the screens."), nil) {
					if err != nil {
						t.Fatalf("SDK: %v", err)
					}
					for _, fc := range resp.FunctionCalls() {
						if fc.Name != "" {
							c := spelledCall{fc.Name, map[string]any{}}
							flatten("$", map[string]any(fc.Args), c.leaves)
							sdk = append(sdk, c)
						}
						for _, pa := range fc.PartialArgs {
							leaves := sdk[len(sdk)-1].leaves
							switch {
							case pa.NumberValue != nil:
								leaves[pa.JsonPath] = *pa.NumberValue
							case pa.BoolValue != nil:
								leaves[pa.JsonPath] = *pa.BoolValue
							case pa.NULLValue != "":
								leaves[pa.JsonPath] = nil
							default:
								s, _ := leaves[pa.JsonPath].(string)
								leaves[pa.JsonPath] = s + pa.StringValue
							}
						}
					}
				}
				rel := rec.of(sealgate.Release)
				if !cut {
					// The SDK reports no error either way; the gate releases
					// every call, with exactly the arguments the pieces spell.
					if len(rel) != c.calls || len(sdk) != c.calls || len(rec.decisions()) != c.calls {
						t.Fatalf("SDK calls %v; gate: %v", sdk, rec.lines())
					}
					for i, d := range rel {
						var v any
						if err := json.Unmarshal(d.Args, &v); err != nil {
							t.Fatal(err)
						}
						got := map[string]any{}
						flatten("$", v, got)
						if d.Tool != sdk[i].name || !reflect.DeepEqual(got, sdk[i].leaves) {
							t.Errorf("call %d: gate %s %s, the SDK's pieces spell %s %v", i, d.Tool, d.Args, sdk[i].name, sdk[i].leaves)
						}
					}
					return
				}
				// Cut inside the last call's pieces: the SDK ends its stream
				// without an error, holding the pending call's partial
				// arguments; the gate releases nothing and rejects every
				// call of the attempt turn-disconnected.
				if len(sdk) == 0 {
					t.Fatal("the SDK saw no call")
				}
				rej := rec.of(sealgate.Reject)
				if len(rel) != 0 || len(rej) != len(sdk) {
					t.Fatalf("SDK calls %v; gate: %v", sdk, rec.lines())
				}
				for _, d := range rej {
					if d.Reason != sealgate.TurnDisconnected {
						t.Errorf("%s, want turn-disconnected", d)
					}
				}
				if len(rec.errors()) != 0 {
					t.Errorf("errors: %v", rec.errors())
				}
			})
		}
	}
}
