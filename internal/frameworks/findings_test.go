package main

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/sealgate/sealgate"
	"github.com/sealgate/sealgate/internal/peers"
	"github.com/sealgate/sealgate/internal/trial"
)

// classic is the half argument the issue names, cut the three ways a
// stream stops: a length cut, a body that simply ends, a broken connection.
func classic() []peers.Input {
	full := oneCall(sealgate.Complete, `{"city":`, `"Edinburgh`, `"}`)
	return []peers.Input{
		{Source: "generated", Name: "length", Events: oneCall(sealgate.Truncated, `{"city":`, `"Edinburgh`)},
		{Source: "generated", Name: "ends", Events: full, Fault: peers.Fault{Kind: peers.CutAfter, At: 4}},
		{Source: "generated", Name: "reset", Events: full, Fault: peers.Fault{Kind: peers.ResetInside, At: 5}},
		{Source: "generated", Name: "no terminal", Events: full, Fault: peers.Fault{Kind: peers.DropTerminal}},
	}
}

// findings runs the corpus (with no fault, and with the terminal event
// dropped) and the classic cuts through every framework idiom and the
// controls, and returns the hunt.
func findings(t *testing.T) *peers.Hunt {
	t.Helper()
	corpus, err := trial.LoadCorpus(trial.Embedded)
	if err != nil {
		t.Fatal(err)
	}
	h := peers.NewHunt(runner, withControls(all()))
	for _, in := range classic() {
		h.Try(in)
	}
	for _, s := range corpus {
		for _, f := range []peers.Fault{{}, {Kind: peers.DropTerminal}} {
			h.Try(peers.Input{Source: "corpus", Name: s.Name, Events: s.Events, Fault: f})
		}
	}
	return h
}

// measured is what each idiom showed over findings' inputs: the classes of
// its violations. The eino and langchaingo OpenAI agents run what the
// stream held when it stopped, on every cut; the typed InferTool is saved
// from the half argument only by its JSON decode, and fails its user on a
// complete call with no arguments; langchaingo's Anthropic client refuses
// a cut stream but runs a message's tool calls without its stop_reason.
var measured = map[string][]string{
	"eino/react-raw":                 {"I1-before-close", "I1-before-end", "I7", "SEAL-invalid", "SEAL-not-object"},
	"eino/react-infer":               {"I1-before-close", "I1-before-end", "I2", "I2-reserialized", "I7", "SEAL-invalid", "SEAL-not-object", "SEAL-orphan"},
	"eino/adk-chatmodel":             {"I1-before-close", "I1-before-end", "I7", "SEAL-invalid", "SEAL-not-object"},
	"langchaingo/openai-functions":   {"I1-before-close", "I1-before-end", "I2", "I7", "SEAL-invalid", "SEAL-not-object"},
	"langchaingo/anthropic-generate": {"I1-before-close", "I1-before-end", "I2", "I2-reserialized", "I7", "SEAL-invalid", "SEAL-not-object", "SUBJECT-error"},
}

// TestFindings: each framework idiom shows the violations measured for it
// and the project's gate, over the same bodies, shows none.
func TestFindings(t *testing.T) {
	h := findings(t)
	for _, f := range h.Failures {
		t.Errorf("run failed: %v", f)
	}
	got := map[string][]string{}
	for _, f := range h.Sorted() {
		if f.Peer.Control && measured[f.Peer.Name] == nil {
			t.Errorf("control %s broke %s: %v (%s %v)", f.Peer.Name, f.ID, f.Err, f.Input.Name, f.Input.Fault)
			continue
		}
		got[f.Peer.Name] = append(got[f.Peer.Name], f.ID)
	}
	for _, p := range all() {
		want := measured[p.Name]
		if !slices.Equal(got[p.Name], want) {
			t.Errorf("%s: violations %v, measured %v", p.Name, got[p.Name], want)
		}
	}
	t.Logf("%d runs", h.Runs)
}

// TestHalfArgumentRuns pins the classic per idiom: which of the
// cuts of {"city":"Edinburgh get a tool run with the cut bytes.
func TestHalfArgumentRuns(t *testing.T) {
	runsCut := map[string][]string{
		"eino/react-raw":                 {"length", "ends", "no terminal"},
		"eino/react-infer":               {"no terminal"},
		"eino/adk-chatmodel":             {"length", "ends", "no terminal"},
		"langchaingo/openai-functions":   {"length", "ends", "no terminal"},
		"langchaingo/anthropic-generate": nil,
	}
	for _, p := range all() {
		var cut []string
		for _, in := range classic() {
			b, ok := peers.Build(p.Protocol, in.Events, in.Fault)
			if !ok {
				t.Fatalf("%s cannot carry %s", p.Protocol, in.Name)
			}
			out, err := runner.Run(p, b)
			if err != nil {
				t.Fatal(err)
			}
			if peers.Judge(out) != nil && len(out.Releases) > 0 {
				cut = append(cut, in.Name)
			}
		}
		if !slices.Equal(cut, runsCut[p.Name]) {
			t.Errorf("%s runs a cut call on %v, measured %v", p.Name, cut, runsCut[p.Name])
		}
	}
}

// TestStoredBodies: every reduced body stored for a framework idiom under
// corpus/peers still shows its violation.
func TestStoredBodies(t *testing.T) {
	files, _ := filepath.Glob(filepath.Join("..", "..", "corpus", "peers", "*.sse"))
	n := 0
	for _, file := range files {
		base := filepath.Base(file)
		if !strings.HasPrefix(base, "eino-") && !strings.HasPrefix(base, "langchaingo-") {
			continue
		}
		n++
		src, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		hdr, body := peers.ParseStored(src)
		var p *peers.Peer
		for _, q := range all() {
			if q.Name == hdr.Peer {
				p = q
			}
		}
		if p == nil {
			t.Errorf("%s: no framework peer %q", base, hdr.Peer)
			continue
		}
		b := peers.Body{Protocol: p.Protocol, Events: peers.SplitEvents(body), Reset: hdr.Reset}
		out, err := runner.Run(p, b)
		if err != nil {
			t.Fatal(err)
		}
		if v := peers.Judge(out); v == nil || peers.Class(v) != hdr.Violation {
			t.Errorf("%s: stored %s, replayed %v", base, hdr.Violation, v)
		}
	}
	if n == 0 {
		t.Fatal("no stored framework bodies under corpus/peers")
	}
}
