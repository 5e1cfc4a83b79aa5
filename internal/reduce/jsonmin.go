package reduce

import "bytes"

// value is a JSON text parsed only as far as shrinking it needs: every
// string, name and number keeps its bytes as written, so that an escape or
// a long mantissa the failure depends on survives every edit that does not
// touch it.
type value struct {
	kind  byte     // '{', '[', '"', '0' (number) or 'l' (true, false, null)
	raw   []byte   // the bytes of a string (quotes included), number or literal
	names [][]byte // an object's member names as written, quotes included
	kids  []*value // an object's member values or an array's elements
}

// maxValueDepth bounds the recursion of parseValue; deeper texts are left
// to the byte cuts.
const maxValueDepth = 64

// parseValue reads b as exactly one JSON value with optional whitespace
// around it, or reports false. It is lenient where the gate's parser is
// strict (duplicate names, noncharacters, number grammar): it only has to
// find the structure, and the checker judges every candidate.
func parseValue(b []byte) (*value, bool) {
	p := &valueParser{b: b}
	v := p.value(0)
	p.space()
	if v == nil || p.i != len(b) {
		return nil, false
	}
	return v, true
}

type valueParser struct {
	b []byte
	i int
}

func (p *valueParser) space() {
	for p.i < len(p.b) && isSpace(p.b[p.i]) {
		p.i++
	}
}

func (p *valueParser) value(depth int) *value {
	p.space()
	if p.i >= len(p.b) || depth > maxValueDepth {
		return nil
	}
	switch c := p.b[p.i]; {
	case c == '{' || c == '[':
		return p.container(c, depth)
	case c == '"':
		if s := p.str(); s != nil {
			return &value{kind: '"', raw: s}
		}
		return nil
	case c == '-' || '0' <= c && c <= '9':
		start := p.i
		for p.i < len(p.b) && bytes.IndexByte([]byte("+-.eE0123456789"), p.b[p.i]) >= 0 {
			p.i++
		}
		return &value{kind: '0', raw: p.b[start:p.i]}
	default:
		for _, lit := range []string{"true", "false", "null"} {
			if bytes.HasPrefix(p.b[p.i:], []byte(lit)) {
				p.i += len(lit)
				return &value{kind: 'l', raw: []byte(lit)}
			}
		}
	}
	return nil
}

func (p *valueParser) container(open byte, depth int) *value {
	close := byte('}')
	if open == '[' {
		close = ']'
	}
	v := &value{kind: open}
	p.i++
	p.space()
	if p.i < len(p.b) && p.b[p.i] == close {
		p.i++
		return v
	}
	for {
		if open == '{' {
			p.space()
			name := p.str()
			p.space()
			if name == nil || p.i >= len(p.b) || p.b[p.i] != ':' {
				return nil
			}
			p.i++
			v.names = append(v.names, name)
		}
		kid := p.value(depth + 1)
		if kid == nil {
			return nil
		}
		v.kids = append(v.kids, kid)
		p.space()
		if p.i >= len(p.b) {
			return nil
		}
		switch p.b[p.i] {
		case ',':
			p.i++
		case close:
			p.i++
			return v
		default:
			return nil
		}
	}
}

// str reads a string, quotes included, or returns nil.
func (p *valueParser) str() []byte {
	if p.i >= len(p.b) || p.b[p.i] != '"' {
		return nil
	}
	start := p.i
	for p.i++; p.i < len(p.b); p.i++ {
		switch p.b[p.i] {
		case '\\':
			p.i++
		case '"':
			p.i++
			return p.b[start:p.i]
		}
	}
	return nil
}

// noEdit is an edit number that no edit has: render prints the value as it
// is (compact) and leaves in *k how many edits it passed.
const noEdit = 1 << 30

// render prints v compactly with edit number *k applied, counting down:
// the edits, in document order, are a container of two or more emptied, a
// member or element removed, a member name made "", a string made "", a number made 0.
// Each is a shorter text; the checker decides which still fail.
func (v *value) render(k *int) []byte {
	hit := func() bool {
		if *k == 0 {
			*k = -1
			return true
		}
		*k--
		return false
	}
	switch v.kind {
	case '{', '[':
		open, close := "{", "}"
		if v.kind == '[' {
			open, close = "[", "]"
		}
		if len(v.kids) > 1 && hit() { // with one kid, removing it is the same edit
			return []byte(open + close)
		}
		out := []byte(open)
		first := true
		for i, kid := range v.kids {
			if hit() {
				continue
			}
			if !first {
				out = append(out, ',')
			}
			first = false
			if v.kind == '{' {
				name := v.names[i]
				if string(name) != `""` && hit() {
					name = []byte(`""`)
				}
				out = append(append(out, name...), ':')
			}
			out = append(out, kid.render(k)...)
		}
		return append(out, close...)
	case '"':
		if string(v.raw) != `""` && hit() {
			return []byte(`""`)
		}
	case '0':
		if string(v.raw) != "0" && hit() {
			return []byte("0")
		}
	}
	return v.raw
}

// minimizeJSON shrinks a delta that holds one whole JSON value by
// structure: the edits of render, one at a time, kept while the failure
// survives. A fragment that is not one whole value is left to the byte
// cuts.
func (r *reducer) minimizeJSON(i int) bool {
	changed := false
	for k := 0; r.tries < r.max; {
		v, ok := parseValue(r.events[i].Bytes)
		if !ok {
			return changed
		}
		n := noEdit
		v.render(&n)
		if k >= noEdit-n {
			return changed
		}
		e := k
		if r.replaceFragment(i, v.render(&e)) {
			changed = true
			continue // the same edit number now names the next edit
		}
		k++
	}
	return changed
}
