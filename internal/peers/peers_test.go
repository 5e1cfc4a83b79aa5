package peers

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sealgate/sealgate"
	"github.com/sealgate/sealgate/check"
	"github.com/sealgate/sealgate/internal/fuzzkit"
	"github.com/sealgate/sealgate/internal/gen"
	"github.com/sealgate/sealgate/internal/reduce"
	"github.com/sealgate/sealgate/scn"
	"github.com/sealgate/sealgate/wire"
)

var runner *Runner

func TestMain(m *testing.M) {
	if os.Getenv(childEnv) == "1" {
		os.Exit(ServeProcess(os.Stdin, os.Stdout, childPeers()))
	}
	runner = NewRunner()
	code := m.Run()
	runner.Close()
	os.Exit(code)
}

// call is a one-call attempt, complete, in the SPEC's terms.
func oneCall(fragments ...string) []sealgate.Event {
	evs := []sealgate.Event{sealgate.OpenEvent("r1", "t1"), sealgate.BeginEvent("r1", "x", "call_1", "get_weather")}
	for _, f := range fragments {
		evs = append(evs, sealgate.DeltaEvent("r1", "x", []byte(f)))
	}
	return append(evs, sealgate.EndEvent("r1", "x"), sealgate.CloseEvent("r1", sealgate.Complete))
}

func build(t *testing.T, p wire.Protocol, evs []sealgate.Event, f Fault) Body {
	t.Helper()
	b, ok := Build(p, evs, f)
	if !ok {
		t.Fatalf("%s cannot carry %v", p, evs)
	}
	return b
}

func run(t *testing.T, p *Peer, b Body) Outcome {
	t.Helper()
	out, err := runner.Run(p, b)
	if err != nil {
		t.Fatalf("%s: %v", p.Name, err)
	}
	return out
}

// A body with the raw stored bytes, for the shapes the encoder refuses.
func raw(p wire.Protocol, body string) Body {
	return Body{Protocol: p, Events: SplitEvents([]byte(body))}
}

// TestPositionsArePrefixDecodes pins Decode's placement: After[k] is the
// number of events that decoding the first k SSE events alone gives, less
// the close that the end of that shorter body adds.
func TestPositionsArePrefixDecodes(t *testing.T) {
	for _, p := range []wire.Protocol{wire.OpenAIChat, wire.OpenAIResponses, wire.Anthropic} {
		for _, f := range []Fault{{}, {Kind: DropTerminal}, {Kind: CutInside, At: 4}, {Kind: ErrorAfter, At: 3}} {
			b := build(t, p, twoCalls(), f)
			m := b.Decode()
			if len(m.After) != len(b.Events)+1 {
				t.Fatalf("%s %v: %d positions for %d SSE events", p, f, len(m.After), len(b.Events))
			}
			for k := 0; k <= len(b.Events); k++ {
				evs, _ := wire.Decode(p, bytes.NewReader(bytes.Join(b.Events[:k], nil)), wire.Options{})
				n := len(evs)
				if n > 0 && evs[n-1].Kind == sealgate.Close && evs[n-1].Status == sealgate.Disconnected {
					n--
				}
				if k == len(b.Events) {
					n = min(n, m.After[k]) // a decode error stops both at the same event
				}
				if m.After[k] != n {
					t.Errorf("%s %v: after %d SSE events: %d events placed, the prefix decodes to %d", p, f, k, m.After[k], n)
				}
			}
		}
	}
}

func twoCalls() []sealgate.Event {
	return []sealgate.Event{
		sealgate.OpenEvent("r1", "t1"),
		sealgate.BeginEvent("r1", "a", "call_1", "get_weather"),
		sealgate.DeltaEvent("r1", "a", []byte(`{"city":`)),
		sealgate.DeltaEvent("r1", "a", []byte(`"Paris"}`)),
		sealgate.EndEvent("r1", "a"),
		sealgate.BeginEvent("r1", "b", "call_2", "get_time"),
		sealgate.DeltaEvent("r1", "b", []byte(`{"tz":"CET"}`)),
		sealgate.EndEvent("r1", "b"),
		sealgate.CloseEvent("r1", sealgate.Complete),
	}
}

