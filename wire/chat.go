package wire

import (
	"fmt"
	"sort"

	"github.com/sealgate/sealgate"
)

// chat decodes the OpenAI Chat Completions stream.
type chat struct {
	s       *sink
	fromID  bool // the attempt id came from the chunk id
	calls   map[[2]int]*cCall
	order   []*cCall       // begin order
	choices map[int]string // finish_reason per choice seen ("" while running)
}

type cCall struct {
	choice int
	token  string
	id     string
	name   string
	custom bool // a non-function tool call: never a begin
	ended  bool
}

func (d *chat) frame(f frame) error {
	s := d.s
	if string(f.data) == "[DONE]" {
		return s.terminal(d.status(), "[DONE] with no completion open")
	}
	o, err := parseFrame(f)
	if err != nil {
		return err
	}
	if f.event != "" && f.event != "error" {
		return fmt.Errorf("unexpected SSE event %q", f.event)
	}
	if f.event == "error" || o.has("error") {
		// An error object is the end of the attempt, even after a
		// finish_reason: the provider says the generation went wrong.
		if s.state == live || s.state == dead {
			s.closeWith(sealgate.Failed)
		}
		return nil
	}
	id, _, err := o.str("id")
	if err != nil {
		return err
	}
	switch s.state {
	case idle:
		d.calls, d.order, d.choices = map[[2]int]*cCall{}, nil, map[int]string{}
		d.fromID = id != ""
		if err := s.open(id); err != nil {
			return err
		}
	case live:
		if d.fromID && id != "" && id != s.cur {
			s.splice()
			return nil
		}
	default:
		return nil
	}
	choices, _, err := o.array("choices")
	if err != nil {
		return err
	}
	for n, raw := range choices {
		c, err := elemObj(fmt.Sprintf("choices[%d]", n), raw)
		if err != nil {
			return err
		}
		if err := d.choice(n, c); err != nil {
			return err
		}
	}
	return nil
}

func (d *chat) choice(n int, c obj) error {
	ci, ok, err := c.index("index")
	if err != nil {
		return fmt.Errorf("choices[%d].%v", n, err)
	}
	if !ok {
		return fmt.Errorf("choices[%d].index missing", n)
	}
	if _, seen := d.choices[ci]; !seen {
		if len(d.choices) >= d.s.o.MaxCalls {
			return fmt.Errorf("more than %d choices", d.s.o.MaxCalls)
		}
		d.choices[ci] = ""
	}
	delta, _, err := c.object("delta")
	if err != nil {
		return fmt.Errorf("choices[%d].%v", n, err)
	}
	if delta.has("function_call") {
		return fmt.Errorf("%w: choices[%d].delta.function_call (the legacy function-call stream)", ErrUnsupported, n)
	}
	tcs, _, err := delta.array("tool_calls")
	if err != nil {
		return fmt.Errorf("choices[%d].delta.%v", n, err)
	}
	for j, raw := range tcs {
		tc, err := elemObj(fmt.Sprintf("choices[%d].delta.tool_calls[%d]", n, j), raw)
		if err != nil {
			return err
		}
		if err := d.toolCall(ci, tc); err != nil {
			return fmt.Errorf("choices[%d].delta.tool_calls[%d]: %v", n, j, err)
		}
	}
	fr, ok, err := c.str("finish_reason")
	if err != nil {
		return fmt.Errorf("choices[%d].%v", n, err)
	}
	if !ok {
		return nil
	}
	if prev, seen := d.choices[ci]; seen && prev != "" && prev != fr {
		// A different second finish could turn a truncation into success.
		return fmt.Errorf("choices[%d]: finish_reason %q after %q: a choice finishes once", n, fr, prev)
	}
	switch fr {
	case "tool_calls", "stop":
		// The only per-call end this protocol has: the choice's own finish.
		for _, cl := range d.order {
			if cl.choice == ci && !cl.ended {
				cl.ended = true
				d.s.end(cl.token)
			}
		}
	case "length", "content_filter":
	case "function_call":
		return fmt.Errorf("%w: finish_reason function_call (the legacy function-call stream)", ErrUnsupported)
	default:
		return fmt.Errorf("choices[%d]: unknown finish_reason %q", n, fr)
	}
	d.choices[ci] = fr
	return nil
}

func (d *chat) toolCall(ci int, tc obj) error {
	if fr := d.choices[ci]; fr != "" {
		return fmt.Errorf("tool_calls fragment after the choice finished (%q)", fr)
	}
	// A missing or negative index is never taken as slot 0.
	ti, ok, err := tc.index("index")
	if err != nil {
		return err
	}
	if !ok {
		return fmt.Errorf("index missing")
	}
	id, _, err := tc.str("id")
	if err != nil {
		return err
	}
	typ, _, err := tc.str("type")
	if err != nil {
		return err
	}
	fn, _, err := tc.object("function")
	if err != nil {
		return err
	}
	name, _, err := fn.str("name")
	if err != nil {
		return fmt.Errorf("function.%v", err)
	}
	args, hasArgs, err := fn.str("arguments")
	if err != nil {
		return fmt.Errorf("function.%v", err)
	}
	key := [2]int{ci, ti}
	cl := d.calls[key]
	if cl == nil {
		if len(d.calls) >= d.s.o.MaxCalls {
			return fmt.Errorf("more than %d tool calls", d.s.o.MaxCalls)
		}
		cl = &cCall{choice: ci, token: itoa(ci) + ":" + itoa(ti), id: id, name: name}
		d.calls[key] = cl
		if typ != "" && typ != "function" {
			cl.custom = true
			return nil
		}
		// The id and the name come with the first fragment only.
		if err := d.s.begin(cl.token, id, name); err != nil {
			return fmt.Errorf("first fragment: %v", err)
		}
		d.order = append(d.order, cl)
	} else if cl.custom {
		return nil
	} else if id != "" && id != cl.id || name != "" && name != cl.name {
		// A later fragment naming another call for this slot: begun again,
		// the gate reports duplicate-begin and poisons the attempt.
		nid, nname := cl.id, cl.name
		if id != "" {
			nid = id
		}
		if name != "" {
			nname = name
		}
		if err := d.s.begin(cl.token, nid, nname); err != nil {
			return err
		}
	}
	if hasArgs {
		d.s.delta(cl.token, []byte(args))
	}
	return nil
}

// status is the close at [DONE]: complete only when every choice finished
// with tool_calls or stop.
func (d *chat) status() sealgate.Status {
	keys := make([]int, 0, len(d.choices))
	for k := range d.choices {
		keys = append(keys, k)
	}
	sort.Ints(keys)
	st := sealgate.Complete
	for _, k := range keys {
		switch d.choices[k] {
		case "length", "content_filter":
			return sealgate.Truncated
		case "":
			st = sealgate.Disconnected
		}
	}
	return st
}
