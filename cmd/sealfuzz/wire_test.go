package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestReplayWire: -wire prints a scenario (configuration comment, events,
// ----, decisions) that parses and replays; -print prints the decisions
// alone; -config takes another file's configuration.
func TestReplayWire(t *testing.T) {
	dir := t.TempDir()
	body := filepath.Join(dir, "body.sse")
	stream := "event: message_start\ndata: {\"type\":\"message_start\",\"message\":{\"id\":\"m1\",\"content\":[]}}\n\n" +
		"event: content_block_start\ndata: {\"type\":\"content_block_start\",\"index\":0,\"content_block\":{\"type\":\"tool_use\",\"id\":\"t1\",\"name\":\"save\",\"input\":{}}}\n\n" +
		"event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"input_json_delta\",\"partial_json\":\"{\\\"path\\\":\\\"a\\\"}\"}}\n\n" +
		"event: content_block_stop\ndata: {\"type\":\"content_block_stop\",\"index\":0}\n\n" +
		"event: message_delta\ndata: {\"type\":\"message_delta\",\"delta\":{\"stop_reason\":\"tool_use\"}}\n\n" +
		"event: message_stop\ndata: {\"type\":\"message_stop\"}\n\n"
	if err := os.WriteFile(body, []byte(stream), 0o644); err != nil {
		t.Fatal(err)
	}
	var out, errb bytes.Buffer
	if code := run([]string{"replay", "-wire", "anthropic", body}, &out, &errb); code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	for _, want := range []string{`schema {"type":"object"}, no rule`, "tool save {\"type\":\"object\"}\n",
		"close m1 status=complete\n----\n", `@5 release m1 item=m1:0 call=t1 tool=save key=`} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("output lacks %q:\n%s", want, out.String())
		}
	}
	scnFile := filepath.Join(dir, "out.scn")
	os.WriteFile(scnFile, out.Bytes(), 0o644)
	out.Reset()
	if code := run([]string{"replay", scnFile}, &out, &errb); code != 0 {
		t.Fatalf("the printed scenario does not replay: %s", out.String())
	}
	cfg := filepath.Join(dir, "cfg.scn")
	os.WriteFile(cfg, []byte("tool save {\"type\":\"object\",\"required\":[\"content\"]}\n----\n"), 0o644)
	out.Reset()
	if code := run([]string{"replay", "-wire", "anthropic", "-config", cfg, "-print", body}, &out, &errb); code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	if got := out.String(); got != "@5 reject m1 item=m1:0 reason=schema\n" {
		t.Errorf("-print -config: got %q", got)
	}
	if code := run([]string{"replay", "-wire", "nope", body}, &out, &errb); code != 2 {
		t.Errorf("unknown protocol: exit %d", code)
	}
}
