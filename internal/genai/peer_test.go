package main

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/sealgate/sealgate"
	"github.com/sealgate/sealgate/internal/peers"
	"github.com/sealgate/sealgate/scn"
	"github.com/sealgate/sealgate/wire"
)

// geminiControl is the project's gate behind the same adapter.
func geminiControl(t *testing.T) *peers.Peer {
	t.Helper()
	for _, c := range peers.Controls() {
		if c.Protocol == wire.Gemini {
			return c
		}
	}
	t.Fatal("no Gemini control")
	return nil
}

// oneCall is a one-call attempt in the SPEC's terms; ended false leaves
// the call without its end.
func oneCall(ended bool, st sealgate.Status, fragments ...string) []sealgate.Event {
	evs := []sealgate.Event{sealgate.OpenEvent("r1", "t1"), sealgate.BeginEvent("r1", "x", "call_1", "get_weather")}
	for _, f := range fragments {
		evs = append(evs, sealgate.DeltaEvent("r1", "x", []byte(f)))
	}
	if ended {
		evs = append(evs, sealgate.EndEvent("r1", "x"))
	}
	return append(evs, sealgate.CloseEvent("r1", st))
}

// TestKnownFindings: bodies with the check each idiom breaks, and the
// control on the same body breaking none.
func TestKnownFindings(t *testing.T) {
	r := peers.NewRunner()
	defer r.Close()
	arrays := []string{`{"n":true,"operations":[{"action":"a`, `dd","price":0.5},{"action":"remove"}]`, `}`}
	cases := []struct {
		name  string
		peer  *peers.Peer
		in    []sealgate.Event
		fault peers.Fault
		want  string // the violation's class, or its check's ID for any class of it; "" for none
	}{
		// The last part comes before the finish, which is the streamed
		// call's end when no terminal functionCall:{} follows: the call
		// runs before it ended, and before the turn completed.
		{"streamed, complete", lastPart, oneCall(true, sealgate.Complete, `{"city":"Par`, `is"}`), peers.Fault{}, "I1-before-end"},
		{"streamed, complete, careful", careful, oneCall(true, sealgate.Complete, `{"city":"Par`, `is"}`), peers.Fault{}, ""},
		{"whole, finish dropped", lastPart, oneCall(true, sealgate.Complete, `{"city":"Paris"}`), peers.Fault{Kind: peers.DropTerminal}, "I1"},
		{"whole, finish dropped, careful", careful, oneCall(true, sealgate.Complete, `{"city":"Paris"}`), peers.Fault{Kind: peers.DropTerminal}, ""},
		// Arrays and numbers assembled from their jsonPaths.
		{"arrays, careful", careful, oneCall(true, sealgate.Complete, arrays...), peers.Fault{}, ""},
		// The map the application hands its tool (FunctionCall.Args's
		// type) loses the members' order.
		{"members reordered, careful", careful, oneCall(true, sealgate.Complete, `{"b":1,`, `"a":2}`), peers.Fault{}, "I2"},
		// A call cut mid-string, then STOP: neither runs it.
		{"cut mid-string then STOP", lastPart, oneCall(false, sealgate.Complete, `{"city":"Par`), peers.Fault{}, ""},
		{"cut mid-string then STOP, careful", careful, oneCall(false, sealgate.Complete, `{"city":"Par`), peers.Fault{}, ""},
		{"MAX_TOKENS, careful", careful, oneCall(true, sealgate.Truncated, `{"city":"Par`, `is"}`), peers.Fault{}, ""},
		{"error chunk, careful", careful, oneCall(true, sealgate.Complete, `{"city":"Par`, `is"}`), peers.Fault{Kind: peers.ErrorAfter, At: 3}, ""},
	}
	for _, c := range cases {
		body, ok := peers.Build(wire.Gemini, c.in, c.fault)
		if !ok {
			t.Fatalf("%s: Gemini cannot carry %v", c.name, c.in)
		}
		out, err := r.Run(c.peer, body)
		if err != nil {
			t.Fatal(err)
		}
		got := ""
		if v := peers.Judge(out); v != nil {
			got = peers.Class(v)
		}
		if got != c.want && !(c.want != "" && strings.HasPrefix(got, c.want+"-")) {
			t.Errorf("%s: %s breaks %q, want %q; releases %v; SDK error %v\n%s", c.name, c.peer.Name, got, c.want, out.Releases, out.SDKErr, body.Bytes())
		}
		ctl, err := r.Run(geminiControl(t), body)
		if err != nil {
			t.Fatal(err)
		}
		if v := peers.Judge(ctl); v != nil {
			t.Errorf("%s: the control breaks %v", c.name, v)
		}
	}
}

// TestCorpus puts the genai idioms and the Gemini control under every
// corpus scenario Gemini carries, clean and with one fault each, and
// reports the distinct findings. The control must break nothing.
func TestCorpus(t *testing.T) {
	files, err := scn.Files(filepath.Join("..", "..", "corpus"))
	if err != nil {
		t.Fatal(err)
	}
	r := peers.NewRunner()
	defer r.Close()
	ctl := geminiControl(t)
	h := peers.NewHunt(r, append(Peers(), ctl))
	for i, f := range files {
		s, err := scn.ParseFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, fault := range []peers.Fault{{}, {Kind: peers.FaultKind(1 + i%int(peers.FaultKinds-1)), At: i}} {
			h.Try(peers.Input{Source: "corpus", Name: filepath.Base(f), Events: s.Events, Fault: fault})
		}
	}
	if len(h.Failures) > 0 {
		t.Errorf("runs that went wrong: %v", h.Failures)
	}
	if h.Carried[wire.Gemini] < len(files) {
		t.Errorf("Gemini carried %d of %d inputs", h.Carried[wire.Gemini], 2*len(files))
	}
	for _, f := range h.Sorted() {
		if f.Peer.Control {
			t.Errorf("the control breaks %s on %s (%v): %v", f.ID, f.Input.Name, f.Input.Fault, f.Err)
			continue
		}
		t.Logf("%-16s %-16s %4d  first on %s (%v): %s", f.Peer.Name, f.ID, f.Count, f.Input.Name, f.Input.Fault, firstLine(f.Err.Error()))
	}
	t.Logf("%d runs over %d corpus files, %d carried", h.Runs, len(files), h.Carried[wire.Gemini])
}

func firstLine(s string) string {
	l, _, _ := strings.Cut(s, "\n")
	return l
}
