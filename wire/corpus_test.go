package wire

import (
	"bytes"
	"fmt"
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
		if strings.HasPrefix(rel, "derived"+string(filepath.Separator)) || bodyBeside(path) != "" {
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
	got, problems := scenarioProblems(s, p, body, fr)
	for _, pr := range problems {
		t.Errorf("%s: %s", path, pr)
	}
	return got
}

// scenarioProblems is checkScenario's comparison of a parsed scenario with
// what the decoder makes of body: the decoded events and what differs.
func scenarioProblems(s *scn.Scenario, p Protocol, body []byte, fr Framing) ([]sealgate.Event, []string) {
	var problems []string
	got, decErr := Decode(p, bytes.NewReader(body), Options{Framing: fr})
	wantErr := ""
	for _, n := range s.Notes {
		if m, ok := strings.CutPrefix(n, " decode error: "); ok {
			wantErr = m
		}
	}
	switch {
	case decErr == nil && wantErr != "":
		problems = append(problems, "decoded without error, the scenario expects: "+wantErr)
	case decErr != nil && decErr.Error() != wantErr:
		problems = append(problems, fmt.Sprintf("decode error %q, the scenario expects %q", decErr, wantErr))
	}
	if d := sameEvents(s.Events, got); d != "" {
		problems = append(problems, d)
	}
	cfg, err := s.Config()
	if err != nil {
		return got, append(problems, "configuration: "+err.Error())
	}
	r := check.Default.Run(cfg, got)
	closed := map[string]sealgate.Status{}
	for _, e := range got {
		if e.Kind == sealgate.Close {
			closed[e.Attempt] = e.Status
		}
	}
	compensated := map[string]bool{}
	for _, d := range r.Gate {
		if d.Kind == sealgate.Compensate {
			compensated[d.Key] = true
		}
	}
	for _, d := range r.Gate {
		// An early release (release=per-call) of an attempt that then ends
		// badly is undone by its compensate; any other is the decoder
		// having said complete where the protocol did not.
		if d.Kind == sealgate.Release && closed[d.Attempt] != sealgate.Complete && !compensated[d.Key] {
			problems = append(problems, fmt.Sprintf("%s, from an attempt closed %s", d, closed[d.Attempt]))
		}
	}
	return got, problems
}

// bodyBeside is the vendor body written by hand beside a corpus/wire
// scenario (same name, .sse or .jsonl), for cases no capture shows; "" when
// the scenario's body is a capture in the shared fixtures.
func bodyBeside(scenario string) string {
	base := strings.TrimSuffix(scenario, ".scn")
	for _, ext := range []string{".sse", ".jsonl"} {
		if _, err := os.Stat(base + ext); err == nil {
			return base + ext
		}
	}
	return ""
}

// handWritten lists the corpus/wire scenarios whose body is beside them.
func handWritten(t *testing.T) []string {
	t.Helper()
	var out []string
	err := filepath.WalkDir(vendorCorpus, func(path string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(path, ".scn") && bodyBeside(path) != "" {
			out = append(out, path)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// TestHandWrittenCorpus decodes every body written by hand beside its
// corpus/wire scenario (the multi-choice Chat streams, whose finishes and
// errors come in every order) and compares it with the scenario, as
// TestVendorCorpus does for captures; it needs no shared fixtures.
func TestHandWrittenCorpus(t *testing.T) {
	paths := handWritten(t)
	if len(paths) == 0 {
		t.Fatal("no hand-written bodies under corpus/wire")
	}
	for _, path := range paths {
		rel, _ := filepath.Rel(vendorCorpus, path)
		t.Run(rel, func(t *testing.T) {
			p, err := ParseProtocol(strings.Split(filepath.ToSlash(rel), "/")[0])
			if err != nil {
				t.Fatal(err)
			}
			body := bodyBeside(path)
			b, err := os.ReadFile(body)
			if err != nil {
				t.Fatal(err)
			}
			checkScenario(t, path, p, b, FramingFor(body))
			s, err := scn.ParseFile(path)
			if err != nil {
				t.Fatal(err)
			}
			want := "corpus/wire/" + strings.TrimSuffix(filepath.ToSlash(rel), ".scn") + filepath.Ext(body)
			if !strings.Contains(strings.Join(s.Notes, "\n"), want) {
				t.Errorf("%s: its comment must name its body (%s)", path, want)
			}
		})
	}
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

// TestHandWrittenCorpusCatchesWrongExpectations: each hand-written
// scenario, with one thing of its expectation changed (the close's status,
// the order of two ends, a decision left out, the decode error's text), no
// longer passes: the replay compares every part of it.
func TestHandWrittenCorpusCatchesWrongExpectations(t *testing.T) {
	for _, path := range handWritten(t) {
		rel, _ := filepath.Rel(vendorCorpus, path)
		p, err := ParseProtocol(strings.Split(filepath.ToSlash(rel), "/")[0])
		if err != nil {
			t.Fatal(err)
		}
		body := bodyBeside(path)
		b, err := os.ReadFile(body)
		if err != nil {
			t.Fatal(err)
		}
		fresh := func() *scn.Scenario {
			s, err := scn.ParseFile(path)
			if err != nil {
				t.Fatal(err)
			}
			return s
		}
		wantProblem := func(what string, s *scn.Scenario) {
			t.Helper()
			if _, problems := scenarioProblems(s, p, b, FramingFor(body)); len(problems) == 0 {
				t.Errorf("%s with %s: the replay passes", path, what)
			}
		}
		if _, problems := scenarioProblems(fresh(), p, b, FramingFor(body)); len(problems) != 0 {
			t.Fatalf("%s: %v", path, problems)
		}
		s := fresh()
		var ends []int
		for i, e := range s.Events {
			switch e.Kind {
			case sealgate.Close:
				s.Events[i].Status = e.Status%sealgate.Disconnected + 1
			case sealgate.End:
				ends = append(ends, i)
			}
		}
		wantProblem("another close status", s)
		if len(ends) >= 2 {
			s = fresh()
			s.Events[ends[0]], s.Events[ends[1]] = s.Events[ends[1]], s.Events[ends[0]]
			wantProblem("two ends swapped", s)
		}
		s = fresh()
		s.Notes = append(s.Notes, " decode error: not the decoder's")
		wantProblem("another decode error", s)
		s = fresh()
		cfg, err := s.Config()
		if err != nil {
			t.Fatal(err)
		}
		r := check.Default.Run(cfg, s.Events)
		if err := check.Compare("expected", s.Expect, "gate", r.Gate); err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		if err := check.Compare("expected", s.Expect[:len(s.Expect)-1], "gate", r.Gate); err == nil {
			t.Errorf("%s without its last decision: the gate still agrees", path)
		}
	}
}
