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
