package main

import (
	"bytes"
	"encoding/json"
	"reflect"
	"sort"
	"strings"
	"testing"
)

// capturedCall is one tool call of a captured body, its arguments put
// together from the body's own deltas.
type capturedCall struct {
	tool string
	args string
}

// openaiCalls reads a Chat Completions capture's tool calls.
func openaiCalls(t *testing.T, evs [][]byte) []capturedCall {
	t.Helper()
	byIndex := map[int]*capturedCall{}
	for _, ev := range evs {
		data, ok := bytes.CutPrefix(bytes.TrimSpace(ev), []byte("data: "))
		if !ok || string(data) == "[DONE]" {
			continue
		}
		var chunk struct {
			Choices []struct {
				Delta struct {
					ToolCalls []struct {
						Index    int `json:"index"`
						Function struct {
							Name      string `json:"name"`
							Arguments string `json:"arguments"`
						} `json:"function"`
					} `json:"tool_calls"`
				} `json:"delta"`
			} `json:"choices"`
		}
		if err := json.Unmarshal(data, &chunk); err != nil {
			t.Fatalf("capture chunk %q: %v", data, err)
		}
		for _, ch := range chunk.Choices {
			for _, tc := range ch.Delta.ToolCalls {
				c := byIndex[tc.Index]
				if c == nil {
					c = &capturedCall{}
					byIndex[tc.Index] = c
				}
				c.tool += tc.Function.Name
				c.args += tc.Function.Arguments
			}
		}
	}
	return sortedCalls(byIndex)
}

// anthropicCalls reads a Messages capture's tool_use blocks.
func anthropicCalls(t *testing.T, evs [][]byte) []capturedCall {
	t.Helper()
	byIndex := map[int]*capturedCall{}
	for _, ev := range evs {
		var data []byte
		for _, line := range bytes.Split(ev, []byte("\n")) {
			if d, ok := bytes.CutPrefix(line, []byte("data: ")); ok {
				data = d
			}
		}
		var e struct {
			Type         string `json:"type"`
			Index        int    `json:"index"`
			ContentBlock struct {
				Type string `json:"type"`
				Name string `json:"name"`
			} `json:"content_block"`
			Delta struct {
				PartialJSON string `json:"partial_json"`
			} `json:"delta"`
		}
		if data == nil || json.Unmarshal(data, &e) != nil {
			continue
		}
		switch {
		case e.Type == "content_block_start" && e.ContentBlock.Type == "tool_use":
			byIndex[e.Index] = &capturedCall{tool: e.ContentBlock.Name}
		case e.Type == "content_block_delta" && byIndex[e.Index] != nil:
			byIndex[e.Index].args += e.Delta.PartialJSON
		}
	}
	return sortedCalls(byIndex)
}

func sortedCalls(m map[int]*capturedCall) []capturedCall {
	var idx []int
	for i := range m {
		idx = append(idx, i)
	}
	sort.Ints(idx)
	var out []capturedCall
	for _, i := range idx {
		out = append(out, *m[i])
	}
	return out
}

func sameJSON(t *testing.T, a, b string) bool {
	t.Helper()
	var x, y any
	if json.Unmarshal([]byte(a), &x) != nil || json.Unmarshal([]byte(b), &y) != nil {
		return false
	}
	return reflect.DeepEqual(x, y)
}

// TestIdiomsRunEachCallOnceOnCompleteBodies: every genkit idiom, over a
// complete captured body, runs each of its tool calls exactly once, with
// the arguments the body streamed, after the body's last tool event, with
// no error: the harness drives genkit's real HTTP, SSE and tool path.
func TestIdiomsRunEachCallOnceOnCompleteBodies(t *testing.T) {
	srv := newTestServer(t)
	cases := []struct {
		idioms []string
		file   string
		calls  func(*testing.T, [][]byte) []capturedCall
		proto  string
	}{
		{[]string{"genkit/openai-any", "genkit/openai-typed"}, "openai-chat/single-tool-call-strict.sse", openaiCalls, "openai-chat"},
		{[]string{"genkit/openai-any", "genkit/openai-typed"}, "openai-chat/parallel-tool-calls-gpt4o.sse", openaiCalls, "openai-chat"},
		{[]string{"genkit/anthropic-any", "genkit/anthropic-typed"}, "anthropic/text-then-tool-use.sse", anthropicCalls, "anthropic"},
		{[]string{"genkit/anthropic-any", "genkit/anthropic-typed"}, "anthropic/text-then-tool-use-padded-json.sse", anthropicCalls, "anthropic"},
	}
	for _, c := range cases {
		evs := fixtureEvents(t, c.file)
		want := c.calls(t, evs)
		if len(want) == 0 {
			t.Fatalf("%s: no tool call read from the capture", c.file)
		}
		var tools []string
		for _, w := range want {
			tools = append(tools, w.tool)
		}
		for _, name := range c.idioms {
			rp := runOne(srv, idiomNamed(t, name), request{Run: 1, Peer: name, Events: evs, FollowUp: followUps[c.proto], Tools: tools, TimeoutMs: 10000})
			if rp.Error != "" || rp.Crash != "" || rp.Hung {
				t.Errorf("%s on %s: error %q crash %q hung %v", name, c.file, rp.Error, rp.Crash, rp.Hung)
				continue
			}
			if len(rp.Executions) != len(want) {
				t.Errorf("%s on %s: %d executions %+v, want %d", name, c.file, len(rp.Executions), rp.Executions, len(want))
				continue
			}
			used := make([]bool, len(want))
			for _, x := range rp.Executions {
				found := false
				for i, w := range want {
					if !used[i] && x.Tool == w.tool && sameJSON(t, x.Args, w.args) {
						used[i], found = true, true
						break
					}
				}
				if !found {
					t.Errorf("%s on %s: ran %s(%s), which the body does not call (or calls once)", name, c.file, x.Tool, x.Args)
				}
				if !x.Object {
					t.Errorf("%s: a genkit tool gets a parsed value, but the execution says it got the string", name)
				}
				if x.Delivered < lastToolEvent(evs)+1 {
					t.Errorf("%s on %s: ran %s at event %d, before the body's last tool event %d", name, c.file, x.Tool, x.Delivered, lastToolEvent(evs)+1)
				}
			}
		}
	}
}

// lastToolEvent is the index of the last event that carries tool call
// bytes.
func lastToolEvent(evs [][]byte) int {
	last := -1
	for i, ev := range evs {
		s := string(ev)
		if strings.Contains(s, `"tool_calls"`) || strings.Contains(s, `"input_json_delta"`) || strings.Contains(s, `"tool_use"`) {
			last = i
		}
	}
	return last
}
