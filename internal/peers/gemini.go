package peers

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"unicode/utf8"

	"github.com/sealgate/sealgate"
	"github.com/sealgate/sealgate/wire"
)

// geminiCalls finishes the normalization of a stream for Gemini, after the
// generic pass (attempts one after another, valid UTF-8): Gemini sends one
// call at a time, each whole (functionCall{name, args}) or as Vertex
// streams it (pieces: a value at a jsonPath each), so
//
//   - the body carries the first attempt only: a Gemini body answers one
//     request, and having no terminal event, Gemini closes a response only
//     when the next one starts, in the same chunk that opens it, where no
//     release can be placed between the two;
//   - a call begun while another is still being sent goes, with its
//     fragments and end; the calls left are numbered "0:N" (candidate 0);
//   - an ended call that came as one fragment of a JSON object is sent
//     whole; another whose text is a JSON object is re-cut into the
//     fragments the Vertex byte rule writes (compact, one piece per leaf, a
//     string also cut where an input fragment boundary fell inside it, the
//     closers last), or sent whole when pieces cannot write it (an empty
//     container inside); an ended call whose text is no JSON object goes
//     (Gemini's args are always one);
//   - a call cut before its end keeps the pieces of its longest prefix that
//     ends at a leaf (or inside a string), and no closers.
//
// Every call's events are checked to survive wire.Encode and wire.Decode on
// their own; a form that does not is not used.
func geminiCalls(in []sealgate.Event) []sealgate.Event {
	type call struct {
		begin  sealgate.Event
		text   []byte
		bounds []int // fragment ends in text
	}
	var (
		out     []sealgate.Event
		pending *call
		n       int // calls sent in the open attempt
	)
	flush := func(ended bool) {
		c := pending
		pending = nil
		item := fmt.Sprintf("0:%d", n)
		for _, frags := range geminiForms(c.text, c.bounds, ended) {
			if geminiCarries(c.begin, frags, ended) {
				a := c.begin.Attempt
				out = append(out, sealgate.BeginEvent(a, item, c.begin.Call, c.begin.Tool))
				for _, f := range frags {
					out = append(out, sealgate.DeltaEvent(a, item, f))
				}
				if ended {
					out = append(out, sealgate.EndEvent(a, item))
				}
				n++
				return
			}
		}
	}
	for _, ev := range in {
		switch ev.Kind {
		case sealgate.Open:
			n = 0
			out = append(out, ev)
		case sealgate.Begin:
			if pending != nil {
				continue
			}
			pending = &call{begin: ev}
		case sealgate.Delta:
			if pending != nil && ev.Item == pending.begin.Item {
				pending.text = append(pending.text, ev.Bytes...)
				pending.bounds = append(pending.bounds, len(pending.text))
			}
		case sealgate.End:
			if pending != nil && ev.Item == pending.begin.Item {
				flush(true)
			}
		case sealgate.Close:
			if pending != nil {
				flush(false)
			}
			return append(out, ev)
		}
	}
	if pending != nil {
		flush(false)
	}
	return out
}

// geminiCarries says whether a call sent as frags, alone in an attempt,
// comes back from wire.Encode and wire.Decode unchanged.
func geminiCarries(begin sealgate.Event, frags [][]byte, ended bool) bool {
	const a, item = "a", "0:0"
	evs := []sealgate.Event{sealgate.OpenEvent(a, Turn), sealgate.BeginEvent(a, item, begin.Call, begin.Tool)}
	for _, f := range frags {
		evs = append(evs, sealgate.DeltaEvent(a, item, f))
	}
	st := sealgate.Disconnected
	if ended {
		evs = append(evs, sealgate.EndEvent(a, item))
		st = sealgate.Complete
	}
	evs = append(evs, sealgate.CloseEvent(a, st))
	body, err := wire.Encode(wire.Gemini, evs)
	if err != nil {
		return false
	}
	back, err := wire.Decode(wire.Gemini, bytes.NewReader(body), wire.Options{Turn: Turn})
	if err != nil || len(back) != len(evs) {
		return false
	}
	for i := range evs {
		if !back[i].Equal(evs[i]) {
			return false
		}
	}
	return true
}

// geminiForms lists the fragment lists a call may be sent as, best first:
// its pieces, then (ended only) the whole compact object.
func geminiForms(text []byte, bounds []int, ended bool) [][][]byte {
	if ended && len(text) == 0 {
		text = []byte("{}") // Gemini's args of a call that sent none
	}
	w := &pieceWriter{}
	err := w.walk(text, bounds)
	if !ended {
		return [][][]byte{w.fragments(false), nil}
	}
	if err != nil || !w.done {
		return nil // no JSON object: Gemini cannot send it
	}
	var forms [][][]byte
	if len(bounds) == 1 {
		forms = append(forms, [][]byte{bytes.TrimSpace(text)}) // whole, as received
	}
	if !w.empty {
		forms = append(forms, w.fragments(true))
	}
	var c bytes.Buffer
	if json.Compact(&c, text) == nil {
		forms = append(forms, [][]byte{c.Bytes()})
	}
	return forms
}

// pieceWriter rewrites a JSON object as the Vertex byte rule writes it from
// its leaves, noting where each piece's bytes end.
type pieceWriter struct {
	out   []byte
	cuts  []int // piece ends in out
	leaf  int   // out's length after the last whole leaf (or string cut)
	done  bool  // the root object closed
	empty bool  // an empty container inside: pieces cannot write it
}

