package wire

import (
	"strings"
	"testing"

	"sealgate"
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
