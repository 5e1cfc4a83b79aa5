package protocol

import (
	"bytes"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/go-json-experiment/json"

	"github.com/sealgate/sealgate"
	"github.com/sealgate/sealgate/check"
	"github.com/sealgate/sealgate/internal/fuzzkit"
)

// The fuzz targets' run counters, for the campaign's count of runs.
var (
	decodeFastExecs   = fuzzkit.NewCounter("FuzzDecodeFast")
	encodeFastExecs   = fuzzkit.NewCounter("FuzzEncodeFast")
	eventLineExecs    = fuzzkit.NewCounter("FuzzAppendEventLine")
	decisionLineExecs = fuzzkit.NewCounter("FuzzAppendDecisionLine")
	eventReadExecs    = fuzzkit.NewCounter("FuzzDecodeEventLine")
)

// strictDecode is Unmarshal's strict path alone.
func strictDecode(line []byte) (*Message, error) {
	m := new(Message)
	if err := json.Unmarshal(line, m, json.RejectUnknownMembers(true)); err != nil {
		return nil, err
	}
	return m, nil
}

// sameAsStrict fails t when decodeFast reads line and the strict decoder
// does not read it, or reads something else.
func sameAsStrict(t *testing.T, line []byte) (fast bool) {
	t.Helper()
	fm, ok := decodeFast(line)
	if !ok {
		return false
	}
	sm, err := strictDecode(line)
	if err != nil {
		t.Fatalf("fast path read %q, which the strict decoder refuses: %v", line, err)
	}
	if !reflect.DeepEqual(fm, sm) {
		t.Fatalf("fast path read %q as %s, strict as %s", line, show(fm), show(sm))
	}
	return true
}

func show(m *Message) string {
	b, err := json.Marshal(m)
	if err != nil {
		return fmt.Sprintf("%+v", *m)
	}
	return string(b)
}

func ptr[T any](v T) *T { return &v }

// sampleMessages are lines of every shape each side writes per event, with
// strings that need escapes and strings the fast paths leave to json.
func sampleMessages() []*Message {
	var out []*Message
	for i, e := range sampleEvents() {
		n := i + 1
		out = append(out, &Message{V: Version, Type: TypeEvent, N: &n, Event: EncodeEvent(e)})
	}
	for _, d := range sampleDecisions() {
		out = append(out, &Message{V: Version, Type: TypeDecision, Decision: EncodeDecision(d)})
	}
	return append(out,
		&Message{V: Version, Type: TypeDone, N: ptr(7)},
		&Message{V: Version, Type: TypeDone, N: ptr(123456), Retained: ptr(0)},
		&Message{V: Version, Type: TypeError, N: ptr(3), Text: `cannot read "x": \ bad`},
		&Message{V: Version, Type: TypeError, Text: "no n"},
		&Message{V: Version, Type: TypeError, Text: "a\tb"},
		&Message{V: Version, Type: TypeRefused},
		&Message{V: 0, Type: "", Ledger: "/tmp/x/ledger", Name: "g"},
		&Message{V: -3, Type: TypeHello, Name: "g", Capabilities: EncodeCaps(check.FullCapabilities())},
		&Message{V: Version, Type: TypeConfig, Config: EncodeConfig(sealgate.Config{}), Ledger: "/l"},
	)
}

// sampleEvents are events of every kind, with strings that need escapes
// and strings the direct writers leave to json.
func sampleEvents() []sealgate.Event {
	return []sealgate.Event{
		{Kind: sealgate.Open, Attempt: "r1", Turn: "t1"},
		{Kind: sealgate.Begin, Attempt: "r1", Item: "0", Call: "call_1", Tool: "save_file"},
		{Kind: sealgate.Delta, Attempt: "r1", Item: "0", Bytes: []byte(`{"path":"notes.md","content":"h\xc3`)},
		{Kind: sealgate.Delta, Attempt: "r1", Item: "0"},
		{Kind: sealgate.End, Attempt: "r1", Item: "0", Final: []byte(`{}`), HasFinal: true},
		{Kind: sealgate.End, Attempt: "r1", Item: "0", HasFinal: true},
		{Kind: sealgate.Close, Attempt: "r1", Status: sealgate.Disconnected},
		{Kind: sealgate.Ack, Key: `k"\x`, OK: true},
		{Kind: sealgate.Ack, Key: "k", OK: false},
		{Kind: sealgate.Peek, Attempt: "é", Item: "\u2028"},
		{Kind: sealgate.Begin, Attempt: "a\nb", Item: "\x01", Call: "\xff", Tool: "t"},
	}
}

