package wire

import (
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/sealgate/sealgate"
)

// Protocol names a vendor stream format.
type Protocol string

const (
	OpenAIResponses Protocol = "openai-responses"
	OpenAIChat      Protocol = "openai-chat"
	Anthropic       Protocol = "anthropic"
	Gemini          Protocol = "gemini"
)

// Protocols lists every supported protocol.
var Protocols = []Protocol{OpenAIResponses, OpenAIChat, Anthropic, Gemini}

// ParseProtocol returns the protocol named s.
func ParseProtocol(s string) (Protocol, error) {
	for _, p := range Protocols {
		if string(p) == s {
			return p, nil
		}
	}
	return "", fmt.Errorf("unknown wire protocol %q (expected openai-responses, openai-chat, anthropic or gemini)", s)
}

// Framing is how the body is cut into vendor events.
type Framing uint8

const (
	SSE       Framing = iota // text/event-stream, as the vendors send it
	JSONL                    // one event's data JSON per line, as some test suites store it
	JSONArray                // one JSON array of event objects, as Gemini/Vertex stream without alt=sse
)

// FramingFor picks the framing of a stored body from its file name.
func FramingFor(path string) Framing {
	if strings.EqualFold(filepath.Ext(path), ".jsonl") {
		return JSONL
	}
	return SSE
}

// Options tune a decoder. The zero value is usable: every zero field takes
// its default.
type Options struct {
	Turn     string  // turn id of every open; default "t1"
	Framing  Framing // default SSE
	MaxLine  int     // longest line, bytes; default 8 MiB
	MaxEvent int     // longest SSE event data, bytes; default 8 MiB
	MaxCalls int     // calls per attempt; default 4096
	MaxID    int     // longest id or tool name, bytes; default 512
}

func (o Options) withDefaults() Options {
	if o.Turn == "" {
		o.Turn = "t1"
	}
	if o.MaxLine <= 0 {
		o.MaxLine = 8 << 20
	}
	if o.MaxEvent <= 0 {
		o.MaxEvent = 8 << 20
	}
	if o.MaxCalls <= 0 {
		o.MaxCalls = 4096
	}
	if o.MaxID <= 0 {
		o.MaxID = 512
	}
	return o
}

// Decode reads one response body and returns its normalized events.
//
// The events always end closed: a body that stops without the protocol's
// terminal event ends its attempt with close disconnected (no error), and a
// body the decoder cannot read strictly ends it with close failed and a
// non-nil error saying where and what. The events returned with an error
// are still the right thing to feed a gate: nothing in them can release a
// call the body did not complete.
func Decode(p Protocol, r io.Reader, o Options) ([]sealgate.Event, error) {
	var out []sealgate.Event
	err := DecodeFunc(p, r, o, func(e sealgate.Event) error {
		out = append(out, e)
		return nil
	})
	return out, err
}

// DecodeFunc is Decode with each event handed to emit as soon as it is
// decided, so that a caller can gate a live stream without holding it. An
// error from emit stops decoding and is returned as is.
func DecodeFunc(p Protocol, r io.Reader, o Options, emit func(sealgate.Event) error) error {
	o = o.withDefaults()
	if err := bare("turn", o.Turn, o.MaxID); err != nil {
		return err
	}
	s := &sink{o: o, emit: emit}
	var h handler
	switch p {
	case OpenAIResponses:
		h = &responses{s: s}
	case OpenAIChat:
		h = &chat{s: s}
	case Anthropic:
		h = &anthropic{s: s}
	case Gemini:
		h = &gemini{s: s}
	default:
		_, err := ParseProtocol(string(p))
		return err
	}
	fr := newFrameReader(r, o.Framing == JSONL, o.MaxLine, o.MaxEvent)
	fr.array = o.Framing == JSONArray
	fail := func(err error) error {
		if s.emitErr != nil {
			return s.emitErr
		}
		if s.state == live || s.state == dead {
			s.closeWith(sealgate.Failed)
		}
		if s.emitErr != nil {
			return s.emitErr
		}
		return fmt.Errorf("%s: %w", p, err)
	}
	for {
		f, err := fr.next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return fail(err)
		}
		if err := validate(f.data); err != nil && !isDone(p, f.data) {
			if !f.terminated {
				break // the body was cut inside its last event: a disconnection
			}
			return fail(&posError{Line: f.line, Offset: f.offset, Msg: err.Error()})
		}
		if err := h.frame(f); err != nil {
			if s.emitErr != nil {
				return s.emitErr
			}
			var pe *posError
			if !errors.As(err, &pe) {
				err = &posError{Line: f.line, Offset: f.offset, Err: err}
			}
			return fail(err)
		}
		if s.emitErr != nil {
			return s.emitErr
		}
	}
	// End of the body. Only a protocol's own terminal event completes an
	// attempt (for Gemini, the end of a body whose candidates all
	// finished); whatever was seen last, an attempt still open was cut.
	// A JSON array stream has a terminal of its own, the closing ]: a body
	// without it was cut, whatever its chunks said.
	if e, ok := h.(interface{ eof() }); ok && (!fr.array || fr.closed) {
		e.eof()
	}
	if s.state == live || s.state == dead {
		s.closeWith(sealgate.Disconnected)
	}
	return s.emitErr
}

