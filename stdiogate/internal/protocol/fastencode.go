package protocol

import (
	"strconv"
	"unicode/utf8"

	"github.com/sealgate/sealgate"
)

// encodeFast appends m as json.Marshal writes it (the same members in the
// same order, byte for byte) without reflection, for the lines both sides
// write for every event. It gives up (ok false) on config and hello lines
// and on a string that json.Marshal would escape beyond \" and \\ or
// refuse (control characters, invalid UTF-8), which Marshal's strict path
// then writes or reports. FuzzEncodeFast holds it to that.
func encodeFast(dst []byte, m *Message) (out []byte, ok bool) {
	if m.Config != nil || m.Capabilities != nil {
		return dst, false
	}
	w := writer{b: dst, ok: true}
	w.b = append(w.b, `{"v":`...)
	w.b = strconv.AppendInt(w.b, int64(m.V), 10)
	w.b = append(w.b, `,"type":`...)
	w.str(m.Type)
	if m.N != nil {
		w.b = append(w.b, `,"n":`...)
		w.b = strconv.AppendInt(w.b, int64(*m.N), 10)
	}
	w.member("ledger", m.Ledger)
	if e := m.Event; e != nil {
		w.b = append(w.b, `,"event":{"kind":`...)
		w.str(e.Kind)
		w.member("attempt", e.Attempt)
		w.member("turn", e.Turn)
		w.member("item", e.Item)
		w.member("call", e.Call)
		w.member("tool", e.Tool)
		w.member("bytes64", e.Bytes64)
		w.pointer("final64", e.Final64)
		w.member("status", e.Status)
		w.member("key", e.Key)
		if e.OK != nil {
			w.b = append(w.b, `,"ok":`...)
			w.b = strconv.AppendBool(w.b, *e.OK)
		}
		w.b = append(w.b, '}')
	}
	w.member("name", m.Name)
	if d := m.Decision; d != nil {
		w.b = append(w.b, `,"decision":{"kind":`...)
		w.str(d.Kind)
		w.member("attempt", d.Attempt)
		w.pointer("item", d.Item)
		w.member("call", d.Call)
		w.member("tool", d.Tool)
		w.member("key", d.Key)
		w.pointer("args", d.Args)
		w.pointer("args64", d.Args64)
		w.member("reason", d.Reason)
		w.member("anomaly", d.Anomaly)
		if p := d.Preview; p != nil {
			w.b = append(w.b, `,"preview":{"bytes":`...)
			w.b = strconv.AppendInt(w.b, int64(p.Bytes), 10)
			w.b = append(w.b, `,"value":`...)
			w.str(p.Value)
			w.b = append(w.b, '}')
		}
		w.b = append(w.b, '}')
	}
	if m.Retained != nil {
		w.b = append(w.b, `,"retained":`...)
		w.b = strconv.AppendInt(w.b, int64(*m.Retained), 10)
	}
	w.member("text", m.Text)
	w.b = append(w.b, '}', '\n')
	if !w.ok {
		return dst, false
	}
	return w.b, true
}

// writer appends JSON; ok turns false at the first string it cannot write
// as json.Marshal would.
type writer struct {
	b  []byte
	ok bool
}

// member writes `,"name":"s"` unless s is empty (omitzero).
func (w *writer) member(name, s string) {
	if s != "" {
		w.key(name)
		w.str(s)
	}
}

// pointer writes `,"name":"s"` when p is set, even to "".
func (w *writer) pointer(name string, p *string) {
	if p != nil {
		w.key(name)
		w.str(*p)
	}
}

func (w *writer) key(name string) {
	w.b = append(w.b, ',', '"')
	w.b = append(w.b, name...)
	w.b = append(w.b, '"', ':')
}

// str writes s quoted, escaping only '"' and '\\'.
func (w *writer) str(s string) {
	if quote(w, s) && !utf8.ValidString(s) {
		w.ok = false
	}
}

// quote writes s quoted, escaping only '"' and '\\', and reports whether
// it has bytes past ASCII, for the caller to check as UTF-8. It takes
// bytes too, so that released args are not copied into a string first.
func quote[S ~string | ~[]byte](w *writer, s S) (wide bool) {
	w.b = append(w.b, '"')
	start := 0
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c == '"' || c == '\\':
			w.b = append(w.b, s[start:i]...)
			w.b = append(w.b, '\\', c)
			start = i + 1
		case c < 0x20:
			w.ok = false
		case c >= utf8.RuneSelf:
			wide = true
		}
	}
	w.b = append(w.b, s[start:]...)
	w.b = append(w.b, '"')
	return wide
}

