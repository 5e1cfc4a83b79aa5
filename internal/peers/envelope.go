package peers

import (
	"bytes"
	"encoding/json"
	"strconv"

	"github.com/sealgate/sealgate/wire"
)

// Envelope values written into every enriched body. They are fixed so that
// a body is the same bytes on every run; their shapes are those of the
// captures in the shared vendor fixtures.
const (
	envelopeCreated   = 1785273853
	envelopeModel     = "gpt-peer"
	envelopeClaude    = "claude-peer"
	envelopeAnthUsage = `"usage":{"input_tokens":1,"cache_creation_input_tokens":0,"cache_read_input_tokens":0,"output_tokens":1}`
	envelopeRespUsage = `"usage":{"input_tokens":1,"input_tokens_details":{"cached_tokens":0},"output_tokens":1,"output_tokens_details":{"reasoning_tokens":0},"total_tokens":2}`
)

// Enrich gives a body that wire.Encode wrote the envelope fields a vendor's
// real stream carries and that SDKs validate before any tool logic runs:
// Chat chunks get created, model and system_fingerprint; Responses
// response.created gets created_at, model and the nulls of a fresh
// response, and the terminal event gets object, created_at, model, usage
// and output (the function calls as their output_item.done, or as far as
// they streamed); Anthropic message_start gets model and usage. Only
// envelope fields are added, so wire decodes the result to the same events
// (TestEnrichKeepsMeaning); an SSE event of another shape, a body that is
// already enriched and Gemini bodies pass unchanged, and the SSE events
// stay one for one, so a fault placed by event index cuts the same place.
func Enrich(p wire.Protocol, body []byte) []byte {
	events := SplitEvents(body)
	var e enricher
	var out bytes.Buffer
	for _, ev := range events {
		name, data, ok := sseParts(ev)
		if !ok {
			out.Write(ev)
			continue
		}
		var nd []byte
		switch p {
		case wire.OpenAIChat:
			nd = enrichChat(data)
		case wire.OpenAIResponses:
			nd = e.responses(name, data)
		case wire.Anthropic:
			nd = enrichAnthropic(name, data)
		}
		if nd == nil {
			out.Write(ev)
			continue
		}
		if name != "" {
			out.WriteString("event: " + name + "\n")
		}
		out.WriteString("data: ")
		out.Write(nd)
		out.WriteString("\n\n")
	}
	return out.Bytes()
}

// sseParts reads an event as wire.Encode writes it: an optional event line,
// one data line, the blank line.
func sseParts(ev []byte) (name string, data []byte, ok bool) {
	rest, ok := bytes.CutSuffix(ev, []byte("\n\n"))
	if !ok {
		return "", nil, false
	}
	if after, found := bytes.CutPrefix(rest, []byte("event: ")); found {
		n, r, found := bytes.Cut(after, []byte("\n"))
		if !found {
			return "", nil, false
		}
		name, rest = string(n), r
	}
	data, ok = bytes.CutPrefix(rest, []byte("data: "))
	if !ok || bytes.IndexByte(data, '\n') >= 0 || len(data) < 2 || data[0] != '{' || data[len(data)-1] != '}' {
		return "", nil, false
	}
	return name, data, true
}

// enrichChat adds created, model and system_fingerprint after a chunk's
// object, where the captures have them.
func enrichChat(data []byte) []byte {
	const obj = `,"object":"chat.completion.chunk",`
	if !bytes.HasPrefix(data, []byte(`{"id":`)) || bytes.Contains(data, []byte(`"created":`)) {
		return nil
	}
	i := bytes.Index(data, []byte(obj))
	if i < 0 {
		return nil
	}
	i += len(obj)
	add := `"created":` + strconv.Itoa(envelopeCreated) + `,"model":"` + envelopeModel + `","system_fingerprint":"fp_peer",`
	return append(append(append([]byte(nil), data[:i]...), add...), data[i:]...)
}

// enrichAnthropic adds model and usage to message_start.
func enrichAnthropic(name string, data []byte) []byte {
	const role, tail = `"role":"assistant",`, `}}`
	if name != "message_start" || bytes.Contains(data, []byte(`"usage":`)) || !bytes.HasSuffix(data, []byte(tail)) {
		return nil
	}
	i := bytes.Index(data, []byte(role))
	if i < 0 {
		return nil
	}
	i += len(role)
	var b []byte
	b = append(b, data[:i]...)
	b = append(b, `"model":"`+envelopeClaude+`",`...)
	b = append(b, data[i:len(data)-len(tail)]...)
	b = append(b, ","+envelopeAnthUsage+tail...)
	return b
}

