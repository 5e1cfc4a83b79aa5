package wire

import (
	"bytes"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/sealgate/sealgate"
)

// Encode writes events as one vendor response body, in SSE framing, such
// that Decode(p, body) gives the same events back (with the turn of the
// decode options: no protocol carries a turn id).
//
// It accepts only what the protocol can say, in the names its decoder
// gives, and says why otherwise: attempts one after another, each opened,
// then closed (disconnected only for the last: it is the body stopping);
// items named as the decoder names them (Responses "N", Chat "C:I",
// Anthropic "ATTEMPT:I", Gemini "C:N"); fragments in valid UTF-8 (they
// travel as JSON strings); finals only in Responses, where every end has
// one; Chat ends only as the block its finish_reason makes; Anthropic ends
// only for calls that received bytes; Gemini calls one after another,
// either whole (one fragment, a JSON value) or as Vertex streams them (the
// fragments exactly the ones the byte rule writes for some pieces, see
// gEnc). No protocol has a cancelled status.
func Encode(p Protocol, events []sealgate.Event) ([]byte, error) {
	var e encoder
	switch p {
	case OpenAIResponses:
		e = &rEnc{}
	case OpenAIChat:
		e = &cEnc{}
	case Anthropic:
		e = &aEnc{}
	case Gemini:
		e = &gEnc{}
	default:
		_, err := ParseProtocol(string(p))
		return nil, err
	}
	var w bytes.Buffer
	var att *encAttempt
	for i, ev := range events {
		fail := func(format string, a ...any) ([]byte, error) {
			return nil, fmt.Errorf("%s: event %d (%s): %s", p, i+1, ev.Kind, fmt.Sprintf(format, a...))
		}
		if ev.Kind == sealgate.Open {
			if att != nil {
				return fail("attempt %s is still open: attempts follow one another", att.id)
			}
			if err := bare("attempt", ev.Attempt, 1<<10); err != nil {
				return fail("%v", err)
			}
			att = &encAttempt{id: ev.Attempt, calls: map[string]*encCall{}}
			if err := e.open(&w, att); err != nil {
				return fail("%v", err)
			}
			continue
		}
		if att == nil || ev.Attempt != att.id {
			return fail("not in the open attempt")
		}
		att.next = nil
		if i+1 < len(events) {
			att.next = &events[i+1]
		}
		var err error
		switch ev.Kind {
		case sealgate.Begin:
			if att.calls[ev.Item] != nil {
				return fail("item %s begun twice", ev.Item)
			}
			for _, what := range [][2]string{{"call id", ev.Call}, {"tool", ev.Tool}, {"item", ev.Item}} {
				if err := bare(what[0], what[1], 1<<10); err != nil {
					return fail("%v", err)
				}
			}
			c := &encCall{item: ev.Item, call: ev.Call, tool: ev.Tool}
			att.calls[ev.Item] = c
			att.order = append(att.order, c)
			err = e.begin(&w, att, c)
		case sealgate.Delta, sealgate.End:
			c := att.calls[ev.Item]
			switch {
			case c == nil:
				return fail("item %s was not begun", ev.Item)
			case c.ended:
				return fail("item %s already ended", ev.Item)
			case ev.Kind == sealgate.Delta && !utf8.Valid(ev.Bytes):
				return fail("fragment is not valid UTF-8: a JSON string cannot carry it")
			case ev.Kind == sealgate.End && ev.HasFinal && !utf8.Valid(ev.Final):
				return fail("final is not valid UTF-8: a JSON string cannot carry it")
			}
			if ev.Kind == sealgate.Delta {
				c.bytes = append(c.bytes, ev.Bytes...)
				err = e.delta(&w, att, c, ev.Bytes)
			} else {
				c.ended = true
				err = e.end(&w, att, c, ev)
			}
		case sealgate.Close:
			if ev.Status == sealgate.Disconnected && i != len(events)-1 {
				return fail("disconnected is the body stopping: only the last event can say it")
			}
			if ev.Status == sealgate.Cancelled || !ev.Status.Valid() {
				return fail("%s has no status %s", p, ev.Status)
			}
			err = e.close(&w, att, ev.Status)
			att = nil
		default:
			return fail("a vendor body carries no %s", ev.Kind)
		}
		if err != nil {
			return fail("%v", err)
		}
	}
	if att != nil {
		return nil, fmt.Errorf("%s: attempt %s is never closed", p, att.id)
	}
	return w.Bytes(), nil
}