// TestControlIsReplayWire: the project's gate behind the adapter releases
// exactly what the gate releases on the decoded events (sealfuzz replay
// -wire), at the same events, and breaks nothing, for every corpus
// scenario each protocol carries, with and without each fault.
func TestControlIsReplayWire(t *testing.T) {
	files, err := scn.Files(filepath.Join("..", "..", "corpus"))
	if err != nil {
		t.Fatal(err)
	}
	runs := 0
	for i, f := range files {
		s, err := scn.ParseFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range Controls() {
			fault := Fault{Kind: FaultKind(i % int(FaultKinds)), At: i}
			b, ok := Build(c.Protocol, s.Events, fault)
			if !ok {
				continue
			}
			runs++
			out := run(t, c, b)
			tr := check.Default.Record(Config(out.Meaning.Events), out.Meaning.Events)
			want, err := tr.Decisions, tr.Err
			if err != nil {
				t.Fatal(err)
			}
			var rel []sealgate.Decision
			for _, d := range want {
				if d.Kind == sealgate.Release {
					rel = append(rel, d)
				}
			}
			if err := check.Compare("control", out.Releases, "replay -wire", rel); err != nil {
				t.Errorf("%s, %s, fault %v: %v", f, c.Name, fault, err)
			}
			if v := Judge(out); v != nil {
				t.Errorf("%s, %s, fault %v: the control breaks %v", f, c.Name, fault, v)
			}
		}
	}
	if runs < len(files) {
		t.Fatalf("only %d control runs for %d corpus files", runs, len(files))
	}
}

// TestKnownFindings: bodies of research/peers.md, each with the check the
// idiom breaks, and the control on the same body breaking none.
func TestKnownFindings(t *testing.T) {
	cases := []struct {
		name string
		peer *Peer
		body Body
		want string // violation ID, "" for none
	}{
		// finish_reason "length": JustFinishedToolCall reports the cut call.
		{"chat length cut", chatJustFinished, raw(wire.OpenAIChat,
			`data: {"id":"r1","object":"chat.completion.chunk","choices":[{"index":0,"delta":{"role":"assistant","tool_calls":[{"index":0,"id":"call_1","type":"function","function":{"name":"get_weather","arguments":""}}]},"finish_reason":null}]}`+"\n\n"+
				`data: {"id":"r1","object":"chat.completion.chunk","choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":"{\"city\":\"Edinb"}}]},"finish_reason":null}]}`+"\n\n"+
				`data: {"id":"r1","object":"chat.completion.chunk","choices":[{"index":0,"delta":{},"finish_reason":"length"}]}`+"\n\n"+
				"data: [DONE]\n\n"), "I1"},
		{"chat length cut, careful", chatCareful, raw(wire.OpenAIChat,
			`data: {"id":"r1","object":"chat.completion.chunk","choices":[{"index":0,"delta":{"role":"assistant","tool_calls":[{"index":0,"id":"call_1","type":"function","function":{"name":"get_weather","arguments":"{}"}}]},"finish_reason":null}]}`+"\n\n"+
				`data: {"id":"r1","object":"chat.completion.chunk","choices":[{"index":0,"delta":{},"finish_reason":"length"}]}`+"\n\n"+
				"data: [DONE]\n\n"), ""},
		// A body cut after the finish chunk: [DONE] and EOF look alike.
		{"chat no [DONE], careful", chatCareful, build(t, wire.OpenAIChat, oneCall(`{"city":"Paris"}`), Fault{Kind: DropTerminal}), "I1"},
		{"chat complete, careful", chatCareful, build(t, wire.OpenAIChat, oneCall(`{"city":"Paris"}`), Fault{}), ""},
		// Released at its end, before the turn completed.
		{"responses done", responsesArgsDone, build(t, wire.OpenAIResponses, oneCall(`{"city":"Paris"}`), Fault{}), "I1"},
		{"responses completed", responsesCompleted, build(t, wire.OpenAIResponses, oneCall(`{"city":"Paris"}`), Fault{}), ""},
		{"responses completed, duplicate member", responsesCompleted, build(t, wire.OpenAIResponses, oneCall(`{"a":1,"a":2}`), Fault{}), "SEAL"},
		// Accumulate turns an unfinished input into {} and the careful
		// idiom runs it.
		{"anthropic {", anthropicCareful, build(t, wire.Anthropic, oneCall(`{"city":`), Fault{}), "I2"},
		{"anthropic {, runner", anthropicToolRunner, build(t, wire.Anthropic, oneCall(`{"city":`), Fault{}), "I2"},
		{"anthropic block stop", anthropicBlockStop, build(t, wire.Anthropic, oneCall(`{"city":"Paris"}`), Fault{}), "I1"},
		{"anthropic complete, careful", anthropicCareful, build(t, wire.Anthropic, oneCall(`{"city":"Paris"}`), Fault{}), ""},
		// The runner re-serializes through any: 1.0 becomes 1.
		{"anthropic runner number", anthropicToolRunner, build(t, wire.Anthropic, oneCall(`{"n":1.0}`), Fault{}), "I2"},
		{"anthropic careful number", anthropicCareful, build(t, wire.Anthropic, oneCall(`{"n":1.0}`), Fault{}), ""},
		// message_delta tool_use with no message_stop: EOF taken as success.
		{"anthropic no message_stop", anthropicCareful, build(t, wire.Anthropic, oneCall(`{"city":"Paris"}`), Fault{Kind: DropTerminal}), "I1"},
	}
	for _, c := range cases {
		out := run(t, c.peer, c.body)
		got := ""
		if v := Judge(out); v != nil {
			got = reduce.ID(v)
		}
		if got != c.want {
			t.Errorf("%s: %s breaks %q, want %q; releases %v", c.name, c.peer.Name, got, c.want, out.Releases)
		}
		for _, ctl := range Controls() {
			if ctl.Protocol == c.peer.Protocol {
				if v := Judge(run(t, ctl, c.body)); v != nil {
					t.Errorf("%s: the control breaks %v", c.name, v)
				}
			}
		}
	}
}

