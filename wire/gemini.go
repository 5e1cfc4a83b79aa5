package wire

import (
	"fmt"
	"sort"

	"github.com/sealgate/sealgate"
)

// gemini decodes the Gemini streamGenerateContent (alt=sse) stream.
type gemini struct {
	s      *sink
	fromID bool
	cands  map[int]*gCand
}

type gCand struct {
	calls  int      // calls begun: the positional key
	finish string   // finishReason, "" while running
	stream *vStream // the Vertex streamed call not yet ended
}

// vStream is a Vertex streamed call (streamFunctionCallArguments) between
// its begin and its end.
type vStream struct {
	item string
	id   string // the call's own id, "" when the wire gave none
	args *argsBuilder
	last bool // a chunk without willContinue came: the end is at the terminal {} or the finishReason
}

func (d *gemini) frame(f frame) error {
	if f.event != "" {
		return fmt.Errorf("unexpected SSE event %q (Gemini sends data lines only)", f.event)
	}
	o, err := parseFrame(f)
	if err != nil {
		return err
	}
	s := d.s
	if o.has("error") {
		if s.state == live || s.state == dead {
			s.closeWith(sealgate.Failed)
			s.state = idle
		}
		return nil
	}
	rid, _, err := o.str("responseId")
	if err != nil {
		return err
	}
	// Gemini has no terminal event but the end of the body: an attempt
	// whose candidates have all finished stays open (more candidates or a
	// usage chunk may follow) until the body ends or another response
	// starts.
	if s.state == live && d.allFinished() {
		cands, _, _ := o.array("candidates")
		if d.fromID && rid != "" && rid != s.cur || !d.fromID && len(cands) > 0 {
			s.closeWith(d.status())
			s.state = idle
		}
	}
	switch s.state {
	case idle, draining:
		// Gemini has no start event: the first chunk opens the attempt.
		d.cands, d.fromID = map[int]*gCand{}, rid != ""
		if err := s.open(rid); err != nil {
			return err
		}
	case live:
		if d.fromID && rid != "" && rid != s.cur {
			s.splice()
		}
	}
	if pf, ok, err := o.object("promptFeedback"); err != nil {
		return err
	} else if ok {
		if br, ok, err := pf.str("blockReason"); err != nil {
			return fmt.Errorf("promptFeedback.%v", err)
		} else if ok && br != "" {
			s.closeWith(sealgate.Failed)
			s.state = idle
			return nil
		}
	}
	cands, _, err := o.array("candidates")
	if err != nil {
		return err
	}
	for n, raw := range cands {
		c, err := elemObj(fmt.Sprintf("candidates[%d]", n), raw)
		if err != nil {
			return err
		}
		if err := d.candidate(n, c); err != nil {
			return err
		}
	}
	return nil
}

// allFinished: every candidate seen has its finishReason.
func (d *gemini) allFinished() bool {
	if len(d.cands) == 0 {
		return false
	}
	for _, c := range d.cands {
		if c.finish == "" {
			return false
		}
	}
	return true
}

// eof closes, at the end of the body, an attempt whose candidates all
// finished: the status they agree on. Anything else is left to the
// generic rule (disconnected).
func (d *gemini) eof() {
	if d.s.state == live && d.allFinished() {
		d.s.closeWith(d.status())
	}
}

func (d *gemini) candidate(n int, c obj) error {
	ci, ok, err := c.index("index")
	if err != nil {
		return fmt.Errorf("candidates[%d].%v", n, err)
	}
	if !ok {
		ci = n
	}
	cand := d.cands[ci]
	if cand == nil {
		if len(d.cands) >= d.s.o.MaxCalls {
			return fmt.Errorf("more than %d candidates", d.s.o.MaxCalls)
		}
		cand = &gCand{}
		d.cands[ci] = cand
	}
	content, _, err := c.object("content")
	if err != nil {
		return fmt.Errorf("candidates[%d].%v", n, err)
	}
	parts, _, err := content.array("parts")
	if err != nil {
		return fmt.Errorf("candidates[%d].content.%v", n, err)
	}
	// Parts come before the finish reason of the same chunk.
	for k, raw := range parts {
		p, err := elemObj(fmt.Sprintf("candidates[%d].content.parts[%d]", n, k), raw)
		if err != nil {
			return err
		}
		fc, ok, err := p.object("functionCall")
		if err != nil {
			return fmt.Errorf("candidates[%d].content.parts[%d].%v", n, k, err)
		}
		if !ok {
			continue // text, thought, executableCode (a built-in tool), ...
		}
		if d.s.state != live {
			continue
		}
		if cand.finish != "" {
			return fmt.Errorf("candidates[%d]: functionCall after finishReason", n)
		}
		if err := d.call(ci, cand, fc); err != nil {
			return fmt.Errorf("candidates[%d].content.parts[%d].functionCall: %w", n, k, err)
		}
	}
	fr, ok, err := c.str("finishReason")
	if err != nil {
		return fmt.Errorf("candidates[%d].%v", n, err)
	}
	if ok && fr != "" {
		if st := cand.stream; st != nil && st.last && d.s.state == live {
			// The call's last chunk (no willContinue), then the finish:
			// the end Vertex gives when it sends no terminal functionCall:{}.
			if err := d.endStream(cand); err != nil {
				return fmt.Errorf("candidates[%d].finishReason: %w", n, err)
			}
		}
		cand.finish = fr
	}
	return nil
}