type encAttempt struct {
	id    string
	calls map[string]*encCall
	order []*encCall
	n     int             // SSE sequence
	next  *sealgate.Event // the event after the one being encoded, if any
}

type encCall struct {
	item, call, tool string
	bytes            []byte
	ended            bool
	choice, index    int
}

type encoder interface {
	open(w *bytes.Buffer, a *encAttempt) error
	begin(w *bytes.Buffer, a *encAttempt, c *encCall) error
	delta(w *bytes.Buffer, a *encAttempt, c *encCall, b []byte) error
	end(w *bytes.Buffer, a *encAttempt, c *encCall, ev sealgate.Event) error
	close(w *bytes.Buffer, a *encAttempt, st sealgate.Status) error
}

func sseEvent(w *bytes.Buffer, name, data string) {
	if name != "" {
		w.WriteString("event: " + name + "\n")
	}
	w.WriteString("data: " + data + "\n\n")
}

// position reads a decimal position without sign or leading zero.
func position(s string) (int, bool) {
	if s == "" || len(s) > 9 || s[0] == '0' && len(s) > 1 {
		return 0, false
	}
	n, err := strconv.Atoi(s)
	return n, err == nil && n >= 0 && strconv.Itoa(n) == s
}

// pair reads "A:B" positions.
func pair(s string) (int, int, bool) {
	a, b, ok := strings.Cut(s, ":")
	x, ok1 := position(a)
	y, ok2 := position(b)
	return x, y, ok && ok1 && ok2
}

// --- OpenAI Responses ---

type rEnc struct{}

func (rEnc) typed(w *bytes.Buffer, a *encAttempt, typ, rest string) {
	sseEvent(w, typ, `{"type":`+quote(typ)+`,"sequence_number":`+itoa(a.n)+rest+`}`)
	a.n++
}

func (e rEnc) open(w *bytes.Buffer, a *encAttempt) error {
	e.typed(w, a, "response.created", `,"response":{"id":`+quote(a.id)+`,"object":"response","status":"in_progress","output":[]}`)
	return nil
}

func (e rEnc) begin(w *bytes.Buffer, a *encAttempt, c *encCall) error {
	idx, ok := position(c.item)
	if !ok {
		return fmt.Errorf("item %q: Responses items are output indexes (0, 1, ...)", c.item)
	}
	c.index = idx
	e.typed(w, a, "response.output_item.added", `,"output_index":`+itoa(idx)+`,"item":{"type":"function_call","id":"fc_`+itoa(idx)+`","call_id":`+quote(c.call)+`,"name":`+quote(c.tool)+`,"arguments":"","status":"in_progress"}`)
	return nil
}

func (e rEnc) delta(w *bytes.Buffer, a *encAttempt, c *encCall, b []byte) error {
	e.typed(w, a, "response.function_call_arguments.delta", `,"item_id":"fc_`+itoa(c.index)+`","output_index":`+itoa(c.index)+`,"delta":`+quote(string(b)))
	return nil
}

func (e rEnc) end(w *bytes.Buffer, a *encAttempt, c *encCall, ev sealgate.Event) error {
	if !ev.HasFinal {
		return fmt.Errorf("a Responses end always carries the arguments (final)")
	}
	f := quote(string(ev.Final))
	e.typed(w, a, "response.function_call_arguments.done", `,"item_id":"fc_`+itoa(c.index)+`","output_index":`+itoa(c.index)+`,"arguments":`+f)
	e.typed(w, a, "response.output_item.done", `,"output_index":`+itoa(c.index)+`,"item":{"type":"function_call","id":"fc_`+itoa(c.index)+`","call_id":`+quote(c.call)+`,"name":`+quote(c.tool)+`,"arguments":`+f+`,"status":"completed"}`)
	return nil
}

// close writes the terminal event; disconnected writes nothing: the body
// just stops.
func (e rEnc) close(w *bytes.Buffer, a *encAttempt, st sealgate.Status) error {
	id := `"id":` + quote(a.id)
	switch st {
	case sealgate.Complete:
		e.typed(w, a, "response.completed", `,"response":{`+id+`,"status":"completed"}`)
	case sealgate.Truncated:
		e.typed(w, a, "response.incomplete", `,"response":{`+id+`,"status":"incomplete","incomplete_details":{"reason":"max_output_tokens"}}`)
	case sealgate.Failed:
		e.typed(w, a, "response.failed", `,"response":{`+id+`,"status":"failed","error":{"code":"server_error","message":"The server had an error."}}`)
	}
	return nil
}