// AppendEventLine appends event n's line to dst: the bytes of
// AppendLine(dst, &Message{V: Version, Type: TypeEvent, N: &n, Event:
// EncodeEvent(e)}), written without building the message, because the
// client writes one for every event it sends.
func AppendEventLine(dst []byte, n int, e sealgate.Event) ([]byte, error) {
	w := writer{b: dst, ok: true}
	w.b = append(w.b, `{"v":1,"type":"event","n":`...)
	w.b = strconv.AppendInt(w.b, int64(n), 10)
	w.b = append(w.b, `,"event":{"kind":`...)
	w.str(e.Kind.String())
	switch e.Kind {
	case sealgate.Open:
		w.member("attempt", e.Attempt)
		w.member("turn", e.Turn)
	case sealgate.Begin:
		w.member("attempt", e.Attempt)
		w.member("item", e.Item)
		w.member("call", e.Call)
		w.member("tool", e.Tool)
	case sealgate.Delta:
		w.member("attempt", e.Attempt)
		w.member("item", e.Item)
		if len(e.Bytes) > 0 {
			w.base64("bytes64", e.Bytes)
		}
	case sealgate.End:
		w.member("attempt", e.Attempt)
		w.member("item", e.Item)
		if e.HasFinal {
			w.base64("final64", e.Final)
		}
	case sealgate.Close:
		w.member("attempt", e.Attempt)
		w.member("status", e.Status.String())
	case sealgate.Ack:
		w.member("key", e.Key)
		w.b = append(w.b, `,"ok":`...)
		w.b = strconv.AppendBool(w.b, e.OK)
	case sealgate.Peek:
		w.member("attempt", e.Attempt)
		w.member("item", e.Item)
	}
	w.b = append(w.b, "}}\n"...)
	if !w.ok {
		return AppendLine(dst, &Message{V: Version, Type: TypeEvent, N: &n, Event: EncodeEvent(e)})
	}
	return w.b, nil
}

// AppendDecisionLine appends a decision's line to dst: the bytes of
// AppendLine(dst, &Message{V: Version, Type: TypeDecision, Decision:
// EncodeDecision(d)}), written without building the message, because a
// gate writes one for every decision.
func AppendDecisionLine(dst []byte, d sealgate.Decision) ([]byte, error) {
	w := writer{b: dst, ok: true}
	w.b = append(w.b, `{"v":1,"type":"decision","decision":{"kind":`...)
	w.str(d.Kind.String())
	w.member("attempt", d.Attempt)
	switch d.Kind {
	case sealgate.Release:
		w.key("item")
		w.str(d.Item)
		w.member("call", d.Call)
		w.member("tool", d.Tool)
		w.member("key", d.Key)
		if utf8.Valid(d.Args) {
			w.key("args")
			quote(&w, d.Args)
		} else {
			w.base64("args64", d.Args)
		}
	case sealgate.Reject:
		w.key("item")
		w.str(d.Item)
		w.member("reason", string(d.Reason))
	case sealgate.Anomaly:
		if d.HasItem {
			w.key("item")
			w.str(d.Item)
		}
		w.member("key", d.Key)
		w.member("anomaly", string(d.Anomaly))
	case sealgate.Compensate, sealgate.Reconcile:
		w.key("item")
		w.str(d.Item)
		w.member("key", d.Key)
	case sealgate.PreviewAnswer:
		w.key("item")
		w.str(d.Item)
		w.b = append(w.b, `,"preview":{"bytes":`...)
		w.b = strconv.AppendInt(w.b, int64(d.Preview.Bytes), 10)
		w.b = append(w.b, `,"value":`...)
		w.str(d.Preview.Value)
		w.b = append(w.b, '}')
	}
	w.b = append(w.b, "}}\n"...)
	if !w.ok {
		return AppendLine(dst, &Message{V: Version, Type: TypeDecision, Decision: EncodeDecision(d)})
	}
	return w.b, nil
}

// base64 writes `,"name":"..."` with b in standard base64.
func (w *writer) base64(name string, b []byte) {
	w.key(name)
	w.b = append(w.b, '"')
	w.b = b64.AppendEncode(w.b, b)
	w.b = append(w.b, '"')
}
