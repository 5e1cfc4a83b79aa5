// Package protocol is the stdio protocol's lines (docs/protocol.md): the
// messages, their JSON members, and the codecs between them and the
// project's events, decisions, configurations and capabilities. Both sides
// of package stdiogate, the client and Serve, encode and decode here, so
// they cannot drift apart; no user of stdiogate needs these types.
package protocol

import (
	"bufio"
	"bytes"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"slices"
	"unicode/utf8"

	"github.com/go-json-experiment/json"

	"github.com/sealgate/sealgate"
	"github.com/sealgate/sealgate/check"
)

// Version is the protocol version every line carries in "v".
const Version = 1

// Message types. The client writes config and event lines; the gate
// answers a config with hello or refused, and an event with its decision
// lines and then done, or with error.
const (
	TypeConfig   = "config"
	TypeEvent    = "event"
	TypeHello    = "hello"
	TypeRefused  = "refused"
	TypeDecision = "decision"
	TypeDone     = "done"
	TypeError    = "error"
)

// Message is one line of the protocol, either way. Which members a line
// may carry depends on its Type (docs/protocol.md); Check says whether
// they fit.
type Message struct {
	V    int    `json:"v"`
	Type string `json:"type"`
	// N is the 1-based index of the event in the run: on event, done and
	// (when the gate knows it) error lines.
	N *int `json:"n,omitzero"`
	// config
	Config *ConfigJSON `json:"config,omitzero"`
	Ledger string      `json:"ledger,omitzero"`
	// event
	Event *EventJSON `json:"event,omitzero"`
	// hello
	Name         string    `json:"name,omitzero"`
	Capabilities *CapsJSON `json:"capabilities,omitzero"`
	// decision
	Decision *DecisionJSON `json:"decision,omitzero"`
	// done, for a gate that claims retained
	Retained *int `json:"retained,omitzero"`
	// refused, error
	Text string `json:"text,omitzero"`
}

// ConfigJSON is a sealgate.Config on the wire.
type ConfigJSON struct {
	Tools   []ToolJSON `json:"tools"`
	Release string     `json:"release"` // after-turn | per-call
	Batch   string     `json:"batch"`   // independent | atomic
	Limits  LimitsJSON `json:"limits"`
}

// ToolJSON is a sealgate.Tool on the wire. Schema is the schema's JSON text
// as a string, exactly as configured.
type ToolJSON struct {
	Name    string     `json:"name"`
	Schema  string     `json:"schema"`
	Allow   *AllowJSON `json:"allow,omitzero"`
	Early   bool       `json:"early"`
	Idem    IdemJSON   `json:"idem"`
	Secrets []string   `json:"secrets"`
}

// AllowJSON is an authorization rule.
type AllowJSON struct {
	Field  string   `json:"field"`
	Values []string `json:"values"`
}

// IdemJSON is an idempotency key rule: mode args, call or fields.
type IdemJSON struct {
	Mode   string   `json:"mode"`
	Fields []string `json:"fields,omitzero"`
}

// LimitsJSON is sealgate.Limits on the wire.
type LimitsJSON struct {
	CallBytes    int `json:"call_bytes"`
	TurnBytes    int `json:"turn_bytes"`
	Calls        int `json:"calls"`
	Depth        int `json:"depth"`
	PreviewBytes int `json:"preview_bytes"`
}

// EventJSON is a sealgate.Event on the wire. Bytes and Final travel as
// standard base64 (RFC 4648 with padding), because a fragment may split a
// UTF-8 sequence, which a JSON string cannot carry. Final64 is absent when
// the end has no final.
type EventJSON struct {
	Kind    string  `json:"kind"`
	Attempt string  `json:"attempt,omitzero"`
	Turn    string  `json:"turn,omitzero"`
	Item    string  `json:"item,omitzero"`
	Call    string  `json:"call,omitzero"`
	Tool    string  `json:"tool,omitzero"`
	Bytes64 string  `json:"bytes64,omitzero"`
	Final64 *string `json:"final64,omitzero"`
	Status  string  `json:"status,omitzero"`
	Key     string  `json:"key,omitzero"`
	OK      *bool   `json:"ok,omitzero"`
}