// sampleDecisions are decisions of every kind, args that are not UTF-8
// and a preview with an escape.
func sampleDecisions() []sealgate.Decision {
	return []sealgate.Decision{
		{Kind: sealgate.Release, Attempt: "r1", Item: "0", Call: "call_1", Tool: "save_file", Key: "call_1", Args: sealgate.Sealed(`{"path":"notes.md","s":"a\\\"b/é"}`)},
		{Kind: sealgate.Release, Attempt: "r1", Item: "0", Call: "c", Tool: "t", Key: "k", Args: sealgate.Sealed("\xff\xfe")},
		{Kind: sealgate.Release, Attempt: "r1", Item: "", Call: "c", Tool: "t", Key: "k", Args: sealgate.Sealed("")},
		{Kind: sealgate.Reject, Attempt: "r1", Item: "0", Reason: sealgate.Reason("invalid-json")},
		{Kind: sealgate.Anomaly, Anomaly: sealgate.AnomalyKind("unknown-ack"), Key: "k"},
		{Kind: sealgate.Anomaly, Attempt: "r2", Item: "1", HasItem: true, Anomaly: sealgate.AnomalyKind("delta-after-end")},
		{Kind: sealgate.Compensate, Attempt: "r1", Item: "0", Key: "k"},
		{Kind: sealgate.Reconcile, Attempt: "r1", Item: "0", Key: "k"},
		{Kind: sealgate.PreviewAnswer, Attempt: "r1", Item: "0", Preview: sealgate.Preview{Bytes: 12, Value: `{"a":"\t"}`}},
		{Kind: sealgate.PreviewAnswer, Attempt: "r1", Item: "0", Preview: sealgate.Preview{Bytes: 0, Value: "-"}},
	}
}

// TestFastPathsTakeTheCommonLines encodes and decodes each sample both
// ways: the direct encoder writes json.Marshal's bytes, and the direct
// decoder reads what the strict one reads. The lines of a plain run must
// take the direct paths, or they would win nothing.
func TestFastPathsTakeTheCommonLines(t *testing.T) {
	fastEncoded, fastDecoded := 0, 0
	for _, m := range sampleMessages() {
		want, err := json.Marshal(m)
		want = append(want, '\n')
		got, ok := encodeFast(nil, m)
		switch {
		case ok && err != nil:
			t.Errorf("encodeFast wrote %q, which json.Marshal refuses: %v", got, err)
		case ok && !bytes.Equal(got, want):
			t.Errorf("encodeFast wrote %q, json.Marshal %q", got, want)
		case ok:
			fastEncoded++
		}
		if err != nil {
			continue
		}
		if sameAsStrict(t, want[:len(want)-1]) {
			fastDecoded++
		}
	}
	// Of the 30 samples, json.Marshal refuses the event with invalid
	// UTF-8; the hello and the config are json's both ways; the error
	// line with a tab is json's to encode, and the direct decoder's.
	if fastEncoded != 26 || fastDecoded != 27 {
		t.Errorf("fast paths took %d lines to encode and %d to decode, want 26 and 27", fastEncoded, fastDecoded)
	}
}