// --- OpenAI Chat Completions ---

type cEnc struct {
	choices map[int]bool
	ending  []*encCall // the ends still owed by the finish block
}

func (e *cEnc) chunk(w *bytes.Buffer, a *encAttempt, choices string) {
	sseEvent(w, "", `{"id":`+quote(a.id)+`,"object":"chat.completion.chunk","choices":[`+choices+`]}`)
}

func (e *cEnc) open(w *bytes.Buffer, a *encAttempt) error {
	e.choices, e.ending = map[int]bool{0: true}, nil
	e.chunk(w, a, `{"index":0,"delta":{"role":"assistant","content":null},"finish_reason":null}`)
	return nil
}

func (e *cEnc) begin(w *bytes.Buffer, a *encAttempt, c *encCall) error {
	if e.ending != nil {
		return fmt.Errorf("the Chat protocol ends every call of a choice at once, at its finish_reason")
	}
	ci, ti, ok := pair(c.item)
	if !ok {
		return fmt.Errorf("item %q: Chat items are CHOICE:INDEX", c.item)
	}
	c.choice, c.index = ci, ti
	e.choices[ci] = true
	e.chunk(w, a, `{"index":`+itoa(ci)+`,"delta":{"tool_calls":[{"index":`+itoa(ti)+`,"id":`+quote(c.call)+`,"type":"function","function":{"name":`+quote(c.tool)+`}}]},"finish_reason":null}`)
	return nil
}

func (e *cEnc) delta(w *bytes.Buffer, a *encAttempt, c *encCall, b []byte) error {
	if e.ending != nil {
		return fmt.Errorf("a fragment after the finish block began")
	}
	e.chunk(w, a, `{"index":`+itoa(c.choice)+`,"delta":{"tool_calls":[{"index":`+itoa(c.index)+`,"function":{"arguments":`+quote(string(b))+`}}]},"finish_reason":null}`)
	return nil
}

// end: Chat has no per-call end. The first end starts the finish block,
// which must be every call in the order the finish_reason chunks end them
// (choices ascending, calls in begin order), and then close complete.
func (e *cEnc) end(w *bytes.Buffer, a *encAttempt, c *encCall, ev sealgate.Event) error {
	if ev.HasFinal {
		return fmt.Errorf("the Chat protocol carries no final arguments")
	}
	if e.ending == nil {
		e.ending = append([]*encCall{}, a.order...)
		sort.SliceStable(e.ending, func(i, j int) bool { return e.ending[i].choice < e.ending[j].choice })
	}
	if len(e.ending) == 0 || e.ending[0] != c {
		return fmt.Errorf("the Chat protocol ends calls only all together, choices ascending and in begin order")
	}
	e.ending = e.ending[1:]
	return nil
}

func (e *cEnc) close(w *bytes.Buffer, a *encAttempt, st sealgate.Status) error {
	if len(e.ending) > 0 || e.ending != nil && st != sealgate.Complete {
		return fmt.Errorf("the finish block must end every call and close complete")
	}
	if st == sealgate.Complete && e.ending == nil && len(a.order) > 0 {
		return fmt.Errorf("a Chat finish_reason ends every open call: close complete needs their ends first")
	}
	if st == sealgate.Disconnected {
		return nil
	}
	keys := make([]int, 0, len(e.choices))
	for k := range e.choices {
		keys = append(keys, k)
	}
	sort.Ints(keys)
	switch st {
	case sealgate.Failed:
		sseEvent(w, "", `{"id":`+quote(a.id)+`,"object":"chat.completion.chunk","choices":[],"error":{"message":"Internal server error","code":500}}`)
	default:
		for _, k := range keys {
			fr := "stop"
			if st == sealgate.Truncated {
				fr = "length"
			} else {
				for _, c := range a.order {
					if c.choice == k {
						fr = "tool_calls"
					}
				}
			}
			e.chunk(w, a, `{"index":`+itoa(k)+`,"delta":{},"finish_reason":`+quote(fr)+`}`)
		}
	}
	sseEvent(w, "", "[DONE]")
	return nil
}

