package wire

import (
	"bytes"
	"fmt"

	"github.com/sealgate/sealgate"
)

// anthropic decodes the Anthropic Messages stream.
type anthropic struct {
	s          *sink
	msgID      string // the message id, as it keys items
	blocks     map[int]*aBlock
	stopReason string
	toolUse    bool // a client tool_use block was begun in this message
}

type aBlock struct {
	kind        string
	token       string
	placeholder []byte // the content_block_start input, when it is the {} placeholder
	gotBytes    bool   // a non-empty partial_json arrived
	stopped     bool
}

func (d *anthropic) frame(f frame) error {
	o, typ, err := typedFrame(f)
	if err != nil {
		return err
	}
	s := d.s
	switch typ {
	case "ping":
		return nil
	case "message_start":
		switch s.state {
		case live:
			// A second message inside an open one: a spliced body (an
			// intermediary retried upstream), never a new turn.
			s.splice()
			return nil
		case dead:
			return nil
		}
		return d.start(o)
	case "message_stop":
		return s.terminal(d.status(), "message_stop with no message open")
	case "error":
		if s.state == live || s.state == dead {
			s.closeWith(sealgate.Failed)
		}
		return nil
	}
	switch s.state {
	case idle:
		switch typ {
		case "content_block_start", "content_block_delta", "content_block_stop", "message_delta":
			return fmt.Errorf("%s before message_start", typ)
		}
		return nil
	case draining, dead:
		return nil
	}
	switch typ {
	case "content_block_start":
		return d.blockStart(o)
	case "content_block_delta":
		return d.blockDelta(o)
	case "content_block_stop":
		idx, err := o.needIndex("index")
		if err != nil {
			return fmt.Errorf("content_block_stop: %w", err)
		}
		b := d.blocks[idx]
		if b == nil {
			return fmt.Errorf("content_block_stop for index %d, never started", idx)
		}
		if b.kind != "tool_use" {
			return nil
		}
		if !b.gotBytes && b.placeholder != nil && !b.stopped {
			// A tool with no arguments streams only "": its bytes are the
			// start block's input, the {} the API put there.
			s.delta(b.token, b.placeholder)
		}
		b.stopped = true
		s.end(b.token)
	case "message_delta":
		delta, _, err := o.object("delta")
		if err != nil {
			return err
		}
		if r, ok, err := delta.str("stop_reason"); err != nil {
			return fmt.Errorf("delta.%v", err)
		} else if ok {
			if d.stopReason != "" && d.stopReason != r {
				// A later delta could turn max_tokens into tool_use.
				return fmt.Errorf("stop_reason %q after %q: a message stops for one reason", r, d.stopReason)
			}
			d.stopReason = r
		}
	}
	// Unknown event types are skipped, as the API asks of clients.
	return nil
}

func (d *anthropic) start(o obj) error {
	msg, err := o.needObject("message")
	if err != nil {
		return fmt.Errorf("message_start: %w", err)
	}
	id, _, err := msg.str("id")
	if err != nil {
		return fmt.Errorf("message.%v", err)
	}
	if err := d.s.open(id); err != nil {
		return err
	}
	d.msgID, d.blocks, d.toolUse = d.s.cur, map[int]*aBlock{}, false
	d.stopReason, _, err = msg.str("stop_reason")
	if err != nil {
		return fmt.Errorf("message.%v", err)
	}
	content, _, err := msg.array("content")
	if err != nil {
		return fmt.Errorf("message.%v", err)
	}
	// Programmatic tool calling: whole tool_use blocks inside message_start.
	for i, raw := range content {
		b, err := elemObj(fmt.Sprintf("message.content[%d]", i), raw)
		if err != nil {
			return err
		}
		kind, err := b.needStr("type")
		if err != nil {
			return fmt.Errorf("message.content[%d].%v", i, err)
		}
		tok := d.msgID + ":" + itoa(i)
		d.blocks[i] = &aBlock{kind: kind, token: tok, stopped: true}
		if kind != "tool_use" {
			continue
		}
		if err := d.beginTool(tok, b); err != nil {
			return fmt.Errorf("message.content[%d]: %v", i, err)
		}
		input, ok := b.raw("input")
		if !ok {
			return fmt.Errorf("message.content[%d]: tool_use without input", i)
		}
		d.s.delta(tok, input)
		d.s.end(tok)
	}
	return nil
}