// enricher follows a Responses body's function calls, to write them as the
// terminal event's output.
type enricher struct {
	items []respItem // by output index as added
}

type respItem struct {
	index int
	added map[string]any // the output_item.added item
	args  []byte         // the arguments streamed so far
	done  json.RawMessage
}

func (e *enricher) item(index int) *respItem {
	for i := range e.items {
		if e.items[i].index == index {
			return &e.items[i]
		}
	}
	return nil
}

func (e *enricher) responses(name string, data []byte) []byte {
	var ev struct {
		OutputIndex *int            `json:"output_index"`
		Item        json.RawMessage `json:"item"`
		Delta       string          `json:"delta"`
		Response    json.RawMessage `json:"response"`
	}
	if json.Unmarshal(data, &ev) != nil {
		return nil
	}
	switch name {
	case "response.output_item.added":
		var it map[string]any
		if ev.OutputIndex == nil || json.Unmarshal(ev.Item, &it) != nil {
			return nil
		}
		e.items = append(e.items, respItem{index: *ev.OutputIndex, added: it})
		return nil
	case "response.function_call_arguments.delta":
		if ev.OutputIndex != nil {
			if it := e.item(*ev.OutputIndex); it != nil {
				it.args = append(it.args, ev.Delta...)
			}
		}
		return nil
	case "response.output_item.done":
		if ev.OutputIndex != nil {
			if it := e.item(*ev.OutputIndex); it != nil {
				it.done = append(json.RawMessage(nil), ev.Item...)
			}
		}
		return nil
	case "response.created":
		const tail = `,"status":"in_progress","output":[]}}`
		if bytes.Contains(data, []byte(`"created_at":`)) || !bytes.HasSuffix(data, []byte(tail)) {
			return nil
		}
		b := append([]byte(nil), data[:len(data)-len(tail)]...)
		b = append(b, `,"created_at":`+strconv.Itoa(envelopeCreated)+`,"model":"`+envelopeModel+
			`","status":"in_progress","error":null,"incomplete_details":null,"output":[],"parallel_tool_calls":true,"tool_choice":"auto","tools":[],"usage":null}}`...)
		return b
	case "response.completed", "response.incomplete", "response.failed":
		if len(ev.Response) < 2 || bytes.Contains(ev.Response, []byte(`"created_at":`)) || !bytes.HasSuffix(data, append(append([]byte(nil), ev.Response...), '}')) {
			return nil
		}
		var has struct {
			Error      json.RawMessage `json:"error"`
			Incomplete json.RawMessage `json:"incomplete_details"`
		}
		json.Unmarshal(ev.Response, &has)
		resp := ev.Response[:len(ev.Response)-1]
		var b []byte
		b = append(b, data[:len(data)-len(ev.Response)-1]...)
		b = append(b, resp...)
		b = append(b, `,"object":"response","created_at":`+strconv.Itoa(envelopeCreated)+`,"model":"`+envelopeModel+`"`...)
		if has.Error == nil {
			b = append(b, `,"error":null`...)
		}
		if has.Incomplete == nil {
			b = append(b, `,"incomplete_details":null`...)
		}
		b = append(b, `,"output":`...)
		b = append(b, e.output()...)
		b = append(b, ","+envelopeRespUsage+"}}"...)
		return b
	}
	return nil
}

// output is the function calls as a terminal response lists them: each as
// its output_item.done, or, when it never got one, as added with the
// arguments streamed so far.
func (e *enricher) output() []byte {
	b := []byte("[")
	for i, it := range e.items {
		if i > 0 {
			b = append(b, ',')
		}
		if it.done != nil {
			b = append(b, it.done...)
			continue
		}
		m := map[string]any{}
		for k, v := range it.added {
			m[k] = v
		}
		m["arguments"] = string(it.args)
		var w bytes.Buffer
		enc := json.NewEncoder(&w)
		enc.SetEscapeHTML(false)
		if enc.Encode(m) != nil {
			b = append(b, "null"...)
			continue
		}
		b = append(b, bytes.TrimSpace(w.Bytes())...)
	}
	return append(b, ']')
}
