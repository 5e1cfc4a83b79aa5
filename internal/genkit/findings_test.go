package main

import (
	"strings"
	"testing"
)

// These tests state what genkit v1.4.0 does on cut bodies, as measured
// facts: each fails when genkit changes that behaviour, so that the notes
// in docs/research/peers/frameworks.md are revisited.

// TestGenkitOpenAIRunsACallWithNoFinishReason: over the compat_oai plugin,
// a body that ends cleanly after the call's last argument delta, with no
// finish_reason and no [DONE], still gets its tool run.
func TestGenkitOpenAIRunsACallWithNoFinishReason(t *testing.T) {
	srv := newTestServer(t)
	evs := fixtureEvents(t, "openai-chat/single-tool-call-strict.sse")
	cut := lastArgsEvent(evs) + 1
	for _, name := range []string{"genkit/openai-any", "genkit/openai-typed"} {
		rp := runOne(srv, idiomNamed(t, name), request{Run: 1, Peer: name, Events: evs[:cut], FollowUp: followUps["openai-chat"], Tools: []string{"GetWeatherArgs"}, TimeoutMs: 10000})
		if len(rp.Executions) != 1 || rp.Executions[0].Delivered != cut {
			t.Errorf("%s on the body cut after its arguments (event %d of %d): ran %+v, error %q", name, cut, len(evs), rp.Executions, rp.Error)
		}
	}
}

// TestGenkitAnthropicPanicsOnAStreamThatEnds: over the anthropic plugin, a
// body that ends cleanly before message_stop makes the plugin return no
// response and no error, and genkit's model telemetry dereferences it: a
// panic in the goroutine that called genkit.Generate, which ends a program
// that does not recover it.
func TestGenkitAnthropicPanicsOnAStreamThatEnds(t *testing.T) {
	srv := newTestServer(t)
	evs := fixtureEvents(t, "anthropic/text-then-tool-use.sse")
	for _, name := range []string{"genkit/anthropic-any", "genkit/anthropic-typed"} {
		rp := runOne(srv, idiomNamed(t, name), request{Run: 1, Peer: name, Events: evs[:len(evs)-1], FollowUp: followUps["anthropic"], Tools: []string{"get_weather"}, TimeoutMs: 10000})
		if !strings.Contains(rp.Crash, "nil pointer dereference") || !strings.Contains(rp.Crash, "github.com/firebase/genkit/go/ai.") {
			t.Errorf("%s on the body without message_stop: crash %q, error %q, ran %+v", name, rp.Crash, rp.Error, rp.Executions)
		}
		if len(rp.Executions) != 0 {
			t.Errorf("%s: ran %+v before it panicked", name, rp.Executions)
		}
	}
}

// lastArgsEvent is the index of the last event with argument bytes.
func lastArgsEvent(evs [][]byte) int {
	last := -1
	for i, ev := range evs {
		if strings.Contains(string(ev), `"arguments":"`) && !strings.Contains(string(ev), `"arguments":""`) {
			last = i
		}
	}
	return last
}

// TestGenkitHalfArguments pins genkit's row of the classic cuts in
// docs/research/peers/frameworks.md: the call's arguments cut at
// `{"city":"Edinburgh` (OpenAI) or mid-input (Anthropic), then a `length`
// or `max_tokens` stop, a plain end, or a broken connection; and a
// complete call whose terminal event is dropped.
func TestGenkitHalfArguments(t *testing.T) {
	srv := newTestServer(t)
	chat := fixtureEvents(t, "openai-chat/single-tool-call-strict.sse")
	half := 0 // the event after which the arguments read {"city":"Edinburgh
	for i, ev := range chat {
		if strings.Contains(string(ev), `"arguments":"inburgh"`) {
			half = i + 1
		}
	}
	if half == 0 {
		t.Fatal("the capture has no \"inburgh\" fragment")
	}
	lengthStop := []byte(strings.Replace(string(chat[len(chat)-3]), `"finish_reason":"tool_calls"`, `"finish_reason":"length"`, 1))
	msgs := fixtureEvents(t, "anthropic/text-then-tool-use.sse")
	msgHalf := 0 // after {"locati and on": "P
	for i, ev := range msgs {
		if strings.Contains(string(ev), `on\": \"P`) {
			msgHalf = i + 1
		}
	}
	maxTokens := fixtureEvents(t, "anthropic/max-tokens-mid-tool-use-fine-grained.sse")
	type outcome struct{ ran, crashed bool }
	cases := []struct {
		name, idiom, tool string
		events            [][]byte
		reset             bool
		want              outcome
	}{
		{"openai length cut", "genkit/openai-any", "GetWeatherArgs", append(append([][]byte{}, chat[:half]...), lengthStop, chat[len(chat)-1]), false, outcome{}},
		{"openai body ends", "genkit/openai-any", "GetWeatherArgs", chat[:half], false, outcome{}},
		{"openai connection breaks", "genkit/openai-any", "GetWeatherArgs", chat[:half], true, outcome{}},
		{"openai [DONE] dropped", "genkit/openai-any", "GetWeatherArgs", chat[:len(chat)-1], false, outcome{ran: true}},
		{"anthropic max_tokens cut", "genkit/anthropic-any", "make_file", maxTokens, false, outcome{}},
		{"anthropic body ends", "genkit/anthropic-any", "get_weather", msgs[:msgHalf], false, outcome{crashed: true}},
		{"anthropic connection breaks", "genkit/anthropic-any", "get_weather", msgs[:msgHalf], true, outcome{}},
		{"anthropic message_stop dropped", "genkit/anthropic-any", "get_weather", msgs[:len(msgs)-1], false, outcome{crashed: true}},
	}
	for _, c := range cases {
		rp := runOne(srv, idiomNamed(t, c.idiom), request{Run: 1, Peer: c.idiom, Events: c.events, Reset: c.reset,
			FollowUp: followUps[map[bool]string{true: "anthropic", false: "openai-chat"}[strings.HasPrefix(c.name, "anthropic")]],
			Tools:    []string{c.tool}, TimeoutMs: 10000})
		got := outcome{ran: len(rp.Executions) > 0, crashed: rp.Crash != ""}
		if got != c.want || rp.Hung {
			t.Errorf("%s: ran %+v, crash %q, error %q, hung %v; want %+v", c.name, rp.Executions, rp.Crash, rp.Error, rp.Hung, c.want)
		}
		t.Logf("%s: ran %d, crash %v, error %q", c.name, len(rp.Executions), rp.Crash != "", rp.Error)
	}
}