// --- Anthropic Messages ---

type aEnc struct{}

func (aEnc) typed(w *bytes.Buffer, typ, rest string) {
	sseEvent(w, typ, `{"type":`+quote(typ)+rest+`}`)
}

func (e aEnc) open(w *bytes.Buffer, a *encAttempt) error {
	e.typed(w, "message_start", `,"message":{"id":`+quote(a.id)+`,"type":"message","role":"assistant","content":[],"stop_reason":null,"stop_sequence":null}`)
	return nil
}

func (e aEnc) begin(w *bytes.Buffer, a *encAttempt, c *encCall) error {
	pre, idx, ok := strings.Cut(c.item, ":")
	n, ok2 := position(idx)
	if !ok || !ok2 || pre != a.id {
		return fmt.Errorf("item %q: Anthropic items are ATTEMPT:INDEX (%s:N)", c.item, a.id)
	}
	c.index = n
	e.typed(w, "content_block_start", `,"index":`+itoa(n)+`,"content_block":{"type":"tool_use","id":`+quote(c.call)+`,"name":`+quote(c.tool)+`,"input":{}}`)
	return nil
}

func (e aEnc) delta(w *bytes.Buffer, a *encAttempt, c *encCall, b []byte) error {
	e.typed(w, "content_block_delta", `,"index":`+itoa(c.index)+`,"delta":{"type":"input_json_delta","partial_json":`+quote(string(b))+`}`)
	return nil
}

func (e aEnc) end(w *bytes.Buffer, a *encAttempt, c *encCall, ev sealgate.Event) error {
	if ev.HasFinal {
		return fmt.Errorf("the Anthropic protocol carries no final arguments")
	}
	if len(c.bytes) == 0 {
		return fmt.Errorf("a tool_use that streamed no bytes takes its start input {} as its arguments")
	}
	e.typed(w, "content_block_stop", `,"index":`+itoa(c.index))
	return nil
}

func (e aEnc) close(w *bytes.Buffer, a *encAttempt, st sealgate.Status) error {
	reason := "max_tokens"
	switch st {
	case sealgate.Disconnected:
		return nil
	case sealgate.Failed:
		e.typed(w, "error", `,"error":{"type":"overloaded_error","message":"Overloaded"}`)
		return nil
	case sealgate.Complete:
		reason = "end_turn"
		if len(a.order) > 0 {
			reason = "tool_use"
		}
	}
	e.typed(w, "message_delta", `,"delta":{"stop_reason":`+quote(reason)+`,"stop_sequence":null},"usage":{"output_tokens":1}`)
	e.typed(w, "message_stop", "")
	return nil
}

// --- Gemini ---

// gEnc writes Gemini chunks. A call with one fragment that is a JSON value
// goes whole (functionCall{name, args}); any other goes as Vertex streams
// it: the start, one chunk per piece, and the end. The pieces are read back
// from the fragments, which must be exactly what the byte rule writes for
// them (each fragment one piece, the last the closers). The end is the
// terminal functionCall:{}, except for a call whose end is the last event
// before a close with a finish reason: its last piece chunk goes without
// willContinue and the finish ends it, as Vertex sometimes does.
type gEnc struct {
	cands   map[int]int // calls per candidate
	pending *encCall    // begun, not yet written
	frags   [][]byte
}

func (e *gEnc) chunk(w *bytes.Buffer, a *encAttempt, cands string) {
	sseEvent(w, "", `{"candidates":[`+cands+`],"responseId":`+quote(a.id)+`}`)
}

func (e *gEnc) part(w *bytes.Buffer, a *encAttempt, c *encCall, fc string) {
	e.chunk(w, a, `{"content":{"role":"model","parts":[{"functionCall":{`+fc+`}}]},"index":`+itoa(c.choice)+`}`)
}

func (e *gEnc) open(w *bytes.Buffer, a *encAttempt) error {
	e.cands, e.pending = map[int]int{0: 0}, nil
	e.chunk(w, a, `{"content":{"role":"model","parts":[{"text":""}]},"index":0}`)
	return nil
}

