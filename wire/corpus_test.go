package wire

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sealgate/sealgate"
	"github.com/sealgate/sealgate/check"
	"github.com/sealgate/sealgate/scn"
)

const vendorCorpus = "../corpus/wire"

// TestVendorCorpus decodes every capture in place and compares its events
// with those of its corpus/wire scenario, written by hand from the
// protocol rules. A capture the decoder refuses must say so in the
// scenario's "# decode error:" note, word for word.
func TestVendorCorpus(t *testing.T) {
	dir, ok := fixturesDir()
	if !ok {
		t.Skipf("vendor fixtures not found at %s (set SEALGATE_VENDOR_FIXTURES): captures are read in place, never copied", dir)
	}
	n := 0
	err := filepath.WalkDir(vendorCorpus, func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".scn") {
			return err
		}
		rel, _ := filepath.Rel(vendorCorpus, path)
		if strings.HasPrefix(rel, "derived"+string(filepath.Separator)) {
			return nil
		}
		n++
		p, err := ParseProtocol(strings.Split(filepath.ToSlash(rel), "/")[0])
		if err != nil {
			t.Errorf("%s: %v", path, err)
			return nil
		}
		base := filepath.Join(dir, strings.TrimSuffix(rel, ".scn"))
		capture := ""
		for _, ext := range []string{".sse", ".jsonl"} {
			if _, err := os.Stat(base + ext); err == nil {
				capture = base + ext
			}
		}
		if capture == "" {
			t.Errorf("%s: no capture %s.sse or .jsonl", path, base)
			return nil
		}
		t.Run(rel, func(t *testing.T) {
			body, err := os.ReadFile(capture)
			if err != nil {
				t.Fatal(err)
			}
			checkScenario(t, path, p, body, FramingFor(capture))
		})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	entries, _ := filepath.Glob(filepath.Join(dir, "*", "*.*"))
	compat, _ := filepath.Glob(filepath.Join(dir, "*", "compat", "*.*"))
	if want := len(entries) + len(compat); n != want {
		t.Errorf("%d vendor scenarios for %d captures: every capture needs one", n, want)
	}
}

// checkScenario decodes body and compares with the scenario's events and
// decode-error note; the scenario's decisions are TestCorpus's business,
// but a release from an attempt that did not close complete fails here too.
func checkScenario(t *testing.T, path string, p Protocol, body []byte, fr Framing) []sealgate.Event {
	t.Helper()
	s, err := scn.ParseFile(path)
	if err != nil {
		t.Fatal(err)
	}
	got, decErr := Decode(p, bytes.NewReader(body), Options{Framing: fr})
	wantErr := ""
	for _, n := range s.Notes {
		if m, ok := strings.CutPrefix(n, " decode error: "); ok {
			wantErr = m
		}
	}
	switch {
	case decErr == nil && wantErr != "":
		t.Errorf("%s: decoded without error, the scenario expects: %s", path, wantErr)
	case decErr != nil && decErr.Error() != wantErr:
		t.Errorf("%s: decode error %q, the scenario expects %q", path, decErr, wantErr)
	}
	if d := sameEvents(s.Events, got); d != "" {
		t.Errorf("%s: %s", path, d)
	}
	cfg, err := s.Config()
	if err != nil {
		t.Fatal(err)
	}
	r := check.Default.Run(cfg, got)
	closed := map[string]sealgate.Status{}
	for _, e := range got {
		if e.Kind == sealgate.Close {
			closed[e.Attempt] = e.Status
		}
	}
	for _, d := range r.Gate {
		if d.Kind == sealgate.Release && closed[d.Attempt] != sealgate.Complete {
			t.Errorf("%s: %s, from an attempt closed %s", path, d, closed[d.Attempt])
		}
	}
	return got
}

// sseBlocks cuts an SSE capture into its events (blank-line separated).
func sseBlocks(t *testing.T, path string) []string {
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, blk := range strings.Split(strings.ReplaceAll(string(b), "\r\n", "\n"), "\n\n") {
		if strings.TrimSpace(blk) != "" {
			out = append(out, blk+"\n\n")
		}
	}
	return out
}

// jsonlBlocks cuts a JSONL capture into its events, one a line.
func jsonlBlocks(t *testing.T, path string) []string {
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for line := range strings.Lines(string(b)) {
		if strings.TrimSpace(line) != "" {
			out = append(out, strings.TrimRight(line, "\n")+"\n")
		}
	}
	return out
}

