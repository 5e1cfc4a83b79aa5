package peers

import (
	"bytes"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sealgate/sealgate"
	"github.com/sealgate/sealgate/internal/fuzzkit"
	"github.com/sealgate/sealgate/internal/gen"
	"github.com/sealgate/sealgate/scn"
	"github.com/sealgate/sealgate/wire"
)

// enrichInputs is every corpus scenario and a share of generated streams.
func enrichInputs(t *testing.T) [][]sealgate.Event {
	t.Helper()
	files, err := scn.Files(filepath.Join("..", "..", "corpus"))
	if err != nil {
		t.Fatal(err)
	}
	var out [][]sealgate.Event
	for _, f := range files {
		s, err := scn.ParseFile(f)
		if err != nil {
			continue
		}
		out = append(out, s.Events)
	}
	for _, data := range fuzzkit.Seeds(11) {
		_, evs := gen.FromBytes(data)
		out = append(out, evs)
	}
	return out
}

// TestEnrichKeepsMeaning: an enriched body decodes with wire to the same
// events, placed after the same SSE events, as the body before enrichment,
// with and without each fault; and the envelope fields are really there.
func TestEnrichKeepsMeaning(t *testing.T) {
	protos := []wire.Protocol{wire.OpenAIChat, wire.OpenAIResponses, wire.Anthropic}
	faults := []Fault{{}, {Kind: DropTerminal}, {Kind: CutAfter, At: 3}, {Kind: CutInside, At: 5}, {Kind: ErrorAfter, At: 2}}
	compared := map[wire.Protocol]int{}
	for _, evs := range enrichInputs(t) {
		for _, p := range protos {
			n, err := Normalize(p, evs)
			if err != nil {
				t.Fatal(err)
			}
			enc, err := wire.Encode(p, n)
			if err != nil || len(enc) == 0 {
				continue
			}
			rich := Enrich(p, enc)
			plainEvents, richEvents := SplitEvents(enc), SplitEvents(rich)
			if len(plainEvents) != len(richEvents) {
				t.Fatalf("%s: %d SSE events enriched to %d", p, len(plainEvents), len(richEvents))
			}
			if !bytes.Equal(Enrich(p, rich), rich) {
				t.Errorf("%s: enriching twice changes the body:\n%s", p, rich)
			}
			for _, f := range faults {
				a := f.Apply(Body{Protocol: p, Events: plainEvents}).Decode()
				b := f.Apply(Body{Protocol: p, Events: richEvents}).Decode()
				if (a.Err == nil) != (b.Err == nil) || len(a.Events) != len(b.Events) {
					t.Fatalf("%s %v: before enrichment %d events (err %v), after %d (err %v)\n%s", p, f, len(a.Events), a.Err, len(b.Events), b.Err, rich)
				}
				for i := range a.Events {
					if !scn.EventsEqual(a.Events[i], b.Events[i]) {
						t.Fatalf("%s %v: event %d: %s enriched to %s", p, f, i+1, a.Events[i], b.Events[i])
					}
				}
				for k := range a.After {
					if a.After[k] != b.After[k] {
						t.Fatalf("%s %v: after %d SSE events: %d events before enrichment, %d after", p, f, k, a.After[k], b.After[k])
					}
				}
				compared[p]++
			}
			wantEnriched(t, p, rich)
		}
	}
	for _, p := range protos {
		if compared[p] < 100 {
			t.Errorf("%s: only %d bodies compared", p, compared[p])
		}
	}
}

// wantEnriched fails unless each envelope the SDKs validate carries its
// fields.
func wantEnriched(t *testing.T, p wire.Protocol, body []byte) {
	t.Helper()
	for _, ev := range SplitEvents(body) {
		name, data, ok := sseParts(ev)
		if !ok {
			continue
		}
		var want []string
		switch {
		case p == wire.OpenAIChat && bytes.HasPrefix(data, []byte(`{"id":`)):
			want = []string{`"created":`, `"model":`}
		case p == wire.Anthropic && name == "message_start":
			want = []string{`"model":`, `"usage":{"input_tokens":`}
		case p == wire.OpenAIResponses && name == "response.created":
			want = []string{`"created_at":`, `"model":`}
		case p == wire.OpenAIResponses && strings.HasPrefix(name, "response.") && (name == "response.completed" || name == "response.incomplete" || name == "response.failed"):
			want = []string{`"created_at":`, `"model":`, `"output":[`, `"usage":{`, `"object":"response"`}
		}
		for _, w := range want {
			if !bytes.Contains(data, []byte(w)) {
				t.Errorf("%s %s: no %s in %s", p, name, w, data)
			}
		}
	}
}

// TestEnrichOutputIsTheCalls: the terminal Responses event lists each
// function call with the arguments its output_item.done carried.
func TestEnrichOutputIsTheCalls(t *testing.T) {
	b := build(t, wire.OpenAIResponses, twoCalls(), Fault{})
	last := b.Events[len(b.Events)-1]
	for _, w := range []string{`"call_id":"call_1"`, `"arguments":"{\"city\":\"Paris\"}"`, `"call_id":"call_2"`, `"arguments":"{\"tz\":\"CET\"}"`} {
		if !bytes.Contains(last, []byte(w)) {
			t.Errorf("response.completed lacks %s:\n%s", w, last)
		}
	}
}
