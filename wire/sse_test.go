package wire

import (
	"io"
	"strings"
	"testing"

	"github.com/sealgate/sealgate"
)

func frames(t *testing.T, body string, jsonl bool, maxLine int) ([]frame, error) {
	t.Helper()
	fr := newFrameReader(strings.NewReader(body), jsonl, maxLine, 1<<20)
	var out []frame
	for {
		f, err := fr.next()
		if err == io.EOF {
			return out, nil
		}
		if err != nil {
			return out, err
		}
		out = append(out, f)
	}
}

func TestSSEReader(t *testing.T) {
	cases := []struct {
		body string
		want []string // event|data|terminated
	}{
		{"data: a\n\n", []string{"|a|true"}},
		{"data: a\r\n\r\ndata: b\r\r", []string{"|a|true", "|b|true"}},
		{": keep-alive\n: x\nevent: e\ndata: 1\ndata:2\ndata:  3\n\n", []string{"e|1\n2\n 3|true"}},
		{"\uFEFFdata: a\n\n", []string{"|a|true"}},
		{"data: last", []string{"|last|false"}},
		{"data: last\n", []string{"|last|false"}},
		{"event: x\n\ndata: y\n\n", []string{"|y|true"}},
		{"id: 4\nretry: 10\ndata\n\n", []string{"||true"}},
	}
	for _, c := range cases {
		fs, err := frames(t, c.body, false, 1<<10)
		if err != nil {
			t.Fatalf("%q: %v", c.body, err)
		}
		var got []string
		for _, f := range fs {
			got = append(got, f.event+"|"+string(f.data)+"|"+map[bool]string{true: "true", false: "false"}[f.terminated])
		}
		if strings.Join(got, ";") != strings.Join(c.want, ";") {
			t.Errorf("%q: got %q, want %q", c.body, got, c.want)
		}
	}
	if _, err := frames(t, "data: "+strings.Repeat("x", 100)+"\n\n", false, 50); err == nil || !strings.Contains(err.Error(), "line 1 (byte 0): line longer than 50") {
		t.Errorf("long line: %v", err)
	}
	if _, err := frames(t, "data: a\n\n{\"x\":1}\n", false, 50); err == nil || !strings.Contains(err.Error(), "line 3 (byte 9): not an SSE field") {
		t.Errorf("junk line: %v", err)
	}
}

func decodeString(t *testing.T, p Protocol, body string) ([]sealgate.Event, error) {
	t.Helper()
	return Decode(p, strings.NewReader(body), Options{})
}