// vertexFinish is the capture's own finish chunk with another
// finishReason, for the Vertex truncations.
func vertexFinish(reason, model, created, id string) string {
	return `{"candidates":[{"content":{"role":"model","parts":[{"text":""}]},"finishReason":"` + reason +
		`"}],"usageMetadata":{"trafficType":"ON_DEMAND"},"modelVersion":"` + model + `","createTime":"` + created + `","responseId":"` + id + `"}` + "\n"
}

// derived are the cases with no real capture, built at test time from a
// real one (never stored): its first events, then what the case needs.
var derived = []struct {
	scn, capture string
	proto        Protocol
	keep         int // events of the capture kept
	tail         string
}{
	{"responses-incomplete-mid-call", "openai-responses/function-call-no-sequence-number-2025-03.sse", OpenAIResponses, 6,
		"event: response.incomplete\ndata: {\"type\":\"response.incomplete\",\"response\":{\"id\":\"resp_67e554a155508191900ee113293c4c830794405d35281ae2\",\"status\":\"incomplete\",\"incomplete_details\":{\"reason\":\"max_output_tokens\"}}}\n\n"},
	{"chat-length-mid-arguments", "openai-chat/single-tool-call-strict.sse", OpenAIChat, 6,
		"data: {\"id\":\"chatcmpl-ABfw8AOXnoa2kzy11vVTSjuQhHCQr\",\"object\":\"chat.completion.chunk\",\"choices\":[{\"index\":0,\"delta\":{},\"logprobs\":null,\"finish_reason\":\"length\"}]}\n\ndata: [DONE]\n\n"},
	{"anthropic-error-mid-tool-use", "anthropic/text-then-tool-use.sse", Anthropic, 10,
		"event: error\ndata: {\"type\":\"error\",\"error\":{\"type\":\"overloaded_error\",\"message\":\"Overloaded\"}}\n\n"},
	{"anthropic-eof-after-last-delta", "anthropic/text-then-tool-use.sse", Anthropic, 12, ""},
	{"vertex-cut-mid-string", "gemini/vertex-partial-args-two-sequential-calls.jsonl", Gemini, 2, ""},
	{"vertex-terminal-missing-then-stop", "gemini/vertex-partial-args-two-sequential-calls.jsonl", Gemini, 3,
		vertexFinish("STOP", "gemini-3.1-pro-preview", "2026-04-02T17:03:50.399550Z", "dqHOab6xGLzWodAPkPuViA4")},
	{"vertex-array-path-max-tokens", "gemini/vertex-partial-args-no-terminal-functioncall.jsonl", Gemini, 8,
		vertexFinish("MAX_TOKENS", "gemini-3-flash-preview", "2026-05-19T14:59:42.780296Z", "3noMaojQL_2s6tkPiO26qQ4")},
	{"vertex-array-index-gap", "gemini/vertex-partial-args-no-terminal-functioncall.jsonl", Gemini, 8,
		`{"candidates":[{"content":{"role":"model","parts":[{"functionCall":{"partialArgs":[{"jsonPath":"$.operations[2].action","stringValue":"add"}],"willContinue":true}}]}}],"responseId":"3noMaojQL_2s6tkPiO26qQ4"}` + "\n"},
}

// TestDerivedCorpus: the derived truncations decode to their scenario's
// events and never release anything.
func TestDerivedCorpus(t *testing.T) {
	dir, ok := fixturesDir()
	if !ok {
		t.Skipf("vendor fixtures not found at %s (set SEALGATE_VENDOR_FIXTURES): derived cases are built from them", dir)
	}
	for _, c := range derived {
		t.Run(c.scn, func(t *testing.T) {
			fr := FramingFor(c.capture)
			var blocks []string
			if fr == JSONL {
				blocks = jsonlBlocks(t, filepath.Join(dir, c.capture))
			} else {
				blocks = sseBlocks(t, filepath.Join(dir, c.capture))
			}
			if len(blocks) < c.keep {
				t.Fatalf("%s has %d events", c.capture, len(blocks))
			}
			body := strings.Join(blocks[:c.keep], "") + c.tail
			path := filepath.Join(vendorCorpus, "derived", c.scn+".scn")
			evs := checkScenario(t, path, c.proto, []byte(body), fr)
			s, _ := scn.ParseFile(path)
			cfg, _ := s.Config()
			for _, d := range check.Default.Run(cfg, evs).Gate {
				if d.Kind == sealgate.Release {
					t.Errorf("derived truncation released: %s", d)
				}
			}
			if !strings.Contains(strings.Join(s.Notes, "\n"), c.capture) {
				t.Errorf("%s: its comment must name the capture it is derived from (%s)", path, c.capture)
			}
		})
	}
}