// TestFastDecodeLeavesTheRestToStrict gives Unmarshal lines that look like
// the common ones but break a rule, or spell a member another way: the
// answer and the error must be the strict decoder's.
func TestFastDecodeLeavesTheRestToStrict(t *testing.T) {
	for _, tc := range []struct{ line, err string }{
		{`{"v":1,"type":"done","n":1,"n":2}`, "duplicate"},
		{`{"v":1,"type":"done","n":1,"N":2}`, "unknown"},
		{`{"v":1,"type":"done","\u006e":1}`, ""},
		{`{"v":1,"type":"done","n":01}`, "invalid"},
		{`{"v":1,"type":"done","n":1.0}`, "unmarshal JSON"},
		{`{"v":1,"type":"done","n":1e0}`, "unmarshal JSON"},
		{`{"v":1,"type":"done","n":-1}`, ""},
		{`{"v":1,"type":"done","n":99999999999999999999}`, "unmarshal JSON"},
		{`{"v":1,"type":"done","n":null}`, `done line without "n"`},
		{`{"v":1, "type":"done","n":1}`, ""},
		{`{"v":1,"type":"done","n":1} `, ""},
		{`{"v":1,"type":"done","n":1}x`, "invalid"},
		{`{"v":1,"type":"error","text":"\ud800"}`, "invalid"},
		{`{"v":1,"type":"error","text":"\u00e9"}`, ""},
		{"{\"v\":1,\"type\":\"error\",\"text\":\"\xff\"}", "invalid UTF-8"},
		{"{\"v\":1,\"type\":\"error\",\"text\":\"a\tb\"}", "invalid"},
		{`{"v":1,"type":"error","text":"\x"}`, "invalid"},
		{`{"v":1,"type":"decision","decision":{"kind":"reject","item":"0","item":"1"}}`, "duplicate"},
		{`{"v":1,"type":"decision","decision":{"kind":"preview","preview":{"bytes":1,"bytes":2}}}`, "duplicate"},
		{`{"v":1,"type":"decision","decision":{"kind":"preview","preview":{"bytes":1,"extra":2}}}`, "unknown"},
		{`{"v":1,"type":"event","n":1,"event":{"kind":"ack","key":"k","ok":tru}}`, "invalid"},
		{`{"v":1,"type":"event","n":1,"event":{"kind":"ack","key":"k","ok":"true"}}`, "unmarshal JSON"},
		{`{"v":2,"type":"done","n":1}`, "version 2"},
		{`{"v":1,"type":"done","n":1,"text":"x"}`, `done line with "text", which it does not take`},
		{`{"v":1,"type":"done","n":1`, "unexpected EOF"},
	} {
		_, fast := decodeFast([]byte(tc.line))
		m, err := Unmarshal([]byte(tc.line))
		_, strictErr := strictDecode([]byte(tc.line))
		if fast && strictErr != nil {
			t.Errorf("%s: fast path read what strict refuses: %v", tc.line, strictErr)
		}
		switch {
		case tc.err == "" && err != nil:
			t.Errorf("%s: %v, want it read", tc.line, err)
		case tc.err != "" && (err == nil || !strings.Contains(err.Error(), tc.err)):
			t.Errorf("%s: error %v (message %v), want one with %q", tc.line, err, m, tc.err)
		}
	}
}

// TestFastDecodeOnMutatedLines mutates every sample line at every byte
// (deleted, doubled, replaced by a byte that matters to JSON) and holds
// the fast path to the strict one on each: the seeds of FuzzDecodeFast
// in every run, not only under -fuzz.
func TestFastDecodeOnMutatedLines(t *testing.T) {
	for _, m := range sampleMessages() {
		line, err := json.Marshal(m)
		if err != nil {
			continue
		}
		for _, mut := range mutations(line) {
			sameAsStrict(t, mut)
		}
	}
}

func mutations(line []byte) [][]byte {
	var out [][]byte
	for i := range line {
		out = append(out, append(append([]byte{}, line[:i]...), line[i+1:]...))
		out = append(out, append(append([]byte{}, line[:i+1]...), line[i:]...))
		for _, c := range []byte("\"\\{}[],:0 1-.e\x00\x1f\x7f\xc3\xff/ntu") {
			mut := append([]byte{}, line...)
			mut[i] = c
			out = append(out, mut)
		}
	}
	return out
}

// FuzzDecodeFast holds decodeFast to the strict decoder on any line: it
// reads a line exactly as the strict decoder does, or leaves it.
func FuzzDecodeFast(f *testing.F) {
	for _, m := range sampleMessages() {
		if line, err := json.Marshal(m); err == nil {
			f.Add(line)
		}
	}
	f.Add([]byte(`{"v":1,"type":"done","n":1,"n":2}`))
	f.Add([]byte(`{"v":1,"type":"error","text":"a\\\"\/\b\f\n\r\tb"}`))
	f.Fuzz(func(t *testing.T, line []byte) {
		decodeFastExecs.Add()
		sameAsStrict(t, line)
	})
}