// walk reads text (a JSON object, or a prefix of one) token by token. A
// string that the text's own fragment bounds cut is cut there too, when
// the text is already written as the rule writes it.
func (w *pieceWriter) walk(text []byte, bounds []int) error {
	dec := json.NewDecoder(bytes.NewReader(text))
	dec.UseNumber()
	type level struct {
		array bool
		n     int
		names map[string]bool
	}
	var stack []*level
	for {
		tok, err := dec.Token()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			if len(stack) > 0 && stack[len(stack)-1].array {
				// cut inside an element: it may be a string value
				if top := stack[len(stack)-1]; top.n > 0 {
					w.out = append(w.out, ',')
				}
				w.tailString(text, dec.InputOffset())
			}
			return err
		}
		if len(stack) == 0 {
			if d, ok := tok.(json.Delim); !ok || d != '{' || w.done {
				return errors.New("not one JSON object")
			}
			stack = append(stack, &level{names: map[string]bool{}})
			w.out = append(w.out, '{')
			continue
		}
		top := stack[len(stack)-1]
		if d, ok := tok.(json.Delim); ok && (d == '}' || d == ']') {
			if top.n == 0 && len(stack) > 1 {
				w.empty = true
			}
			stack = stack[:len(stack)-1]
			w.out = append(w.out, byte(d))
			if len(stack) == 0 {
				w.done = true
			}
			continue
		}
		sep := func() {
			if top.n > 0 {
				w.out = append(w.out, ',')
			}
			top.n++
		}
		if !top.array {
			name, ok := tok.(string)
			if !ok {
				return errors.New("a member name was expected")
			}
			if top.names[name] {
				return fmt.Errorf("member %q twice", name)
			}
			top.names[name] = true
			sep()
			w.out = append(append(w.out, wireQuote(name)...), ':')
			if tok, err = dec.Token(); err != nil {
				w.tailString(text, dec.InputOffset())
				return err
			}
		} else {
			sep()
		}
		switch v := tok.(type) {
		case json.Delim:
			stack = append(stack, &level{array: v == '[', names: map[string]bool{}})
			w.out = append(w.out, byte(v))
		case string:
			start := len(w.out)
			q := wireQuote(v)
			w.out = append(w.out, q...)
			if len(w.out) <= len(text) && bytes.Equal(text[:len(w.out)], w.out) {
				w.cutString(start, bounds)
			}
			w.piece()
		case json.Number:
			w.out = append(w.out, v...)
			w.piece()
		case bool:
			w.out = fmt.Appendf(w.out, "%t", v)
			w.piece()
		case nil:
			w.out = append(w.out, "null"...)
			w.piece()
		}
	}
}

// piece marks the end of a piece's bytes.
func (w *pieceWriter) piece() {
	w.cuts = append(w.cuts, len(w.out))
	w.leaf = len(w.out)
}

// cutString cuts the string written at out[start:] at every bound that
// falls inside its content, between two of its characters or escapes.
func (w *pieceWriter) cutString(start int, bounds []int) {
	end := len(w.out) - 1 // its closing quote
	for i := start + 1; i < end; {
		n := 1
		if w.out[i] == '\\' {
			n = 2
			if w.out[i+1] == 'u' {
				n = 6
			}
		} else {
			_, n = utf8.DecodeRune(w.out[i:])
		}
		i += n
		for _, b := range bounds {
			if b == i && i < end {
				w.cuts = append(w.cuts, i)
			}
		}
	}
}

// tailString ends the writing, for a text cut inside a string value
// (the bytes after off), with that string's content as far as it goes: a
// piece that leaves its string open. The writer's out ends just before the
// string.
func (w *pieceWriter) tailString(text []byte, off int64) {
	if off < 0 || int(off) >= len(text) {
		return
	}
	rest := bytes.TrimLeft(text[off:], " \t\r\n:,")
	if len(rest) == 0 || rest[0] != '"' {
		return
	}
	// Back off over a cut escape or character, no further.
	for k := len(rest); k >= 1 && k > len(rest)-12; k-- {
		var s string
		if json.Unmarshal(append(append([]byte{}, rest[:k]...), '"'), &s) == nil {
			q := wireQuote(s)
			w.out = append(w.out, q[:len(q)-1]...)
			w.piece()
			return
		}
	}
}

// fragments cuts out at the pieces' ends; ended adds the closers.
func (w *pieceWriter) fragments(ended bool) [][]byte {
	var frags [][]byte
	from := 0
	for _, c := range w.cuts {
		if c > from {
			frags = append(frags, w.out[from:c])
			from = c
		}
	}
	if ended {
		frags = append(frags, w.out[from:])
	}
	return frags
}

// wireQuote writes a JSON string with the byte rule's escapes: \" \\ \n \r
// \t, \u00XX for other controls, everything else as UTF-8.
func wireQuote(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for _, r := range s {
		switch {
		case r == '"':
			b.WriteString(`\"`)
		case r == '\\':
			b.WriteString(`\\`)
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\r':
			b.WriteString(`\r`)
		case r == '\t':
			b.WriteString(`\t`)
		case r < 0x20:
			fmt.Fprintf(&b, `\u%04x`, r)
		default:
			b.WriteRune(r)
		}
	}
	b.WriteByte('"')
	return b.String()
}
