package main

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
)

// fixtureEvents reads a captured vendor SSE body in place and cuts it into
// its events, each with its blank-line end: $SEALGATE_VENDOR_FIXTURES, or
// ../shared/vendor-fixtures beside the repository (this module sits two
// folders below its root). Without it the test is skipped, saying so.
func fixtureEvents(t *testing.T, rel string) [][]byte {
	t.Helper()
	dir := os.Getenv("SEALGATE_VENDOR_FIXTURES")
	if dir == "" {
		dir = filepath.Join("..", "..", "..", "shared", "vendor-fixtures")
	}
	b, err := os.ReadFile(filepath.Join(dir, rel))
	if os.IsNotExist(err) {
		if os.Getenv("CI") == "true" {
			t.Fatalf("vendor fixture %s not found (CI=true): this test needs ../shared/vendor-fixtures beside the repository (or $SEALGATE_VENDOR_FIXTURES)", rel)
		}
		t.Skipf("vendor fixture %s not found: this test needs ../shared/vendor-fixtures beside the repository (or $SEALGATE_VENDOR_FIXTURES)", rel)
	}
	if err != nil {
		t.Fatal(err)
	}
	return splitEvents(b)
}

// splitEvents cuts an SSE body after every blank line.
func splitEvents(b []byte) [][]byte {
	b = bytes.ReplaceAll(b, []byte("\r\n"), []byte("\n"))
	var out [][]byte
	for len(b) > 0 {
		i := bytes.Index(b, []byte("\n\n"))
		if i < 0 {
			out = append(out, append(bytes.TrimRight(b, "\n"), '\n', '\n'))
			break
		}
		out = append(out, b[:i+2])
		b = b[i+2:]
		for len(b) > 0 && b[0] == '\n' {
			b = b[1:]
		}
	}
	return out
}

// Plain final answers for genkit's turn after its tools, as a real server
// ends a tool loop.
var followUps = map[string][]byte{
	"openai-chat": []byte(`data: {"id":"chatcmpl-followup","object":"chat.completion.chunk","created":1,"model":"gpt-4o","choices":[{"index":0,"delta":{"role":"assistant","content":"Done."},"finish_reason":null}]}` + "\n\n" +
		`data: {"id":"chatcmpl-followup","object":"chat.completion.chunk","created":1,"model":"gpt-4o","choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}` + "\n\n" +
		"data: [DONE]\n\n"),
	"anthropic": []byte("event: message_start\n" + `data: {"type":"message_start","message":{"id":"msg_followup","type":"message","role":"assistant","model":"claude-peer","content":[],"stop_reason":null,"stop_sequence":null,"usage":{"input_tokens":1,"output_tokens":1}}}` + "\n\n" +
		"event: content_block_start\n" + `data: {"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}` + "\n\n" +
		"event: content_block_delta\n" + `data: {"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"Done."}}` + "\n\n" +
		"event: content_block_stop\n" + `data: {"type":"content_block_stop","index":0}` + "\n\n" +
		"event: message_delta\n" + `data: {"type":"message_delta","delta":{"stop_reason":"end_turn","stop_sequence":null},"usage":{"output_tokens":2}}` + "\n\n" +
		"event: message_stop\n" + `data: {"type":"message_stop"}` + "\n\n"),
}

// idiomNamed finds one of this process's idioms.
func idiomNamed(t *testing.T, name string) *idiom {
	t.Helper()
	for _, id := range all() {
		if id.Name == name {
			return id
		}
	}
	t.Fatalf("no idiom %s", name)
	return nil
}

// newTestServer is a loopback server for one test.
func newTestServer(t *testing.T) *server {
	t.Helper()
	srv, err := newServer()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(srv.close)
	return srv
}
