package peers

import (
	"bytes"
	"fmt"
	"io"

	"github.com/sealgate/sealgate"
	"github.com/sealgate/sealgate/wire"
)

// Body is a vendor response body as the server sends it: SSE events, each
// with its blank line (the SDKs drop a last event that has none), except
// that a faulted body may end inside its last one. Reset ends the response
// with a broken connection instead of a clean end of body.
type Body struct {
	Protocol wire.Protocol
	Events   [][]byte
	Reset    bool
	Faulted  bool // a byte-level fault changed the body: an SDK error on it is expected
}

// Bytes is the body as one stream.
func (b Body) Bytes() []byte { return bytes.Join(b.Events, nil) }

// SplitEvents cuts a body at its blank lines: each piece is one SSE event
// with the blank line that ends it; a tail with no blank line is the last
// piece. Only LF line ends are cut, which is what wire.Encode writes; a
// stored body with CR line ends stays one piece per CR-separated run, which
// the server still delivers whole.
func SplitEvents(body []byte) [][]byte {
	var out [][]byte
	for len(body) > 0 {
		i := bytes.Index(body, []byte("\n\n"))
		if i < 0 {
			out = append(out, body)
			break
		}
		out = append(out, body[:i+2])
		body = body[i+2:]
	}
	return out
}

// Meaning is what a body says, by wire: its normalized events, and for each
// prefix of k whole SSE events, how many of those events the first k SSE
// events produced (After[k]; After[len(Events)] excludes what the end of
// the body itself adds, a close disconnected).
type Meaning struct {
	Events []sealgate.Event
	After  []int
	Err    error // wire's decode error, if the body is not strictly readable
}

// Decode reads b with wire, one SSE event per read, and records after which
// SSE event each normalized event was emitted. wire reads a frame's bytes
// and emits its events before it reads the next frame's, and it looks ahead
// only after a CR or a leading byte order mark, so the count taken at each
// read is exact for bodies with LF line ends.
func (b Body) Decode() Meaning {
	var m Meaning
	r := &eventReader{events: b.Events}
	r.onRead = func(k int) {
		for len(m.After) <= k {
			m.After = append(m.After, len(m.Events))
		}
	}
	m.Err = wire.DecodeFunc(b.Protocol, r, wire.Options{}, func(e sealgate.Event) error {
		m.Events = append(m.Events, e)
		return nil
	})
	for len(m.After) <= len(b.Events) {
		// a decode error stops reading: later SSE events add nothing
		m.After = append(m.After, len(m.Events))
	}
	return m
}

// At is the 1-based index of the normalized event in force once the first
// delivered SSE events have been handled, or after the end of the body
// (eof): the event a release made at that point answers. A release made
// before any event was emitted is placed at event 1.
func (m Meaning) At(delivered int, eof bool) int {
	at := len(m.Events)
	if !eof && delivered < len(m.After) {
		at = m.After[delivered]
	}
	return max(at, 1)
}

// eventReader hands out one SSE event per Read and reports, before each
// read, how many whole events were already handed out.
type eventReader struct {
	events [][]byte
	next   int
	rest   []byte
	onRead func(delivered int)
}

func (r *eventReader) Read(p []byte) (int, error) {
	if len(r.rest) == 0 {
		r.onRead(r.next)
		if r.next == len(r.events) {
			return 0, io.EOF
		}
		r.rest = r.events[r.next]
		r.next++
	}
	n := copy(p, r.rest)
	r.rest = r.rest[n:]
	return n, nil
}

// FaultKind is a byte-level fault between or inside SSE events.
type FaultKind uint8

const (
	NoFault      FaultKind = iota
	DropTerminal           // the protocol's terminal event removed: [DONE], message_stop, response.completed/incomplete/failed, Gemini's finishReason chunks
	DropStops              // every content_block_stop removed (Anthropic)
	CutAfter               // the body ends after SSE event At
	CutInside              // the body ends half way into SSE event At
	ResetInside            // as CutInside, and the connection breaks
	ErrorAfter             // the protocol's error event inserted after SSE event At
	FaultKinds             // how many kinds there are
)

