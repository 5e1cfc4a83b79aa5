package wire

import (
	"strings"
	"testing"

	"github.com/sealgate/sealgate"
)

// A later success signal must never overwrite an earlier truncation: a
// second, different finish_reason or stop_reason is a decode error, and
// the attempt closes failed (found in review; real streams do repeat the
// same reason, which stays allowed).
func TestConflictingFinishIsAnError(t *testing.T) {
	cases := []struct {
		name string
		p    Protocol
		body string
	}{
		{"chat length then stop", OpenAIChat, `data: {"id":"c1","choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"call_a","type":"function","function":{"name":"rm","arguments":"{\"path\":\"/\"}"}}]},"finish_reason":null}]}

data: {"id":"c1","choices":[{"index":0,"delta":{},"finish_reason":"length"}]}

data: {"id":"c1","choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}

data: [DONE]

`},
		{"anthropic max_tokens then tool_use", Anthropic, `event: message_start
data: {"type":"message_start","message":{"id":"m1","content":[]}}

data: {"type":"content_block_start","index":0,"content_block":{"type":"tool_use","id":"t1","name":"rm","input":{}}}

data: {"type":"content_block_delta","index":0,"delta":{"type":"input_json_delta","partial_json":"{\"p\":1}"}}

data: {"type":"content_block_stop","index":0}

data: {"type":"message_delta","delta":{"stop_reason":"max_tokens"}}

data: {"type":"message_delta","delta":{"stop_reason":"tool_use"}}

data: {"type":"message_stop"}

`},
	}
	for _, c := range cases {
		evs, err := Decode(c.p, strings.NewReader(c.body), Options{})
		if err == nil {
			t.Errorf("%s: no error", c.name)
		}
		last := evs[len(evs)-1]
		if last.Kind != sealgate.Close || last.Status != sealgate.Failed {
			t.Errorf("%s: last event %v, want close failed", c.name, last)
		}
	}
}

// Gemini's only terminal event is the end of the body: an attempt closes
// complete only there (or when another response starts), once every
// candidate has finished. A usage chunk after the finish is part of the
// same response, and a candidate that appears later and never finishes
// keeps the turn unfinished (found in review).
func TestGeminiClosesAtTheEndOfTheBody(t *testing.T) {
	call := `data: {"candidates":[{"content":{"parts":[{"functionCall":{"name":"rm","args":{"p":"/"}}}],"role":"model"},"finishReason":"STOP","index":0}],"responseId":"r1"}` + "\n\n"
	cases := []struct {
		name string
		body string
		want sealgate.Status
	}{
		{"usage after the finish", call + `data: {"usageMetadata":{"promptTokenCount":5},"responseId":"r1"}` + "\n\n", sealgate.Complete},
		{"a later candidate never finishes", call + `data: {"candidates":[{"content":{"parts":[{"text":"more"}],"role":"model"},"index":1}],"responseId":"r1"}` + "\n\n", sealgate.Disconnected},
	}
	for _, c := range cases {
		evs, err := Decode(Gemini, strings.NewReader(c.body), Options{})
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		closes := 0
		for _, e := range evs {
			switch e.Kind {
			case sealgate.Close:
				closes++
				if e.Status != c.want {
					t.Errorf("%s: close %s, want %s", c.name, e.Status, c.want)
				}
			case sealgate.Open:
				if e.Attempt != "r1" || closes > 0 {
					t.Errorf("%s: unexpected %v", c.name, e)
				}
			}
		}
		if closes != 1 {
			t.Errorf("%s: %d closes, want 1: %v", c.name, closes, evs)
		}
	}
}