func (d *anthropic) beginTool(tok string, b obj) error {
	id, err := b.needStr("id")
	if err != nil {
		return err
	}
	name, err := b.needStr("name")
	if err != nil {
		return err
	}
	d.toolUse = true
	return d.s.begin(tok, id, name)
}

func (d *anthropic) blockStart(o obj) error {
	idx, err := o.needIndex("index")
	if err != nil {
		return fmt.Errorf("content_block_start: %w", err)
	}
	b, err := o.needObject("content_block")
	if err != nil {
		return fmt.Errorf("content_block_start: %w", err)
	}
	kind, err := b.needStr("type")
	if err != nil {
		return fmt.Errorf("content_block.%v", err)
	}
	tok := d.msgID + ":" + itoa(idx)
	if prev := d.blocks[idx]; prev != nil && (prev.kind != "tool_use" || kind != "tool_use") {
		return fmt.Errorf("content_block_start for index %d twice", idx)
	}
	if len(d.blocks) >= d.s.o.MaxCalls*4 {
		return fmt.Errorf("more than %d content blocks", d.s.o.MaxCalls*4)
	}
	blk := &aBlock{kind: kind, token: tok}
	if d.blocks[idx] == nil {
		d.blocks[idx] = blk
	}
	// server_tool_use, mcp_tool_use and the like run at Anthropic: never a
	// begin. Their input_json_delta events are skipped by block type.
	if kind != "tool_use" {
		return nil
	}
	if err := d.beginTool(tok, b); err != nil {
		return fmt.Errorf("content_block: %v", err)
	}
	input, ok := b.raw("input")
	if !ok {
		input = []byte("null")
		if _, present := b.keyIndex("input"); !present {
			return fmt.Errorf("content_block: tool_use without input")
		}
	}
	if isEmptyObject(input) {
		blk.placeholder = input
		return nil
	}
	// Input given whole at the start (programmatic calls, some proxies) is
	// the call's bytes, as received.
	d.s.delta(tok, input)
	blk.gotBytes = true
	return nil
}

func (d *anthropic) blockDelta(o obj) error {
	idx, err := o.needIndex("index")
	if err != nil {
		return fmt.Errorf("content_block_delta: %w", err)
	}
	delta, err := o.needObject("delta")
	if err != nil {
		return fmt.Errorf("content_block_delta: %w", err)
	}
	kind, err := delta.needStr("type")
	if err != nil {
		return fmt.Errorf("delta.%v", err)
	}
	b := d.blocks[idx]
	if b == nil {
		if kind == "input_json_delta" {
			// Bytes for a block never started: the gate reports unknown-call.
			pj, err := delta.needStr("partial_json")
			if err != nil {
				return fmt.Errorf("delta.%v", err)
			}
			d.s.delta(d.msgID+":"+itoa(idx), []byte(pj))
			return nil
		}
		return fmt.Errorf("content_block_delta for index %d, never started", idx)
	}
	if b.kind != "tool_use" {
		return nil
	}
	if kind != "input_json_delta" {
		return fmt.Errorf("content_block_delta %s for a tool_use block", kind)
	}
	pj, err := delta.needStr("partial_json")
	if err != nil {
		return fmt.Errorf("delta.%v", err)
	}
	if pj != "" {
		b.gotBytes = true
	}
	d.s.delta(b.token, []byte(pj))
	return nil
}

// status maps the message's stop_reason at message_stop. Only tool_use
// completes a message that holds client tool calls.
func (d *anthropic) status() sealgate.Status {
	switch d.stopReason {
	case "tool_use":
		return sealgate.Complete
	case "end_turn", "stop_sequence":
		if d.toolUse {
			return sealgate.Failed
		}
		return sealgate.Complete
	case "max_tokens", "model_context_window_exceeded", "pause_turn":
		return sealgate.Truncated
	}
	// refusal, a missing stop_reason, or one this decoder does not know.
	return sealgate.Failed
}

func isEmptyObject(b []byte) bool {
	t := bytes.Trim(b, " \t\r\n")
	return len(t) >= 2 && t[0] == '{' && len(bytes.Trim(t[1:len(t)-1], " \t\r\n")) == 0 && t[len(t)-1] == '}'
}

// keyIndex reports whether a member is present, null included.
func (o obj) keyIndex(k string) (int, bool) {
	for i, key := range o.keys {
		if key == k {
			return i, true
		}
	}
	return 0, false
}