var faultNames = [...]string{NoFault: "none", DropTerminal: "drop-terminal", DropStops: "drop-stops",
	CutAfter: "cut-after", CutInside: "cut-inside", ResetInside: "reset-inside", ErrorAfter: "error-after"}

func (k FaultKind) String() string {
	if int(k) < len(faultNames) {
		return faultNames[k]
	}
	return fmt.Sprintf("fault(%d)", k)
}

// Fault is one byte-level fault. At counts SSE events from 1 and is taken
// modulo the body's length, so that any drawn value names an event.
type Fault struct {
	Kind FaultKind
	At   int
}

func (f Fault) String() string {
	switch f.Kind {
	case CutAfter, CutInside, ResetInside, ErrorAfter:
		return fmt.Sprintf("%s %d", f.Kind, f.At)
	}
	return f.Kind.String()
}

// errorEvents is each protocol's in-stream error, as the vendors send it.
var errorEvents = map[wire.Protocol]string{
	wire.OpenAIChat:      "data: {\"error\":{\"message\":\"The server had an error while processing your request.\",\"type\":\"server_error\"}}\n\n",
	wire.OpenAIResponses: "event: error\ndata: {\"type\":\"error\",\"code\":\"server_error\",\"message\":\"The server had an error.\",\"param\":null}\n\n",
	wire.Anthropic:       "event: error\ndata: {\"type\":\"error\",\"error\":{\"type\":\"overloaded_error\",\"message\":\"Overloaded\"}}\n\n",
	wire.Gemini:          "data: {\"error\":{\"code\":503,\"message\":\"The model is overloaded. Please try again later.\",\"status\":\"UNAVAILABLE\"}}\n\n",
}

// Apply returns the body with the fault applied; the events are not
// modified.
func (f Fault) Apply(b Body) Body {
	n := len(b.Events)
	if n == 0 || f.Kind == NoFault {
		return b
	}
	at := ((f.At-1)%n+n)%n + 1 // 1..n: At itself when it is in range
	out := Body{Protocol: b.Protocol, Faulted: true}
	switch f.Kind {
	case DropTerminal:
		for _, ev := range b.Events {
			if !terminal(b.Protocol, ev) {
				out.Events = append(out.Events, ev)
			}
		}
	case DropStops:
		for _, ev := range b.Events {
			if !bytes.HasPrefix(ev, []byte("event: content_block_stop\n")) {
				out.Events = append(out.Events, ev)
			}
		}
	case CutAfter:
		out.Events = b.Events[:at]
	case CutInside, ResetInside:
		out.Events = append(out.Events, b.Events[:at-1]...)
		ev := b.Events[at-1]
		out.Events = append(out.Events, ev[:len(ev)/2])
		out.Reset = f.Kind == ResetInside
	case ErrorAfter:
		out.Events = append(out.Events, b.Events[:at]...)
		out.Events = append(out.Events, []byte(errorEvents[b.Protocol]))
		out.Events = append(out.Events, b.Events[at:]...)
	}
	return out
}

func terminal(p wire.Protocol, ev []byte) bool {
	switch p {
	case wire.OpenAIChat:
		return bytes.Equal(ev, []byte("data: [DONE]\n\n"))
	case wire.Anthropic:
		return bytes.HasPrefix(ev, []byte("event: message_stop\n"))
	case wire.Gemini:
		// Gemini has no terminal event: the finish is the chunk that
		// carries a finishReason
		return bytes.Contains(ev, []byte(`"finishReason":`))
	case wire.OpenAIResponses:
		for _, t := range []string{"response.completed", "response.incomplete", "response.failed"} {
			if bytes.HasPrefix(ev, []byte("event: "+t+"\n")) {
				return true
			}
		}
	}
	return false
}
