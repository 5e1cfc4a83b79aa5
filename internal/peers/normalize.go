package peers

import (
	"fmt"
	"unicode/utf8"

	"github.com/sealgate/sealgate"
	"github.com/sealgate/sealgate/wire"
)

// Normalize rewrites any event stream into one the protocol can carry, so
// that generated streams (which speak the whole SPEC) can be encoded as a
// vendor body:
//
//   - ack, peek and restart go (a body carries none);
//   - attempts follow one another: events of any attempt but the open one
//     go, and an attempt reopened after its close is dropped whole;
//   - a disconnection ends the body; cancelled becomes failed; an attempt
//     still open at the end is cut (close disconnected);
//   - items take the protocol's positions in begin order (Responses "N",
//     Chat "0:N", Anthropic "ATTEMPT:N"); a second begin of an item goes, and
//     so do fragments and ends of items never begun or already ended;
//   - fragments never split a rune: an incomplete sequence at a fragment's
//     end moves to the call's next fragment, and bytes that are not UTF-8
//     become U+FFFD (the SDKs decode JSON strings);
//   - Responses ends carry their final (the call's bytes, unless the input
//     gave one); Chat ends move to the finish chunk, all at a close
//     complete; an Anthropic call that got no bytes is given "{}" (its
//     start input) before its end.
//
// For Gemini, geminiCalls then puts the calls one after another, in the
// forms Gemini sends them. It returns an error only for a protocol it
// cannot carry. The result may still be refused by wire.Encode (an id that cannot
// stand as a token): such an input is not carried by that protocol.
func Normalize(p wire.Protocol, in []sealgate.Event) ([]sealgate.Event, error) {
	out, err := normalizeEvents(p, in)
	if p == wire.Gemini && err == nil {
		out = geminiCalls(out)
	}
	return out, err
}

// normalizeEvents is Normalize's pass common to every protocol.
func normalizeEvents(p wire.Protocol, in []sealgate.Event) ([]sealgate.Event, error) {
	switch p {
	case wire.OpenAIChat, wire.OpenAIResponses, wire.Anthropic, wire.Gemini:
	default:
		return nil, fmt.Errorf("peers: no normalization for protocol %s", p)
	}
	type call struct {
		item  string
		bytes []byte
		tail  []byte // an incomplete rune waiting for the next fragment
		ended bool
	}
	var (
		out   []sealgate.Event
		cur   string // the open attempt, "" when none
		seen  = map[string]bool{}
		calls map[string]*call // by input item
		order []*call
	)
	flush := func(c *call) {
		if len(c.tail) > 0 {
			out = append(out, sealgate.DeltaEvent(cur, c.item, []byte(string([]rune(string(c.tail))))))
			c.bytes = append(c.bytes, []byte(string([]rune(string(c.tail))))...)
			c.tail = nil
		}
	}
	end := func(c *call, src sealgate.Event) {
		flush(c)
		c.ended = true
		switch p {
		case wire.OpenAIResponses:
			final := c.bytes
			if src.HasFinal && utf8.Valid(src.Final) {
				final = src.Final
			}
			out = append(out, sealgate.EndFinalEvent(cur, c.item, append([]byte(nil), final...)))
		case wire.Anthropic:
			if len(c.bytes) == 0 {
				out = append(out, sealgate.DeltaEvent(cur, c.item, []byte("{}")))
				c.bytes = []byte("{}")
			}
			out = append(out, sealgate.EndEvent(cur, c.item))
		default:
			out = append(out, sealgate.EndEvent(cur, c.item))
		}
	}
	for _, ev := range in {
		switch ev.Kind {
		case sealgate.Open:
			if cur != "" || seen[ev.Attempt] {
				continue
			}
			cur, seen[ev.Attempt] = ev.Attempt, true
			calls, order = map[string]*call{}, nil
			out = append(out, sealgate.OpenEvent(cur, ev.Turn))
			continue
		case sealgate.Ack, sealgate.Peek, sealgate.Restart:
			continue
		}
		if cur == "" || ev.Attempt != cur {
			continue
		}
		c := calls[ev.Item]
		switch ev.Kind {
		case sealgate.Begin:
			if c != nil {
				continue
			}
			c = &call{item: position(p, cur, len(order))}
			calls[ev.Item] = c
			order = append(order, c)
			out = append(out, sealgate.BeginEvent(cur, c.item, ev.Call, ev.Tool))
		case sealgate.Delta:
			if c == nil || c.ended {
				continue
			}
			b := append(append([]byte(nil), c.tail...), ev.Bytes...)
			cut := len(b)
			for i := len(b) - 1; i >= 0 && i >= len(b)-3; i-- {
				if utf8.RuneStart(b[i]) {
					if !utf8.FullRune(b[i:]) {
						cut = i
					}
					break
				}
			}
			c.tail = b[cut:]
			frag := []byte(string([]rune(string(b[:cut])))) // invalid bytes become U+FFFD
			c.bytes = append(c.bytes, frag...)
			out = append(out, sealgate.DeltaEvent(cur, c.item, frag))
		case sealgate.End:
			if c == nil || c.ended || p == wire.OpenAIChat {
				continue // Chat ends come with the finish chunk
			}
			end(c, ev)
		case sealgate.Close:
			st := ev.Status
			if st == sealgate.Cancelled || !st.Valid() {
				st = sealgate.Failed
			}
			if p == wire.OpenAIChat && st == sealgate.Complete {
				for _, c := range order {
					flush(c) // every fragment before the finish chunk
				}
				for _, c := range order {
					end(c, sealgate.Event{})
				}
			}
			out = append(out, sealgate.CloseEvent(cur, st))
			cur = ""
			if st == sealgate.Disconnected {
				return out, nil
			}
		}
	}
	if cur != "" {
		if p != wire.OpenAIChat {
			for _, c := range order {
				if !c.ended {
					flush(c)
				}
			}
		}
		out = append(out, sealgate.CloseEvent(cur, sealgate.Disconnected))
	}
	return out, nil
}

// position is the item name the protocol's decoder gives the n-th call.
func position(p wire.Protocol, attempt string, n int) string {
	switch p {
	case wire.OpenAIChat:
		return fmt.Sprintf("0:%d", n)
	case wire.Anthropic:
		return fmt.Sprintf("%s:%d", attempt, n)
	}
	return fmt.Sprint(n)
}