// FuzzEncodeFast holds encodeFast to json.Marshal on messages with any
// strings and numbers: the same bytes, or it leaves the message.
func FuzzEncodeFast(f *testing.F) {
	f.Add("r1", "0", `{"a":"b\\"}`, "k", 1, uint16(0xffff))
	f.Add("\x00", "\xff", "\u2028<&>", "", -5, uint16(0x0f0f))
	f.Fuzz(func(t *testing.T, a, b, c, d string, n int, set uint16) {
		encodeFastExecs.Add()
		on := func(bit int) bool { return set&(1<<bit) != 0 }
		pick := func(bit int, s string) *string {
			if on(bit) {
				return &s
			}
			return nil
		}
		m := &Message{V: n, Type: a, Ledger: b, Name: c, Text: d}
		if on(0) {
			m.N = &n
		}
		if on(1) {
			m.Retained = ptr(n / 2)
		}
		if on(2) {
			m.Event = &EventJSON{Kind: a, Attempt: b, Turn: c, Item: d, Call: a, Tool: b, Bytes64: c,
				Final64: pick(3, d), Status: a, Key: b}
			if on(4) {
				m.Event.OK = ptr(on(5))
			}
		}
		if on(6) {
			m.Decision = &DecisionJSON{Kind: d, Attempt: c, Item: pick(7, b), Call: a, Tool: d, Key: c,
				Args: pick(8, a), Args64: pick(9, b), Reason: c, Anomaly: d}
			if on(10) {
				m.Decision.Preview = &PreviewJSON{Bytes: n, Value: a}
			}
		}
		want, err := json.Marshal(m)
		got, ok := encodeFast([]byte("prefix"), m)
		if !ok {
			if string(got) != "prefix" {
				t.Fatalf("encodeFast gave up but changed dst to %q", got)
			}
			return
		}
		if err != nil {
			t.Fatalf("encodeFast wrote %q, which json.Marshal refuses: %v", got, err)
		}
		if want := "prefix" + string(want) + "\n"; string(got) != want {
			t.Fatalf("encodeFast wrote %q, json.Marshal %q", got, want)
		}
	})
}

// sameLineAsMessage fails t when a direct writer's line (or error) is not
// AppendLine's for the message it stands for.
func sameLineAsMessage(t *testing.T, got []byte, err error, m *Message) {
	t.Helper()
	want, werr := AppendLine([]byte("prefix"), m)
	if (err != nil) != (werr != nil) || !bytes.Equal(got, want) {
		t.Fatalf("direct writer gave %q (error %v), AppendLine %q (error %v)", got, err, want, werr)
	}
}

// TestDirectLineWriters holds AppendEventLine and AppendDecisionLine to
// AppendLine over every sample event and decision.
func TestDirectLineWriters(t *testing.T) {
	for i, e := range sampleEvents() {
		got, err := AppendEventLine([]byte("prefix"), i+1, e)
		sameLineAsMessage(t, got, err, &Message{V: Version, Type: TypeEvent, N: ptr(i + 1), Event: EncodeEvent(e)})
	}
	for _, d := range sampleDecisions() {
		got, err := AppendDecisionLine([]byte("prefix"), d)
		sameLineAsMessage(t, got, err, &Message{V: Version, Type: TypeDecision, Decision: EncodeDecision(d)})
	}
}