func (d *gemini) call(ci int, cand *gCand, fc obj) error {
	if fc.has("partialArgs") || fc.hasKey("willContinue") || len(fc.keys) == 0 {
		return d.streamed(ci, cand, fc)
	}
	if cand.stream != nil {
		return fmt.Errorf("%w: a whole call while %s has not ended", ErrCallOpen, cand.stream.item)
	}
	name, err := fc.needStr("name")
	if err != nil {
		return err
	}
	id, _, err := fc.str("id")
	if err != nil {
		return err
	}
	tok, id := d.next(ci, cand, id)
	if err := d.s.begin(tok, id, name); err != nil {
		return err
	}
	// The args object as received; a call with no args has {} (the
	// protocol's own form of "no arguments").
	args, ok := fc.raw("args")
	if !ok {
		args = []byte("{}")
	}
	d.s.delta(tok, args)
	d.s.end(tok)
	return nil
}

// next takes the candidate's next positional key, and the call id: id, or
// pos:KEY when the wire gave none.
func (d *gemini) next(ci int, cand *gCand, id string) (string, string) {
	tok := itoa(ci) + ":" + itoa(cand.calls)
	cand.calls++
	if id == "" {
		id = "pos:" + tok
	}
	return tok, id
}

// streamed reads one functionCall of a Vertex streamed call: its start
// (a name, with willContinue or partialArgs), a chunk of pieces, or the
// terminal {}. Each piece is one delta, written as it arrives.
func (d *gemini) streamed(ci int, cand *gCand, fc obj) error {
	if len(fc.keys) == 0 {
		if cand.stream == nil {
			return fmt.Errorf("%w: the terminal functionCall:{} ends no streamed call", ErrNoOpenCall)
		}
		return d.endStream(cand)
	}
	if fc.has("args") {
		return fmt.Errorf("%w: args together with partialArgs or willContinue", ErrBadPiece)
	}
	id, _, err := fc.str("id")
	if err != nil {
		return err
	}
	name, hasName, err := fc.str("name")
	if err != nil {
		return err
	}
	st := cand.stream
	switch {
	case hasName && st != nil:
		return fmt.Errorf("%w: a call to %s while %s has not ended", ErrCallOpen, name, st.item)
	case hasName:
		tok, callID := d.next(ci, cand, id)
		if err := d.s.begin(tok, callID, name); err != nil {
			return err
		}
		st = &vStream{item: tok, id: id, args: newArgsBuilder()}
		cand.stream = st
	case st == nil:
		return fmt.Errorf("%w: partialArgs with no streamed call begun (a functionCall with a name)", ErrNoOpenCall)
	case st.last:
		return fmt.Errorf("%w: a chunk for %s after its last chunk (one without willContinue)", ErrNoOpenCall, st.item)
	case id != "" && id != st.id:
		return fmt.Errorf("%w: id %q in a chunk of %s (id %q)", ErrBadPiece, id, st.item, st.id)
	}
	pieces, _, err := fc.array("partialArgs")
	if err != nil {
		return err
	}
	for k, raw := range pieces {
		p, err := readPiece(raw)
		if err != nil {
			return fmt.Errorf("partialArgs[%d]: %w", k, err)
		}
		b, err := st.args.add(p)
		if err != nil {
			return fmt.Errorf("partialArgs[%d]: %w", k, err)
		}
		d.s.delta(st.item, b)
	}
	cont, _, err := fc.boolean("willContinue")
	if err != nil {
		return err
	}
	st.last = !cont
	return nil
}

// endStream writes the end of the candidate's streamed call: the closers
// of its open containers as one delta, then end.
func (d *gemini) endStream(cand *gCand) error {
	st := cand.stream
	b, err := st.args.end()
	if err != nil {
		return fmt.Errorf("%s: %w", st.item, err)
	}
	d.s.delta(st.item, b)
	d.s.end(st.item)
	cand.stream = nil
	return nil
}

// status: complete only when every candidate stopped with STOP.
func (d *gemini) status() sealgate.Status {
	keys := make([]int, 0, len(d.cands))
	for k := range d.cands {
		keys = append(keys, k)
	}
	sort.Ints(keys)
	st := sealgate.Complete
	for _, k := range keys {
		switch d.cands[k].finish {
		case "STOP":
		case "MAX_TOKENS":
			if st == sealgate.Complete {
				st = sealgate.Truncated
			}
		default: // MALFORMED_FUNCTION_CALL, SAFETY, RECITATION, OTHER, ...
			st = sealgate.Failed
		}
	}
	return st
}
