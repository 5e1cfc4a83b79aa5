package peers

import (
	"slices"
	"testing"

	"github.com/sealgate/sealgate"
	"github.com/sealgate/sealgate/wire"
)

// TestRunConfigNamesEveryTool: on a body wire reads whole, the tools a
// peer is given are exactly the ones wire saw begin, in the same order; on
// a body whose error line makes wire stop early, they still include the
// tools that only the bytes after the error name, so a peer that reads on
// can run them and be judged for it.
func TestRunConfigNamesEveryTool(t *testing.T) {
	names := func(c sealgate.Config) []string {
		var out []string
		for _, tl := range c.Tools {
			out = append(out, tl.Name)
		}
		return out
	}
	want := []string{"get_weather", "get_time"}
	for _, p := range []wire.Protocol{wire.OpenAIChat, wire.OpenAIResponses, wire.Anthropic, wire.Gemini} {
		clean := build(t, p, twoCalls(), Fault{})
		if got := names(RunConfig(clean, clean.Decode())); !slices.Equal(got, want) {
			t.Errorf("%s, clean: peer given %v, want %v", p, got, want)
		}
		if got := names(Config(clean.Decode().Events)); !slices.Equal(got, want) {
			t.Errorf("%s, clean: wire began %v, want %v", p, got, want)
		}
		failed := build(t, p, twoCalls(), Fault{Kind: ErrorAfter, At: 1})
		m := failed.Decode()
		// Gemini has no response framing to stop in: its next chunk opens
		// a new attempt, which wire reads
		if got := names(Config(m.Events)); len(got) != 0 && p != wire.Gemini {
			t.Errorf("%s, error after the first event: wire began %v, want none (the test needs a body wire stops reading)", p, got)
		}
		if got := names(RunConfig(failed, m)); !slices.Equal(got, want) {
			t.Errorf("%s, error after the first event: peer given %v, want %v", p, got, want)
		}
	}
}

// TestNamedToolsReadsOnlyToolNames: a name member elsewhere (a Gemini
// argument, a text block, a tool's input) is not a tool, broken data gives
// what was read before the break, and a name no vendor allows is dropped.
func TestNamedToolsReadsOnlyToolNames(t *testing.T) {
	for _, c := range []struct {
		body string
		want []string
	}{
		{`data: {"candidates":[{"content":{"parts":[{"functionCall":{"name":"f","args":{"name":"not_a_tool"}}}]}}]}` + "\n\n", []string{"f"}},
		{"event: content_block_start\ndata: {\"type\":\"content_block_start\",\"content_block\":{\"type\":\"tool_use\",\"input\":{\"name\":\"x\"},\"name\":\"g\"}}\n\n", []string{"g"}},
		{`data: {"choices":[{"delta":{"tool_calls":[{"function":{"name":"h","arguments":"{\"name\":\"y\"}"}},{"function":{"name":"h"}}]}}]}` + "\n\n", []string{"h"}},
		{`data: {"item":{"type":"function_call","name":"i"},"name":"top"}` + "\n\n" + `data: {"item":{"name":"j"` + "\n\n", []string{"i", "j"}},
		{`data: {"function":{"name":"has space"}}` + "\n\n" + `data: {"function":{"name":""}}` + "\n\ndata: [DONE]\n\n", nil},
		{"data: {\"function\":\ndata: {\"name\":\"k\"}}\n\n", []string{"k"}}, // two data lines join with LF, which JSON allows
	} {
		got := namedTools(SplitEvents([]byte(c.body)))
		if !slices.Equal(got, c.want) {
			t.Errorf("%q: named %v, want %v", c.body, got, c.want)
		}
	}
}
