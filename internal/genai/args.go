package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"google.golang.org/genai"
)

// callArgs is what an application builds from a streamed call's
// partialArgs, since the genai SDK hands them over raw: a JSON value per
// jsonPath, strings appended while their piece says willContinue. Objects
// keep their members in arrival order, so that the text it writes can be
// compared byte for byte with the gate's.
type callArgs struct {
	root   *node
	open   string // the jsonPath whose string continues, or ""
	pieces int
}

// node is one JSON value under construction.
type node struct {
	kind  byte // '{', '[', or 's' (string), 'v' (any other scalar)
	names []string
	kids  map[string]*node
	elems []*node
	text  string // a string's content, or a scalar's JSON text
}

func newCallArgs() *callArgs { return &callArgs{root: &node{kind: '{', kids: map[string]*node{}}} }

// seg is one step of a jsonPath: a member name or an array index.
type seg struct {
	name  string
	index int // -1 for a member
}

// parsePath reads the jsonPaths Vertex sends: $ then .name, ['name'] or
// ["name"], and [N]. An application needs no more; anything else is an
// error naming the path.
func parsePath(p string) ([]seg, error) {
	if !strings.HasPrefix(p, "$") {
		return nil, fmt.Errorf("jsonPath %q does not start with $", p)
	}
	var out []seg
	for i := 1; i < len(p); {
		switch {
		case p[i] == '.':
			j := i + 1
			for j < len(p) && p[j] != '.' && p[j] != '[' {
				j++
			}
			if j == i+1 {
				return nil, fmt.Errorf("jsonPath %q: empty name at byte %d", p, i)
			}
			out = append(out, seg{name: p[i+1 : j], index: -1})
			i = j
		case strings.HasPrefix(p[i:], "['") || strings.HasPrefix(p[i:], `["`):
			q := p[i+1]
			var name strings.Builder
			j := i + 2
			for ; j < len(p) && p[j] != q; j++ {
				if p[j] == '\\' && j+1 < len(p) {
					j++
				}
				name.WriteByte(p[j])
			}
			if j+1 >= len(p) || p[j+1] != ']' {
				return nil, fmt.Errorf("jsonPath %q: unterminated name at byte %d", p, i)
			}
			out = append(out, seg{name: name.String(), index: -1})
			i = j + 2
		case p[i] == '[':
			j := strings.IndexByte(p[i:], ']')
			if j < 0 {
				return nil, fmt.Errorf("jsonPath %q: unterminated index at byte %d", p, i)
			}
			n, err := strconv.Atoi(p[i+1 : i+j])
			if err != nil || n < 0 {
				return nil, fmt.Errorf("jsonPath %q: bad index %q", p, p[i+1:i+j])
			}
			out = append(out, seg{index: n})
			i += j + 1
		default:
			return nil, fmt.Errorf("jsonPath %q: unexpected %q at byte %d", p, p[i], i)
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("jsonPath %q names the root, not an argument", p)
	}
	return out, nil
}

// add sets one piece's value at its path.
func (a *callArgs) add(pa *genai.PartialArg) error {
	if pa == nil {
		return errors.New("nil partialArg")
	}
	path, err := parsePath(pa.JsonPath)
	if err != nil {
		return err
	}
	a.pieces++
	cont := pa.WillContinue != nil && *pa.WillContinue
	var leaf *node
	switch {
	case pa.NumberValue != nil:
		b, err := json.Marshal(*pa.NumberValue)
		if err != nil {
			return fmt.Errorf("jsonPath %s: %v", pa.JsonPath, err)
		}
		leaf = &node{kind: 'v', text: string(b)}
	case pa.BoolValue != nil:
		leaf = &node{kind: 'v', text: strconv.FormatBool(*pa.BoolValue)}
	case pa.NULLValue != "":
		leaf = &node{kind: 'v', text: "null"}
	default:
		leaf = &node{kind: 's', text: pa.StringValue}
	}
	n := a.root
	for i, s := range path {
		last := i == len(path)-1
		if s.index < 0 {
			if n.kind != '{' {
				return fmt.Errorf("jsonPath %s: member %q of a value that is not an object", pa.JsonPath, s.name)
			}
			kid := n.kids[s.name]
			switch {
			case kid == nil && last:
				n.kids[s.name] = leaf
				n.names = append(n.names, s.name)
			case kid == nil:
				kid = container(path[i+1])
				n.kids[s.name] = kid
				n.names = append(n.names, s.name)
			case last && kid.kind == 's' && leaf.kind == 's' && a.open == pa.JsonPath:
				kid.text += leaf.text
			case last:
				return fmt.Errorf("jsonPath %s: set twice", pa.JsonPath)
			}
			n = n.kids[s.name]
			continue
		}
		if n.kind != '[' {
			return fmt.Errorf("jsonPath %s: index %d of a value that is not an array", pa.JsonPath, s.index)
		}
		switch {
		case s.index == len(n.elems) && last:
			n.elems = append(n.elems, leaf)
		case s.index == len(n.elems):
			n.elems = append(n.elems, container(path[i+1]))
		case s.index > len(n.elems):
			return fmt.Errorf("jsonPath %s: index %d after %d elements", pa.JsonPath, s.index, len(n.elems))
		case last && n.elems[s.index].kind == 's' && leaf.kind == 's' && a.open == pa.JsonPath:
			n.elems[s.index].text += leaf.text
		case last:
			return fmt.Errorf("jsonPath %s: set twice", pa.JsonPath)
		}
		n = n.elems[s.index]
	}
	a.open = ""
	if cont && leaf.kind == 's' {
		a.open = pa.JsonPath
	}
	return nil
}

// container is the empty container a path step needs next.
func container(next seg) *node {
	if next.index >= 0 {
		return &node{kind: '['}
	}
	return &node{kind: '{', kids: map[string]*node{}}
}

// JSON writes the arguments compact, members in arrival order, strings
// with the escapes JSON needs and no others.
func (a *callArgs) JSON() []byte {
	var b bytes.Buffer
	a.root.write(&b)
	return b.Bytes()
}

func (n *node) write(b *bytes.Buffer) {
	switch n.kind {
	case '{':
		b.WriteByte('{')
		for i, k := range n.names {
			if i > 0 {
				b.WriteByte(',')
			}
			writeString(b, k)
			b.WriteByte(':')
			n.kids[k].write(b)
		}
		b.WriteByte('}')
	case '[':
		b.WriteByte('[')
		for i, e := range n.elems {
			if i > 0 {
				b.WriteByte(',')
			}
			e.write(b)
		}
		b.WriteByte(']')
	case 's':
		writeString(b, n.text)
	default:
		b.WriteString(n.text)
	}
}

func writeString(b *bytes.Buffer, s string) {
	enc := json.NewEncoder(b)
	enc.SetEscapeHTML(false)
	enc.Encode(s)           // a Go string always encodes
	b.Truncate(b.Len() - 1) // the newline Encode adds
}

// Object is the arguments as the map an application hands its tool
// (FunctionCall.Args's type).
func (a *callArgs) Object() (map[string]any, error) {
	var m map[string]any
	err := json.Unmarshal(a.JSON(), &m)
	return m, err
}
