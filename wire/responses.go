package wire

import (
	"bytes"
	"fmt"

	"github.com/sealgate/sealgate"
)

// responses decodes the OpenAI Responses API stream.
type responses struct {
	s       *sink
	items   map[string]*rItem // by item id
	byIndex map[int]*rItem    // by output_index
	seq     int               // last sequence_number seen in this response, -1 if none
}

type rItem struct {
	token  string // the normalized item: its output_index
	fn     bool   // a function_call item; anything else never becomes a begin
	kind   string
	ended  bool
	final  []byte // the arguments of its function_call_arguments.done
	closed bool   // its output_item.done was seen
}

func (d *responses) frame(f frame) error {
	o, typ, err := typedFrame(f)
	if err != nil {
		return err
	}
	s := d.s
	if seq, ok, err := o.index("sequence_number"); err != nil {
		return err
	} else if ok && s.state == live && typ != "response.created" {
		if d.seq >= 0 && seq != d.seq+1 {
			return fmt.Errorf("sequence_number %d after %d: events were lost or repeated", seq, d.seq)
		}
		d.seq = seq
	}
	switch typ {
	case "response.created":
		id, err := d.responseID(o)
		if err != nil {
			return err
		}
		switch s.state {
		case live:
			s.splice()
			return nil
		case dead:
			return nil
		}
		d.items, d.byIndex, d.seq = map[string]*rItem{}, map[int]*rItem{}, -1
		if seq, ok, _ := o.index("sequence_number"); ok {
			d.seq = seq
		}
		return s.open(id)
	case "response.completed", "response.incomplete", "response.failed":
		st := map[string]sealgate.Status{"response.completed": sealgate.Complete,
			"response.incomplete": sealgate.Truncated, "response.failed": sealgate.Failed}[typ]
		switch s.state {
		case idle:
			return fmt.Errorf("%s with no response open", typ)
		case live:
			id, err := d.responseID(o)
			if err != nil {
				return err
			}
			if id != "" && id != s.cur {
				return fmt.Errorf("%s for response %q inside response %q", typ, id, s.cur)
			}
			s.closeWith(st)
		case dead:
			s.closeWith(st)
		}
		s.state = idle
		return nil
	case "error":
		if s.state == live || s.state == dead {
			s.closeWith(sealgate.Failed)
		}
		return nil
	}
	switch s.state {
	case idle:
		return fmt.Errorf("%s before response.created", typ)
	case draining, dead:
		return nil
	}
	switch typ {
	case "response.output_item.added":
		return d.added(o)
	case "response.function_call_arguments.delta":
		it, tok, err := d.lookup(o)
		if err != nil {
			return err
		}
		delta, err := o.needStr("delta")
		if err != nil {
			return err
		}
		if it != nil && !it.fn {
			return fmt.Errorf("function_call_arguments.delta for a %s item", it.kind)
		}
		s.delta(tok, []byte(delta))
	case "response.function_call_arguments.done":
		it, tok, err := d.lookup(o)
		if err != nil {
			return err
		}
		args, err := o.needStr("arguments")
		if err != nil {
			return err
		}
		if it != nil && !it.fn {
			return fmt.Errorf("function_call_arguments.done for a %s item", it.kind)
		}
		if it != nil && !it.ended {
			it.ended, it.final = true, []byte(args)
		}
		s.endFinal(tok, []byte(args))
	case "response.output_item.done":
		return d.itemDone(o)
	}
	// Text, reasoning, hosted tools (web_search_call, mcp_call, ...) and
	// custom_tool_call input events carry nothing for the gate.
	return nil
}

func (d *responses) responseID(o obj) (string, error) {
	r, ok, err := o.object("response")
	if err != nil {
		return "", err
	}
	if !ok {
		return "", fmt.Errorf("response: missing")
	}
	id, _, err := r.str("id")
	return id, err
}