func (e *gEnc) begin(w *bytes.Buffer, a *encAttempt, c *encCall) error {
	if e.pending != nil {
		return fmt.Errorf("the Gemini protocol sends calls one after another: %s has not ended", e.pending.item)
	}
	ci, n, ok := pair(c.item)
	if !ok || n != e.cands[ci] {
		return fmt.Errorf("item %q: Gemini items are CANDIDATE:N, N counting that candidate's calls (next is %d:%d)", c.item, ci, e.cands[ci])
	}
	c.choice = ci
	e.cands[ci]++
	e.pending, e.frags = c, nil
	return nil
}

func (e *gEnc) delta(w *bytes.Buffer, a *encAttempt, c *encCall, b []byte) error {
	if e.pending != c {
		return fmt.Errorf("the Gemini protocol sends calls one after another: a fragment for %s", c.item)
	}
	e.frags = append(e.frags, append([]byte{}, b...))
	return nil
}

func (e *gEnc) end(w *bytes.Buffer, a *encAttempt, c *encCall, ev sealgate.Event) error {
	if e.pending != c || ev.HasFinal {
		return fmt.Errorf("the Gemini protocol ends only the call being sent, with no final")
	}
	e.pending = nil
	id := ""
	if c.call != "pos:"+c.item {
		id = `,"id":` + quote(c.call)
	}
	if len(e.frags) == 1 && validate(e.frags[0]) == nil && len(bytes.Trim(e.frags[0], " \t\r\n")) == len(e.frags[0]) {
		e.part(w, a, c, `"name":`+quote(c.tool)+`,"args":`+string(e.frags[0])+id)
		return nil
	}
	pieces, err := vertexPieces(e.frags, true)
	if err != nil {
		return err
	}
	atFinish := a.next != nil && a.next.Kind == sealgate.Close && a.next.Status != sealgate.Disconnected && len(pieces) > 0
	e.streamed(w, a, c, id, pieces, !atFinish)
	if !atFinish {
		e.part(w, a, c, "")
	}
	return nil
}

// streamed writes a streamed call's start and piece chunks; cont is the
// willContinue of the last chunk.
func (e *gEnc) streamed(w *bytes.Buffer, a *encAttempt, c *encCall, id string, pieces []piece, cont bool) {
	wc := func(b bool) string {
		if b {
			return `,"willContinue":true`
		}
		return ""
	}
	e.part(w, a, c, `"name":`+quote(c.tool)+id+wc(len(pieces) > 0 || cont))
	for i, p := range pieces {
		pc := `{"jsonPath":` + quote(pathString(p.path)) + `,`
		switch p.kind {
		case kString:
			pc += `"stringValue":` + quote(p.text) + wc(p.cont)
		case kNumber:
			if p.text[0] == 'N' || p.text[0] == 'I' || p.text == "-Infinity" {
				pc += `"numberValue":` + quote(p.text)
			} else {
				pc += `"numberValue":` + p.text
			}
		case kBool:
			pc += `"boolValue":` + p.text
		case kNull:
			pc += `"nullValue":"NULL_VALUE"`
		}
		e.part(w, a, c, `"partialArgs":[`+pc+`}]`+wc(i < len(pieces)-1 || cont))
	}
}

func (e *gEnc) close(w *bytes.Buffer, a *encAttempt, st sealgate.Status) error {
	if c := e.pending; c != nil {
		// A call with no end: written as far as its fragments go, every
		// chunk promising more.
		pieces, err := vertexPieces(e.frags, false)
		if err != nil {
			return err
		}
		id := ""
		if c.call != "pos:"+c.item {
			id = `,"id":` + quote(c.call)
		}
		e.streamed(w, a, c, id, pieces, true)
		e.pending = nil
	}
	if st == sealgate.Disconnected {
		return nil
	}
	fr := map[sealgate.Status]string{sealgate.Complete: "STOP", sealgate.Truncated: "MAX_TOKENS", sealgate.Failed: "MALFORMED_FUNCTION_CALL"}[st]
	keys := make([]int, 0, len(e.cands))
	for k := range e.cands {
		keys = append(keys, k)
	}
	sort.Ints(keys)
	var parts []string
	for _, k := range keys {
		parts = append(parts, `{"content":{"role":"model","parts":[{"text":""}]},"finishReason":`+quote(fr)+`,"index":`+itoa(k)+`}`)
	}
	e.chunk(w, a, strings.Join(parts, ","))
	return nil
}