// FuzzAppendEventLine holds AppendEventLine to AppendLine on events of
// any kind with any strings and bytes.
func FuzzAppendEventLine(f *testing.F) {
	f.Add(uint8(sealgate.Delta), "r1", "0", "call_1", []byte(`{"a":`), true, 3)
	f.Add(uint8(sealgate.Ack), "\xff", "\n", `"\`, []byte{}, false, -1)
	f.Fuzz(func(t *testing.T, kind uint8, a, b, c string, raw []byte, flag bool, n int) {
		eventLineExecs.Add()
		e := sealgate.Event{Kind: sealgate.EventKind(kind % 12), Attempt: a, Turn: b, Item: b, Call: c, Tool: a,
			Bytes: raw, Final: raw, HasFinal: flag, Status: sealgate.Status(len(c) % 8), Key: c, OK: flag}
		got, err := AppendEventLine([]byte("prefix"), n, e)
		sameLineAsMessage(t, got, err, &Message{V: Version, Type: TypeEvent, N: &n, Event: EncodeEvent(e)})
	})
}

// FuzzAppendDecisionLine holds AppendDecisionLine to AppendLine on
// decisions of any kind with any strings and args.
func FuzzAppendDecisionLine(f *testing.F) {
	f.Add(uint8(sealgate.Release), "r1", "0", "k", []byte(`{"a":"\"b"}`), true, 3)
	f.Add(uint8(sealgate.PreviewAnswer), "\x1f", "é", "\u2028", []byte{0xff}, false, -1)
	f.Fuzz(func(t *testing.T, kind uint8, a, b, c string, args []byte, flag bool, n int) {
		decisionLineExecs.Add()
		d := sealgate.Decision{Kind: sealgate.DecisionKind(kind % 10), Attempt: a, Item: b, HasItem: flag, Call: c, Tool: a,
			Key: c, Args: sealgate.Sealed(args), Reason: sealgate.Reason(b), Anomaly: sealgate.AnomalyKind(c),
			Preview: sealgate.Preview{Bytes: n, Value: string(args)}}
		got, err := AppendDecisionLine([]byte("prefix"), d)
		sameLineAsMessage(t, got, err, &Message{V: Version, Type: TypeDecision, Decision: EncodeDecision(d)})
	})
}

// sameEventAsUnmarshal fails t when DecodeEventLine reads line and
// Unmarshal and DecodeEvent do not read it, or read another event.
func sameEventAsUnmarshal(t *testing.T, line []byte) (direct bool) {
	t.Helper()
	n, e, ok := DecodeEventLine(line)
	if !ok {
		return false
	}
	m, err := Unmarshal(line)
	if err != nil {
		t.Fatalf("DecodeEventLine read %q, which Unmarshal refuses: %v", line, err)
	}
	if m.Type != TypeEvent {
		t.Fatalf("DecodeEventLine read %q, a %s line", line, m.Type)
	}
	want, err := DecodeEvent(m.Event)
	if err != nil {
		t.Fatalf("DecodeEventLine read %q, which DecodeEvent refuses: %v", line, err)
	}
	if *m.N != n || !reflect.DeepEqual(e, want) {
		t.Fatalf("DecodeEventLine read %q as %d %#v, Unmarshal and DecodeEvent as %d %#v", line, n, e, *m.N, want)
	}
	return true
}

// TestDecodeEventLine reads every sample event line, and every mutation
// of every sample line, both ways: the lines the client writes must take
// the direct path, and what it reads must be what Unmarshal reads.
func TestDecodeEventLine(t *testing.T) {
	direct := 0
	for _, m := range sampleMessages() {
		line, err := json.Marshal(m)
		if err != nil {
			continue
		}
		if sameEventAsUnmarshal(t, line) {
			direct++
		}
		for _, mut := range mutations(line) {
			sameEventAsUnmarshal(t, mut)
		}
	}
	// The 11 sample events but the one json.Marshal refuses.
	if direct != 10 {
		t.Errorf("%d sample lines read directly, want 10", direct)
	}
	for _, line := range []string{
		`{"v":1,"type":"event","n":1,"event":{"kind":"ack","key":"k"}}`,
		`{"v":1,"type":"event","n":1,"event":{"kind":"nosuch"}}`,
		`{"v":1,"type":"event","n":1,"event":{"kind":"close","status":"nosuch"}}`,
		`{"v":1,"type":"event","n":1,"event":{"kind":"delta","bytes64":"e30"}}`,
		`{"v":1,"type":"event","n":1,"event":{"kind":"delta","bytes64":"e3\/="}}`,
		`{"v":1,"type":"event","n":1,"event":{}}`,
		`{"v":1,"type":"event","n":1,"event":{"kind":"open"},"text":"x"}`,
		`{"v":1,"type":"event","event":{"kind":"open"}}`,
		`{"v":1,"type":"done","n":1,"event":{"kind":"open"}}`,
	} {
		if _, _, ok := DecodeEventLine([]byte(line)); ok {
			t.Errorf("DecodeEventLine read %s, which it must leave to Unmarshal", line)
		}
	}
}

// FuzzDecodeEventLine holds DecodeEventLine to Unmarshal and DecodeEvent
// on any line.
func FuzzDecodeEventLine(f *testing.F) {
	for _, m := range sampleMessages() {
		if line, err := json.Marshal(m); err == nil {
			f.Add(line)
		}
	}
	f.Fuzz(func(t *testing.T, line []byte) {
		eventReadExecs.Add()
		sameEventAsUnmarshal(t, line)
	})
}