// DecisionJSON is a sealgate.Decision on the wire, without At (the event
// it answers gives it). Args is the released text as a JSON string, or
// Args64 its bytes in base64 (for text that is not UTF-8); exactly one of
// them on a release. Item is absent on an anomaly that names no item.
type DecisionJSON struct {
	Kind    string       `json:"kind"`
	Attempt string       `json:"attempt,omitzero"`
	Item    *string      `json:"item,omitzero"`
	Call    string       `json:"call,omitzero"`
	Tool    string       `json:"tool,omitzero"`
	Key     string       `json:"key,omitzero"`
	Args    *string      `json:"args,omitzero"`
	Args64  *string      `json:"args64,omitzero"`
	Reason  string       `json:"reason,omitzero"`
	Anomaly string       `json:"anomaly,omitzero"`
	Preview *PreviewJSON `json:"preview,omitzero"`
}

// PreviewJSON is a preview answer: bytes received, and the value (compact
// JSON, or "-").
type PreviewJSON struct {
	Bytes int    `json:"bytes"`
	Value string `json:"value"`
}

// CapsJSON is check.Capabilities on the wire, in the gate's hello.
type CapsJSON struct {
	Full       bool     `json:"full"`
	Decisions  []string `json:"decisions"`
	Peeks      bool     `json:"peeks"`
	Acks       bool     `json:"acks"`
	Restarts   bool     `json:"restarts"`
	Schemas    bool     `json:"schemas"`
	Reasons    bool     `json:"reasons"`
	Retained   bool     `json:"retained"`
	SplitRunes bool     `json:"split_runes"`
	// KillRestarts asks the client to make each restart a real one (kill
	// the process and start it again) rather than a new config line with
	// the same ledger, for a gate whose state outlives a config line.
	KillRestarts bool `json:"kill_restarts,omitzero"`
}

// Marshal renders a message as one line, newline included.
func Marshal(m *Message) ([]byte, error) {
	return AppendLine(nil, m)
}

// AppendLine appends a message as one line, newline included, to dst: a
// writer that reuses dst allocates nothing per line. Event, decision, done
// and error lines take a direct path (encodeFast); the rest, and any
// string it does not take, go through json.Marshal, with the same bytes.
func AppendLine(dst []byte, m *Message) ([]byte, error) {
	if out, ok := encodeFast(dst, m); ok {
		return out, nil
	}
	b, err := json.Marshal(m)
	if err != nil {
		return dst, fmt.Errorf("encode %s line: %w", m.Type, err)
	}
	return append(append(dst, b...), '\n'), nil
}

// Unmarshal reads one line strictly: one JSON object, no unknown or
// duplicate member, valid UTF-8, version 1, and members that fit its type.
// The lines of every event are first tried by decodeFast, which reads only
// what the strict decoder would read the same way and leaves the rest to
// it, errors included.
func Unmarshal(line []byte) (*Message, error) {
	m, ok := decodeFast(line)
	if !ok {
		m = new(Message)
		if err := json.Unmarshal(line, m, json.RejectUnknownMembers(true)); err != nil {
			return nil, fmt.Errorf("not a protocol line: %w", err)
		}
	}
	if m.V != Version {
		return nil, fmt.Errorf("version %d, want %d", m.V, Version)
	}
	return m, m.Check()
}

// lineMembers are the members whose presence depends on a line's type, in
// the order Check names them.
var lineMembers = [...]string{"n", "config", "ledger", "event", "name", "capabilities", "decision", "retained", "text"}

// Each has* bit is the member of lineMembers at its index.
const (
	hasN = 1 << iota
	hasConfig
	hasLedger
	hasEvent
	hasName
	hasCapabilities
	hasDecision
	hasRetained
	hasText
)