// TestReleaseIsTiedToItsEvent: JustFinishedToolCall reports the first call
// when the chunk that begins the second arrives, so its release stands at
// that begin, not later; the server's stepping is what makes this exact.
func TestReleaseIsTiedToItsEvent(t *testing.T) {
	b := build(t, wire.OpenAIChat, twoCalls(), Fault{})
	out := run(t, chatJustFinished, b)
	if len(out.Releases) == 0 {
		t.Fatal("no release")
	}
	d := out.Releases[0]
	ev := out.Meaning.Events[d.At-1]
	if d.Call != "call_1" || ev.Kind != sealgate.Begin || ev.Call != "call_2" {
		t.Fatalf("first release %s stands at %q, want the begin of call_2", d, ev)
	}
}

// TestFaults: each fault changes what wire reads as it says.
func TestFaults(t *testing.T) {
	last := func(b Body) sealgate.Event { m := b.Decode(); return m.Events[len(m.Events)-1] }
	for _, p := range []wire.Protocol{wire.OpenAIChat, wire.OpenAIResponses, wire.Anthropic} {
		clean := build(t, p, oneCall(`{"city":"Paris"}`), Fault{})
		if ev := last(clean); ev.Status != sealgate.Complete {
			t.Fatalf("%s: clean body ends %s", p, ev)
		}
		for _, f := range []Fault{{Kind: DropTerminal}, {Kind: CutAfter, At: 1}, {Kind: CutInside, At: 2}, {Kind: ResetInside, At: 2}} {
			if ev := last(f.Apply(clean)); ev.Status != sealgate.Disconnected {
				t.Errorf("%s %v: ends %s, want close disconnected", p, f, ev)
			}
		}
		if ev := last(Fault{Kind: ErrorAfter, At: 1}.Apply(clean)); ev.Status != sealgate.Failed {
			t.Errorf("%s error-after: ends %s, want close failed", p, ev)
		}
		if got := (Fault{Kind: ResetInside, At: 2}).Apply(clean); !got.Reset || len(got.Events) != 2 {
			t.Errorf("%s reset-inside: %d events, reset %v", p, len(got.Events), got.Reset)
		}
	}
	a := build(t, wire.Anthropic, oneCall(`{"city":"Paris"}`), Fault{Kind: DropStops})
	for _, e := range a.Decode().Events {
		if e.Kind == sealgate.End {
			t.Errorf("drop-stops left an end: %s", e)
		}
	}
}

