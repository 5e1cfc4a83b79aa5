package peers

import (
	"context"
	"net/http"
	"strings"
	"testing"

	"github.com/sealgate/sealgate"
	"github.com/sealgate/sealgate/internal/reduce"
	"github.com/sealgate/sealgate/wire"
)

// twoMessages is one Anthropic stream carrying two messages of a turn: the
// first with one call, closed with st; the second empty and complete.
func twoMessages(st sealgate.Status) []sealgate.Event {
	return []sealgate.Event{
		sealgate.OpenEvent("r1", "t1"), sealgate.BeginEvent("r1", "x", "call_1", "get_weather"),
		sealgate.DeltaEvent("r1", "x", []byte(`{"city":"Paris"}`)), sealgate.EndEvent("r1", "x"),
		sealgate.CloseEvent("r1", st),
		sealgate.OpenEvent("r2", "t1"), sealgate.CloseEvent("r2", sealgate.Complete),
	}
}

// afterResponse is an application that runs calls only once the whole
// response was read, as one does with a client that returns the merged
// message: the gate's releases when gated, else every call that ended.
func afterResponse(gated bool) *Peer {
	return &Peer{Name: "test/after-response", Protocol: wire.Anthropic,
		Drive: func(ctx context.Context, c Conn, emit func(Release)) error {
			var held []Release
			hold := func(r Release) { held = append(held, r) }
			var err error
			if gated {
				err = control(wire.Anthropic).Drive(ctx, c, hold)
			} else {
				err = runEnded(ctx, c, hold)
			}
			for _, r := range held {
				emit(r)
			}
			return err
		}}
}

// runEnded reports every call whose end the body carried, with its bytes.
func runEnded(ctx context.Context, c Conn, emit func(Release)) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, c.BaseURL+"/control", strings.NewReader("{}"))
	if err != nil {
		return err
	}
	resp, err := c.HTTP.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	args := map[[2]string][]byte{}
	calls := map[[2]string]sealgate.Event{}
	return wire.DecodeFunc(wire.Anthropic, resp.Body, wire.Options{Turn: Turn}, func(ev sealgate.Event) error {
		k := [2]string{ev.Attempt, ev.Item}
		switch ev.Kind {
		case sealgate.Begin:
			calls[k] = ev
		case sealgate.Delta:
			args[k] = append(args[k], ev.Bytes...)
		case sealgate.End:
			b := calls[k]
			emit(Release{Attempt: ev.Attempt, Item: ev.Item, Call: b.Call, Tool: b.Tool, Args: args[k]})
		}
		return nil
	})
}

// TestLateReleaseStandsAtItsClose: a call run after the response returned,
// past a second message of the same stream, is placed at its own message's
// close, where the gate released it, so an application that runs the gate's
// releases late breaks nothing; a late run of a call whose message was cut
// still breaks I1 there.
func TestLateReleaseStandsAtItsClose(t *testing.T) {
	cases := []struct {
		name  string
		st    sealgate.Status
		gated bool
		want  string
	}{
		{"gated, first message complete", sealgate.Complete, true, ""},
		{"ungated, first message complete", sealgate.Complete, false, ""},
		{"ungated, first message cut", sealgate.Truncated, false, "I1"},
	}
	for _, c := range cases {
		out := run(t, afterResponse(c.gated), build(t, wire.Anthropic, twoMessages(c.st), Fault{}))
		if len(out.Releases) != 1 {
			t.Fatalf("%s: releases %v, want the one call", c.name, out.Releases)
		}
		if d := out.Releases[0]; d.At != 5 || out.Meaning.Events[d.At-1].Kind != sealgate.Close || d.Attempt != "r1" {
			t.Errorf("%s: release %s stands at %q, want r1's close (event 5)", c.name, d, out.Meaning.Events[d.At-1])
		}
		got := ""
		if v := Judge(out); v != nil {
			got = reduce.ID(v)
		}
		if got != c.want {
			t.Errorf("%s: breaks %q, want %q", c.name, got, c.want)
		}
	}
}

// TestFoundCallWasSentBeforeItRan: a release without attempt or item is
// matched only to a call begun by the event it stands at. Here the peer
// runs call c after two SSE events, while wire's only call c begins in a
// later response (the first closed failed, and wire read no call of it),
// so the release names no call rather than that later one.
func TestFoundCallWasSentBeforeItRan(t *testing.T) {
	events := []sealgate.Event{
		sealgate.OpenEvent("a", "t1"), sealgate.CloseEvent("a", sealgate.Failed),
		sealgate.OpenEvent("b", "t1"), sealgate.BeginEvent("b", "0:0", "c", "f"),
		sealgate.DeltaEvent("b", "0:0", []byte(`{}`)), sealgate.EndEvent("b", "0:0"),
		sealgate.CloseEvent("b", sealgate.Complete),
	}
	m := Meaning{Events: events, After: []int{0, 1, 2, 3, 4, 5, 6, 7}}
	for _, c := range []struct {
		delivered   int
		wantAttempt string
	}{{2, "?"}, {4, "b"}} {
		rec := Record{Releases: []Stamped{{Release: Release{Call: "c", Tool: "f", Args: []byte(`{}`)}, Delivered: c.delivered}}}
		out := place(m, Body{Protocol: wire.OpenAIChat}, rec)
		if len(out.Releases) != 1 {
			t.Fatalf("after %d events: releases %v, want one", c.delivered, out.Releases)
		}
		if d := out.Releases[0]; d.Attempt != c.wantAttempt {
			t.Errorf("after %d events: release %s is matched to attempt %q, want %q", c.delivered, d, d.Attempt, c.wantAttempt)
		}
	}
}

// TestFoundObjectCallIsTheEarliestOfItsValue: a tool that got a parsed
// object ran the earliest call with that value, not the later one whose
// bytes happen to equal the object's reserialization (genkit hands its
// tool a map, which Go writes with sorted names).
func TestFoundObjectCallIsTheEarliestOfItsValue(t *testing.T) {
	events := []sealgate.Event{
		sealgate.OpenEvent("a", "t1"), sealgate.BeginEvent("a", "0:0", "c", "f"),
		sealgate.DeltaEvent("a", "0:0", []byte(`{"b":"x","a":1}`)), sealgate.EndEvent("a", "0:0"),
		sealgate.CloseEvent("a", sealgate.Complete),
		sealgate.OpenEvent("b", "t1"), sealgate.BeginEvent("b", "0:0", "d", "f"),
		sealgate.DeltaEvent("b", "0:0", []byte(`{"a":1,"b":"x"}`)), sealgate.EndEvent("b", "0:0"),
		sealgate.CloseEvent("b", sealgate.Complete),
	}
	m := Meaning{Events: events, After: []int{0, 5, 10}}
	for _, c := range []struct {
		object bool
		want   string
	}{{true, "c"}, {false, "d"}} {
		rec := Record{Releases: []Stamped{{Release: Release{Tool: "f", Args: []byte(`{"a":1,"b":"x"}`), Object: c.object}, Delivered: 2}}}
		out := place(m, Body{Protocol: wire.OpenAIChat}, rec)
		if len(out.Releases) != 1 || out.Releases[0].Call != c.want {
			t.Errorf("object=%v: releases %v, want call %s", c.object, out.Releases, c.want)
		}
	}
}