// lineShapes is, for each type, the members it needs and those it may
// have besides.
var lineShapes = map[string]struct{ need, may int }{
	TypeConfig:   {need: hasConfig | hasLedger},
	TypeEvent:    {need: hasN | hasEvent},
	TypeHello:    {need: hasCapabilities, may: hasName},
	TypeRefused:  {may: hasText},
	TypeDecision: {need: hasDecision},
	TypeDone:     {need: hasN, may: hasRetained},
	TypeError:    {need: hasText, may: hasN},
}

// Check says whether the message's members fit its type.
func (m *Message) Check() error {
	shape, ok := lineShapes[m.Type]
	if !ok {
		return fmt.Errorf("unknown message type %q", m.Type)
	}
	has := 0
	for bit, on := range [...]bool{m.N != nil, m.Config != nil, m.Ledger != "", m.Event != nil, m.Name != "",
		m.Capabilities != nil, m.Decision != nil, m.Retained != nil, m.Text != ""} {
		if on {
			has |= 1 << bit
		}
	}
	for i, name := range lineMembers {
		if shape.need&(1<<i) != 0 && has&(1<<i) == 0 {
			return fmt.Errorf("%s line without %q", m.Type, name)
		}
	}
	for i, name := range lineMembers {
		if has&(1<<i) != 0 && (shape.need|shape.may)&(1<<i) == 0 {
			return fmt.Errorf("%s line with %q, which it does not take", m.Type, name)
		}
	}
	return nil
}

// LineReader reads lines of at most max bytes, so that a gate that never
// ends a line cannot make the reader allocate without bound.
type LineReader struct {
	r   *bufio.Reader
	max int
}

// NewLineReader reads lines from r, each at most max bytes.
func NewLineReader(r io.Reader, max int) *LineReader {
	return &LineReader{r: bufio.NewReaderSize(r, 64<<10), max: max}
}

// ErrLineTooLong is a line past the reader's bound.
var ErrLineTooLong = errors.New("line too long")

// ReadLine returns the next line without its newline (and a "\r" before
// it); io.EOF at the end, io.ErrUnexpectedEOF for a last line with no
// newline.
func (l *LineReader) ReadLine() ([]byte, error) {
	var line []byte
	for {
		chunk, err := l.r.ReadSlice('\n')
		if len(line)+len(chunk) > l.max+1 {
			return nil, fmt.Errorf("%w: more than %d bytes", ErrLineTooLong, l.max)
		}
		line = append(line, chunk...)
		switch {
		case err == nil:
			line = bytes.TrimSuffix(line[:len(line)-1], []byte("\r"))
			return line, nil
		case errors.Is(err, bufio.ErrBufferFull):
			continue
		case errors.Is(err, io.EOF) && len(line) > 0:
			return nil, fmt.Errorf("%w: last line %q has no newline", io.ErrUnexpectedEOF, Clip(line))
		default:
			return nil, err
		}
	}
}

// Ready reports whether a whole line is already buffered, so that the
// next ReadLine returns without reading: a writer that answers line by
// line can hold its answers back until the reader would wait, and send a
// batch of them in one write.
func (l *LineReader) Ready() bool {
	b, _ := l.r.Peek(l.r.Buffered())
	return bytes.IndexByte(b, '\n') >= 0
}

// MaxLineBytes bounds every line either side reads: far more than the
// largest fragment or release of the default limits (1 MiB call-bytes,
// base64-encoded), and a bound on what a broken peer can make the other
// side allocate.
const MaxLineBytes = 64 << 20

func Clip(b []byte) string {
	if len(b) > 200 {
		return string(b[:200]) + "..."
	}
	return string(b)
}