func (d *responses) added(o obj) error {
	idx, err := o.needIndex("output_index")
	if err != nil {
		return fmt.Errorf("output_item.added: %w", err)
	}
	item, err := o.needObject("item")
	if err != nil {
		return fmt.Errorf("output_item.added: %w", err)
	}
	kind, err := item.needStr("type")
	if err != nil {
		return fmt.Errorf("item.%v", err)
	}
	id, _, err := item.str("id")
	if err != nil {
		return fmt.Errorf("item.%v", err)
	}
	if _, known := d.byIndex[idx]; !known && len(d.byIndex) >= d.s.o.MaxCalls*4 {
		// Hosted tools and messages are items too: bound them like calls.
		return fmt.Errorf("more than %d output items", d.s.o.MaxCalls*4)
	}
	it := &rItem{token: itoa(idx), fn: kind == "function_call", kind: kind}
	if prev := d.byIndex[idx]; prev != nil && (!prev.fn || !it.fn) {
		return fmt.Errorf("output_index %d added twice", idx)
	}
	if _, dup := d.byIndex[idx]; !dup {
		d.byIndex[idx] = it
	}
	if id != "" {
		if _, dup := d.items[id]; !dup {
			d.items[id] = d.byIndex[idx]
		} else if d.items[id] != d.byIndex[idx] {
			return fmt.Errorf("item id %q used by two output indexes", id)
		}
	}
	if !it.fn {
		return nil
	}
	call, err := item.needStr("call_id")
	if err != nil {
		return fmt.Errorf("item.%v", err)
	}
	name, err := item.needStr("name")
	if err != nil {
		return fmt.Errorf("item.%v", err)
	}
	// A second added for one output_index is begun again: the gate reports
	// duplicate-begin.
	if err := d.s.begin(it.token, call, name); err != nil {
		return err
	}
	if args, _, err := item.str("arguments"); err != nil {
		return fmt.Errorf("item.%v", err)
	} else if args != "" {
		d.s.delta(it.token, []byte(args))
	}
	return nil
}

// lookup finds the item an arguments event names: by item_id, as the
// protocol keys deltas, checked against output_index when both are given.
// An item never added is returned nil with a token, so that the gate
// reports unknown-call.
func (d *responses) lookup(o obj) (*rItem, string, error) {
	id, hasID, err := o.str("item_id")
	if err != nil {
		return nil, "", err
	}
	idx, hasIdx, err := o.index("output_index")
	if err != nil {
		return nil, "", err
	}
	switch {
	case hasID:
		it := d.items[id]
		if it != nil && hasIdx && it.token != itoa(idx) {
			return nil, "", fmt.Errorf("item_id %q is output_index %s, not %d", id, it.token, idx)
		}
		if it != nil {
			return it, it.token, nil
		}
		if hasIdx {
			if d.byIndex[idx] != nil {
				return nil, "", fmt.Errorf("item_id %q is not the item at output_index %d", id, idx)
			}
			return nil, itoa(idx), nil
		}
		if err := bare("item_id", id, d.s.o.MaxID); err != nil {
			return nil, "", err
		}
		return nil, id, nil
	case hasIdx:
		return d.byIndex[idx], itoa(idx), nil
	}
	return nil, "", fmt.Errorf("neither item_id nor output_index")
}

// itemDone checks a function_call's output_item.done against its
// function_call_arguments.done; it never makes a second end. Without an
// earlier done it is the call's end (providers that send no argument
// events). status "incomplete" means the call was cut: the attempt is
// truncated at once, whatever its terminal event says later.
func (d *responses) itemDone(o obj) error {
	item, err := o.needObject("item")
	if err != nil {
		return fmt.Errorf("output_item.done: %w", err)
	}
	kind, err := item.needStr("type")
	if err != nil {
		return fmt.Errorf("item.%v", err)
	}
	if kind != "function_call" {
		return nil
	}
	id, _, err := item.str("id")
	if err != nil {
		return fmt.Errorf("item.%v", err)
	}
	var it *rItem
	if id != "" {
		it = d.items[id]
	}
	if idx, ok, err := o.index("output_index"); err != nil {
		return err
	} else if ok {
		if it == nil {
			it = d.byIndex[idx]
		} else if it.token != itoa(idx) {
			return fmt.Errorf("output_item.done: item %q is output_index %s, not %d", id, it.token, idx)
		}
	}
	if it == nil || !it.fn {
		return fmt.Errorf("output_item.done for a function_call that was never added")
	}
	if it.closed {
		return fmt.Errorf("output_item.done twice for output_index %s", it.token)
	}
	it.closed = true
	status, err := item.needStr("status")
	if err != nil {
		return fmt.Errorf("item.%v", err)
	}
	args, hasArgs, err := item.str("arguments")
	if err != nil {
		return fmt.Errorf("item.%v", err)
	}
	switch status {
	case "incomplete":
		d.s.closeWith(sealgate.Truncated)
		return nil
	case "completed":
	default:
		return fmt.Errorf("output_item.done: function_call status %q", status)
	}
	if !hasArgs {
		return fmt.Errorf("output_item.done: item.arguments missing")
	}
	if !it.ended {
		it.ended, it.final = true, []byte(args)
		d.s.endFinal(it.token, []byte(args))
		return nil
	}
	if !bytes.Equal(it.final, []byte(args)) {
		return fmt.Errorf("output_item.done arguments differ from function_call_arguments.done for output_index %s", it.token)
	}
	it.final = nil
	return nil
}