// ErrUnsupported marks a stream shape the decoder refuses to interpret.
var ErrUnsupported = errors.New("unsupported")

func isDone(p Protocol, data []byte) bool {
	return p == OpenAIChat && string(data) == "[DONE]"
}

// handler is one protocol's decoder.
type handler interface {
	frame(f frame) error
}

type attemptState uint8

const (
	idle     attemptState = iota // no attempt open
	live                         // an attempt is open and trusted
	draining                     // its close was emitted; waiting for the protocol's terminal event
	dead                         // a second start arrived inside it: reported, then ignored until its terminal event
)

// sink emits events and keeps the attempt state the four decoders share.
type sink struct {
	o       Options
	emit    func(sealgate.Event) error
	emitErr error
	state   attemptState
	cur     string // attempt id
	n       int    // attempts opened, for positional ids
	calls   int
}

func (s *sink) put(e sealgate.Event) {
	if s.emitErr == nil {
		s.emitErr = s.emit(e)
	}
}

// open starts an attempt; id "" takes the positional id a<N>.
func (s *sink) open(id string) error {
	if id == "" {
		id = "a" + strconv.Itoa(s.n+1)
	}
	if err := bare("attempt id", id, s.o.MaxID); err != nil {
		return err
	}
	s.n++
	s.cur, s.state, s.calls = id, live, 0
	s.put(sealgate.OpenEvent(id, s.o.Turn))
	return nil
}

// splice reports a second start inside the open attempt: the normalized
// form of that anomaly is an open that reuses the attempt's id (SPEC
// reopen), which poisons it. Everything up to the protocol's terminal event
// is then ignored: it belongs to neither generation in a trustworthy way.
func (s *sink) splice() {
	s.put(sealgate.OpenEvent(s.cur, s.o.Turn))
	s.state = dead
}

// closeWith emits the close of the open attempt; a dead one closes failed
// (its close is silent in the gate anyway).
func (s *sink) closeWith(st sealgate.Status) {
	if s.state == dead {
		st = sealgate.Failed
	}
	s.put(sealgate.CloseEvent(s.cur, st))
	s.state = draining
}

// terminal handles a protocol's terminal event: the open attempt closes
// with st (failed if it is dead) and the sink waits for the next one. A
// terminal event with no attempt open is the error none.
func (s *sink) terminal(st sealgate.Status, none string) error {
	switch s.state {
	case idle:
		return errors.New(none)
	case live, dead:
		s.closeWith(st)
	}
	s.state = idle
	return nil
}

// typedFrame reads a frame whose object names its own type, as Responses
// and Anthropic events do; an SSE event name must agree with it.
func typedFrame(f frame) (obj, string, error) {
	o, err := parseFrame(f)
	if err != nil {
		return o, "", err
	}
	typ, err := o.needStr("type")
	if err != nil {
		return o, "", err
	}
	if f.event != "" && f.event != typ {
		return o, "", fmt.Errorf("SSE event %q carries a %q payload", f.event, typ)
	}
	return o, typ, nil
}

func (s *sink) begin(item, call, tool string) error {
	if err := bare("call id", call, s.o.MaxID); err != nil {
		return err
	}
	if err := bare("tool name", tool, s.o.MaxID); err != nil {
		return err
	}
	if s.calls >= s.o.MaxCalls {
		return fmt.Errorf("more than %d calls in one attempt", s.o.MaxCalls)
	}
	s.calls++
	s.put(sealgate.BeginEvent(s.cur, item, call, tool))
	return nil
}

func (s *sink) delta(item string, b []byte) {
	s.put(sealgate.DeltaEvent(s.cur, item, b))
}

func (s *sink) end(item string) { s.put(sealgate.EndEvent(s.cur, item)) }

func (s *sink) endFinal(item string, final []byte) {
	s.put(sealgate.EndFinalEvent(s.cur, item, final))
}

// bare checks that an id can stand as a bare token of a scenario line: not
// empty, no blank or quote, printable, not "-" (the "no attempt" mark).
func bare(what, s string, max int) error {
	if s == "" {
		return fmt.Errorf("%s: empty", what)
	}
	if len(s) > max {
		return fmt.Errorf("%s: longer than %d bytes", what, max)
	}
	if s == "-" {
		return fmt.Errorf("%s: %q cannot stand as a token", what, s)
	}
	if !utf8.ValidString(s) {
		return fmt.Errorf("%s %q: not UTF-8", what, s)
	}
	for _, r := range s {
		if r == '"' || unicode.IsSpace(r) || !unicode.IsGraphic(r) {
			return fmt.Errorf("%s %q: contains %q, which a bare token cannot hold", what, s, r)
		}
	}
	return nil
}

func itoa(n int) string { return strconv.Itoa(n) }

// parseFrame validates and reads a frame's data as a JSON object.
func parseFrame(f frame) (obj, error) {
	o, err := parseObj(f.data)
	if err != nil {
		return o, fmt.Errorf("event data: %v", err)
	}
	return o, nil
}