// EncodeConfig puts a configuration on the wire.
func EncodeConfig(c sealgate.Config) *ConfigJSON {
	out := &ConfigJSON{Release: c.Release.String(), Batch: c.Batch.String(), Tools: []ToolJSON{},
		Limits: LimitsJSON{c.Limits.CallBytes, c.Limits.TurnBytes, c.Limits.Calls, c.Limits.Depth, c.Limits.PreviewBytes}}
	for _, t := range c.Tools {
		tj := ToolJSON{Name: t.Name, Schema: t.Schema, Early: t.Early, Secrets: append([]string{}, t.Secrets...),
			Idem: IdemJSON{Mode: idemModes[t.Idem.Mode], Fields: t.Idem.Fields}}
		if t.Allow != nil {
			tj.Allow = &AllowJSON{Field: t.Allow.Field, Values: append([]string{}, t.Allow.Values...)}
		}
		out.Tools = append(out.Tools, tj)
	}
	return out
}

var idemModes = map[sealgate.IdemMode]string{sealgate.IdemArgs: "args", sealgate.IdemCall: "call", sealgate.IdemFields: "fields"}

// DecodeConfig reads a configuration off the wire. It checks the words;
// whether the configuration is acceptable is the gate's to say.
func DecodeConfig(c *ConfigJSON) (sealgate.Config, error) {
	cfg := sealgate.Config{Limits: sealgate.Limits{CallBytes: c.Limits.CallBytes, TurnBytes: c.Limits.TurnBytes,
		Calls: c.Limits.Calls, Depth: c.Limits.Depth, PreviewBytes: c.Limits.PreviewBytes}}
	switch c.Release {
	case "after-turn":
		cfg.Release = sealgate.AfterTurn
	case "per-call":
		cfg.Release = sealgate.PerCall
	default:
		return cfg, fmt.Errorf("config: release %q, want after-turn or per-call", c.Release)
	}
	switch c.Batch {
	case "independent":
		cfg.Batch = sealgate.Independent
	case "atomic":
		cfg.Batch = sealgate.Atomic
	default:
		return cfg, fmt.Errorf("config: batch %q, want independent or atomic", c.Batch)
	}
	for i, t := range c.Tools {
		tool := sealgate.Tool{Name: t.Name, Schema: t.Schema, Early: t.Early, Secrets: t.Secrets}
		found := false
		for mode, w := range idemModes {
			if w == t.Idem.Mode {
				tool.Idem, found = sealgate.Idem{Mode: mode, Fields: t.Idem.Fields}, true
			}
		}
		if !found {
			return cfg, fmt.Errorf("config: tool %d (%q): idem mode %q, want args, call or fields", i+1, t.Name, t.Idem.Mode)
		}
		if t.Allow != nil {
			tool.Allow = &sealgate.Allow{Field: t.Allow.Field, Values: t.Allow.Values}
		}
		cfg.Tools = append(cfg.Tools, tool)
	}
	return cfg, nil
}

var b64 = base64.StdEncoding

// EncodeEvent puts an event on the wire.
func EncodeEvent(e sealgate.Event) *EventJSON {
	out := &EventJSON{Kind: e.Kind.String()}
	switch e.Kind {
	case sealgate.Open:
		out.Attempt, out.Turn = e.Attempt, e.Turn
	case sealgate.Begin:
		out.Attempt, out.Item, out.Call, out.Tool = e.Attempt, e.Item, e.Call, e.Tool
	case sealgate.Delta:
		out.Attempt, out.Item, out.Bytes64 = e.Attempt, e.Item, b64.EncodeToString(e.Bytes)
	case sealgate.End:
		out.Attempt, out.Item = e.Attempt, e.Item
		if e.HasFinal {
			f := b64.EncodeToString(e.Final)
			out.Final64 = &f
		}
	case sealgate.Close:
		out.Attempt, out.Status = e.Attempt, e.Status.String()
	case sealgate.Ack:
		ok := e.OK
		out.Key, out.OK = e.Key, &ok
	case sealgate.Peek:
		out.Attempt, out.Item = e.Attempt, e.Item
	}
	return out
}