func TestDecodeRules(t *testing.T) {
	call := `data: {"id":"c1","choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"k","type":"function","function":{"name":"f","arguments":"{}"}}]}}]}` + "\n\n"
	cases := []struct {
		name string
		p    Protocol
		body string
		want string // events, one per line
		err  string
	}{
		{"chat eof after tool_calls is disconnected", OpenAIChat,
			call + `data: {"id":"c1","choices":[{"index":0,"delta":{},"finish_reason":"tool_calls"}]}` + "\n\n",
			"open c1 turn=t1|begin c1 item=0:0 call=k tool=f|delta c1 item=0:0 \"{}\"|end c1 item=0:0|close c1 status=disconnected", ""},
		{"chat negative index", OpenAIChat,
			`data: {"id":"c1","choices":[{"index":0,"delta":{"tool_calls":[{"index":-1,"id":"k","function":{"name":"f"}}]}}]}` + "\n\n",
			"open c1 turn=t1|close c1 status=failed", "not a non-negative integer"},
		{"chat missing index", OpenAIChat,
			`data: {"id":"c1","choices":[{"index":0,"delta":{"tool_calls":[{"id":"k","function":{"name":"f"}}]}}]}` + "\n\n",
			"open c1 turn=t1|close c1 status=failed", "index missing"},
		{"chat id conflict is begun again", OpenAIChat,
			call + `data: {"id":"c1","choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"other","function":{"arguments":""}}]}}]}` + "\n\ndata: [DONE]\n\n",
			"open c1 turn=t1|begin c1 item=0:0 call=k tool=f|delta c1 item=0:0 \"{}\"|begin c1 item=0:0 call=other tool=f|delta c1 item=0:0 \"\"|close c1 status=disconnected", ""},
		{"chat duplicate member", OpenAIChat, `data: {"id":"c1","id":"c2"}` + "\n\n", "", "member \"id\" given twice"},
		{"chat cut json at eof", OpenAIChat, call + `data: {"id":"c1","choi`, "open c1 turn=t1|begin c1 item=0:0 call=k tool=f|delta c1 item=0:0 \"{}\"|close c1 status=disconnected", ""},
		{"responses custom tool is not a begin", OpenAIResponses,
			`data: {"type":"response.created","response":{"id":"r"}}` + "\n\n" + `data: {"type":"response.output_item.added","output_index":0,"item":{"type":"custom_tool_call","id":"ct","call_id":"c","name":"g"}}` + "\n\n" + `data: {"type":"response.completed","response":{"id":"r"}}` + "\n\n",
			"open r turn=t1|close r status=complete", ""},
		{"responses sequence gap", OpenAIResponses,
			`data: {"type":"response.created","sequence_number":0,"response":{"id":"r"}}` + "\n\n" + `data: {"type":"response.in_progress","sequence_number":2,"response":{"id":"r"}}` + "\n\n",
			"open r turn=t1|close r status=failed", "sequence_number 2 after 0"},
		{"anthropic end_turn with tool_use fails", Anthropic,
			`data: {"type":"message_start","message":{"id":"m","content":[]}}` + "\n\n" + `data: {"type":"content_block_start","index":0,"content_block":{"type":"tool_use","id":"t","name":"f","input":{}}}` + "\n\n" + `data: {"type":"content_block_delta","index":0,"delta":{"type":"input_json_delta","partial_json":"{}"}}` + "\n\n" + `data: {"type":"content_block_stop","index":0}` + "\n\n" + `data: {"type":"message_delta","delta":{"stop_reason":"end_turn"}}` + "\n\n" + `data: {"type":"message_stop"}` + "\n\n",
			"open m turn=t1|begin m item=m:0 call=t tool=f|delta m item=m:0 \"{}\"|end m item=m:0|close m status=failed", ""},
		{"anthropic lone surrogate", Anthropic,
			`data: {"type":"message_start","message":{"id":"m","content":[]}}` + "\n\n" + `data: {"type":"content_block_start","index":0,"content_block":{"type":"tool_use","id":"t","name":"f","input":{}}}` + "\n\n" + `data: {"type":"content_block_delta","index":0,"delta":{"type":"input_json_delta","partial_json":"\ud800"}}` + "\n\n",
			"open m turn=t1|begin m item=m:0 call=t tool=f|close m status=failed", "lone surrogate"},
		{"gemini max tokens", Gemini,
			`data: {"candidates":[{"content":{"parts":[{"functionCall":{"name":"f","args":{"a":1}}}]},"finishReason":"MAX_TOKENS"}],"responseId":"g"}` + "\n\n",
			"open g turn=t1|begin g item=0:0 call=pos:0:0 tool=f|delta g item=0:0 \"{\\\"a\\\":1}\"|end g item=0:0|close g status=truncated", ""},
		{"tool name not a bare token", Gemini,
			`data: {"candidates":[{"content":{"parts":[{"functionCall":{"name":"a b"}}]}}],"responseId":"g"}` + "\n\n",
			"open g turn=t1|close g status=failed", "bare token"},
	}
	for _, c := range cases {
		evs, err := decodeString(t, c.p, c.body)
		var got []string
		for _, e := range evs {
			got = append(got, e.String())
		}
		if g := strings.Join(got, "|"); g != c.want {
			t.Errorf("%s: events\n got %s\nwant %s", c.name, g, c.want)
		}
		switch {
		case c.err == "" && err != nil:
			t.Errorf("%s: unexpected error %v", c.name, err)
		case c.err != "" && (err == nil || !strings.Contains(err.Error(), c.err)):
			t.Errorf("%s: error %v, want one containing %q", c.name, err, c.err)
		}
	}
}