// TestResetIsSeenBySDK: a connection broken mid-body is a stream error to
// the SDK (careful idioms run nothing), where a clean cut is not.
func TestResetIsSeenBySDK(t *testing.T) {
	b := build(t, wire.Anthropic, oneCall(`{"city":"Paris"}`), Fault{Kind: ResetInside, At: 6})
	out := run(t, anthropicCareful, b)
	if out.SDKErr == nil || len(out.Releases) != 0 {
		t.Fatalf("reset: SDK error %v, releases %v", out.SDKErr, out.Releases)
	}
}

// TestNormalizeCarries: what Normalize gives, the protocol's encoder takes
// and its decoder gives back, for generated streams.
func TestNormalizeCarries(t *testing.T) {
	carried := map[wire.Protocol]int{}
	for _, data := range fuzzkit.Seeds(7)[:60] {
		_, evs := gen.FromBytes(data)
		for _, p := range []wire.Protocol{wire.OpenAIChat, wire.OpenAIResponses, wire.Anthropic} {
			n, err := Normalize(p, evs)
			if err != nil {
				t.Fatal(err)
			}
			enc, err := wire.Encode(p, n)
			if err != nil {
				if strings.Contains(err.Error(), "token") || strings.Contains(err.Error(), "empty") {
					continue // an id that cannot stand as a token: not carried
				}
				t.Errorf("%s: normalized events do not encode: %v\n%v", p, err, n)
				continue
			}
			carried[p]++
			back, err := wire.Decode(p, bytes.NewReader(enc), wire.Options{})
			if err != nil {
				t.Errorf("%s: %v", p, err)
				continue
			}
			if len(back) != len(n) {
				t.Errorf("%s: %d events back for %d", p, len(back), len(n))
				continue
			}
			for i := range n {
				n[i].Turn = back[i].Turn
				if !scn.EventsEqual(n[i], back[i]) {
					t.Errorf("%s: event %d: %s back as %s", p, i+1, n[i], back[i])
					break
				}
			}
		}
	}
	for _, p := range []wire.Protocol{wire.OpenAIChat, wire.OpenAIResponses, wire.Anthropic} {
		if carried[p] < 30 {
			t.Errorf("%s carried only %d of 60 generated streams", p, carried[p])
		}
	}
}

// TestStoredRoundTrip: a stored body serves the same bytes it was written
// from, with its header read back.
func TestStoredRoundTrip(t *testing.T) {
	b := Fault{Kind: ResetInside, At: 3}.Apply(build(t, wire.Anthropic, oneCall(`{"a":1}`), Fault{}))
	h, body := ParseStored(Stored(Header{Peer: "anthropic/careful", Violation: "I2", Notes: []string{"a note"}}, b))
	if h.Peer != "anthropic/careful" || h.Violation != "I2" || !h.Reset || len(h.Notes) != 1 {
		t.Fatalf("header read back as %+v", h)
	}
	if !bytes.Equal(body, b.Bytes()) {
		t.Fatalf("body read back as %q, want %q", body, b.Bytes())
	}
}

// TestEveryPeerHasItsVersion: the report names the SDK versions in go.mod.
func TestEveryPeerHasItsVersion(t *testing.T) {
	for _, p := range All() {
		if v := p.Version(); !strings.HasPrefix(v, "v") && v != "(devel)" {
			t.Errorf("%s: version %q", p.Name, v)
		}
		if p.Docs == "" || p.Idiom == "" {
			t.Errorf("%s: no docs or idiom", p.Name)
		}
	}
}

// TestVersionsAreGoMod: the versions a test binary reports are go.mod's.
func TestVersionsAreGoMod(t *testing.T) {
	mod, err := os.ReadFile(filepath.Join("..", "..", "go.mod"))
	if err != nil {
		t.Fatal(err)
	}
	for path, v := range sdkVersions {
		if !strings.Contains(string(mod), "\t"+path+" "+v+"\n") {
			t.Errorf("go.mod does not require %s %s", path, v)
		}
	}
}
