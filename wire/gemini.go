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
	calls  int    // functionCall parts seen: the positional key
	finish string // finishReason, "" while running
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
		cand.finish = fr
	}
	return nil
}

func (d *gemini) call(ci int, cand *gCand, fc obj) error {
	if fc.has("partialArgs") || fc.has("willContinue") || len(fc.keys) == 0 {
		// Vertex streamFunctionCallArguments: values at JSONPaths, not
		// argument bytes. Building text from them would be a guess.
		return fmt.Errorf("%w: Vertex streamed function-call arguments (partialArgs/willContinue); the arguments arrive as JSONPath values, not bytes, and this decoder does not rebuild them", ErrUnsupported)
	}
	name, err := fc.needStr("name")
	if err != nil {
		return err
	}
	id, _, err := fc.str("id")
	if err != nil {
		return err
	}
	tok := itoa(ci) + ":" + itoa(cand.calls)
	cand.calls++
	if id == "" {
		id = "pos:" + tok
	}
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