// DecodeEvent reads an event off the wire.
func DecodeEvent(j *EventJSON) (sealgate.Event, error) {
	kind, ok := sealgate.ParseEventKind(j.Kind)
	if !ok {
		return sealgate.Event{}, fmt.Errorf("event: unknown kind %q", j.Kind)
	}
	e := sealgate.Event{Kind: kind, Attempt: j.Attempt, Turn: j.Turn, Item: j.Item, Call: j.Call, Tool: j.Tool, Key: j.Key}
	if j.Bytes64 != "" {
		b, err := b64.DecodeString(j.Bytes64)
		if err != nil {
			return e, fmt.Errorf("event %s: bytes64: %w", j.Kind, err)
		}
		e.Bytes = b
	}
	if j.Final64 != nil {
		b, err := b64.DecodeString(*j.Final64)
		if err != nil {
			return e, fmt.Errorf("event %s: final64: %w", j.Kind, err)
		}
		e.Final, e.HasFinal = b, true
	}
	if j.Status != "" {
		s, ok := sealgate.ParseStatus(j.Status)
		if !ok {
			return e, fmt.Errorf("event %s: unknown status %q", j.Kind, j.Status)
		}
		e.Status = s
	}
	if j.OK != nil {
		e.OK = *j.OK
	}
	if kind == sealgate.Ack && j.OK == nil {
		return e, errors.New(`event ack: no "ok"`)
	}
	return e, nil
}

// EncodeDecision puts a decision on the wire: release args as a string
// when they are UTF-8, in base64 otherwise.
func EncodeDecision(d sealgate.Decision) *DecisionJSON {
	out := &DecisionJSON{Kind: d.Kind.String(), Attempt: d.Attempt}
	item := d.Item
	switch d.Kind {
	case sealgate.Release:
		out.Item, out.Call, out.Tool, out.Key = &item, d.Call, d.Tool, d.Key
		if s := string(d.Args); isUTF8(s) {
			out.Args = &s
		} else {
			a := b64.EncodeToString(d.Args)
			out.Args64 = &a
		}
	case sealgate.Reject:
		out.Item, out.Reason = &item, string(d.Reason)
	case sealgate.Anomaly:
		if d.HasItem {
			out.Item = &item
		}
		out.Anomaly, out.Key = string(d.Anomaly), d.Key
	case sealgate.Compensate, sealgate.Reconcile:
		out.Item, out.Key = &item, d.Key
	case sealgate.PreviewAnswer:
		out.Item = &item
		out.Preview = &PreviewJSON{Bytes: d.Preview.Bytes, Value: d.Preview.Value}
	}
	return out
}

func isUTF8(s string) bool { return utf8.ValidString(s) }

// DecodeDecision reads a decision off the wire and checks that it has what
// its kind needs (SPEC section 7), so that a gate's mistake in the
// protocol is told apart from a wrong verdict.
func DecodeDecision(j *DecisionJSON) (sealgate.Decision, error) {
	kind, ok := sealgate.ParseDecisionKind(j.Kind)
	if !ok || kind == sealgate.Refused {
		return sealgate.Decision{}, fmt.Errorf("decision: unknown kind %q", j.Kind)
	}
	d := sealgate.Decision{Kind: kind, Attempt: j.Attempt, Call: j.Call, Tool: j.Tool, Key: j.Key,
		Reason: sealgate.Reason(j.Reason), Anomaly: sealgate.AnomalyKind(j.Anomaly)}
	if j.Item != nil {
		d.Item, d.HasItem = *j.Item, kind == sealgate.Anomaly
	}
	bad := func(format string, args ...any) (sealgate.Decision, error) {
		return d, fmt.Errorf("decision %s: "+format, append([]any{j.Kind}, args...)...)
	}
	// what each kind carries, and nothing else
	type field struct {
		name string
		on   bool
	}
	fields := []field{{"attempt", j.Attempt != ""}, {"item", j.Item != nil}, {"call", j.Call != ""},
		{"tool", j.Tool != ""}, {"key", j.Key != ""}, {"args", j.Args != nil}, {"args64", j.Args64 != nil},
		{"reason", j.Reason != ""}, {"anomaly", j.Anomaly != ""}, {"preview", j.Preview != nil}}
	need, may := decisionNeeds[kind], decisionMays[kind]
	for _, f := range fields {
		if f.on && !slices.Contains(need, f.name) && !slices.Contains(may, f.name) {
			return bad("has %q, which it does not take", f.name)
		}
	}
	for _, n := range need {
		for _, f := range fields {
			if f.name == n && !f.on {
				return bad("has no %q", n)
			}
		}
	}
	switch kind {
	case sealgate.Release:
		switch {
		case j.Args != nil && j.Args64 != nil:
			return bad(`has both "args" and "args64"`)
		case j.Args != nil:
			d.Args = sealgate.Sealed(*j.Args)
		case j.Args64 != nil:
			b, err := b64.DecodeString(*j.Args64)
			if err != nil {
				return bad("args64: %v", err)
			}
			d.Args = sealgate.Sealed(b)
		default:
			return bad(`has neither "args" nor "args64"`)
		}
	case sealgate.Reject:
		if !d.Reason.Valid() {
			return bad("unknown reason %q", j.Reason)
		}
	case sealgate.Anomaly:
		if !d.Anomaly.Valid() {
			return bad("unknown anomaly %q", j.Anomaly)
		}
		if d.Attempt == "-" {
			d.Attempt = ""
		}
	case sealgate.PreviewAnswer:
		d.Preview = sealgate.Preview{Bytes: j.Preview.Bytes, Value: j.Preview.Value}
	}
	return d, nil
}

// decisionNeeds is the members each decision kind must carry, besides
// kind (SPEC section 7).
var decisionNeeds = map[sealgate.DecisionKind][]string{
	sealgate.Release:       {"attempt", "item", "call", "tool", "key"},
	sealgate.Reject:        {"attempt", "item", "reason"},
	sealgate.Anomaly:       {"anomaly"},
	sealgate.Compensate:    {"attempt", "item", "key"},
	sealgate.Reconcile:     {"attempt", "item", "key"},
	sealgate.PreviewAnswer: {"attempt", "item", "preview"},
}

// decisionMays is the members a decision kind may carry besides those it
// needs.
var decisionMays = map[sealgate.DecisionKind][]string{
	sealgate.Release: {"args", "args64"},
	sealgate.Anomaly: {"attempt", "item", "key"},
}

// EncodeCaps puts capabilities on the wire.
func EncodeCaps(c check.Capabilities) *CapsJSON {
	out := &CapsJSON{Full: c.Full, Peeks: c.Peeks, Acks: c.Acks, Restarts: c.Restarts, Schemas: c.Schemas,
		Reasons: c.Reasons, Retained: c.Retained, SplitRunes: c.SplitRunes, Decisions: []string{}}
	for k := sealgate.Release; k < sealgate.Refused; k++ {
		if c.Decides&check.Decisions(k) != 0 {
			out.Decisions = append(out.Decisions, k.String())
		}
	}
	return out
}

// DecodeCaps reads capabilities off the wire.
func DecodeCaps(j *CapsJSON) (check.Capabilities, error) {
	c := check.Capabilities{Full: j.Full, Peeks: j.Peeks, Acks: j.Acks, Restarts: j.Restarts, Schemas: j.Schemas,
		Reasons: j.Reasons, Retained: j.Retained, SplitRunes: j.SplitRunes}
	for _, w := range j.Decisions {
		k, ok := sealgate.ParseDecisionKind(w)
		if !ok || k == sealgate.Refused {
			return c, fmt.Errorf("capabilities: unknown decision kind %q", w)
		}
		c.Decides |= check.Decisions(k)
	}
	if c.Full {
		want := check.FullCapabilities()
		c.Decides |= check.Decisions(sealgate.Refused)
		if c != want {
			claimed := c
			claimed.Full = false
			return c, fmt.Errorf("capabilities: full claims everything, but the hello claims only %s", claimed)
		}
	}
	return c, nil
}
