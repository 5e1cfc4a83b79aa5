package partial

import (
	"strings"

	"github.com/sealgate/sealgate"
)

// The streaming form of the preview. A Watcher turns the growth of the
// visible text out[:shown] into Changes. It reads nothing else: the bytes
// past shown (tentative, secret or after the first violation, or past the
// cap) are never there to leak, and Write pays nothing when no one watches.
// Each visible byte is read at most twice per watcher (once more in a run
// of backslashes before a quote).

// ChangeKind says what one Change does to the preview.
type ChangeKind uint8

const (
	// ChangeOpen: a value becomes visible at Path with only its opening
	// byte, Text `{`, `[` or `"`. Like every change that starts a value,
	// it adds the member (last step named) or element (last step indexed)
	// to its parent.
	ChangeOpen ChangeKind = iota + 1
	// ChangeScalar: a complete number or literal is set at Path; Text is
	// its source text.
	ChangeScalar
	// ChangeRedacted: the value at Path is a secret and shows
	// "[redacted]". Text is empty: a secret's bytes are never read.
	ChangeRedacted
	// ChangeGrow: the string at Path grew by Text (complete characters,
	// source escapes kept).
	ChangeGrow
	// ChangeClose: the string, array or object at Path is complete. The
	// preview text does not change: an open value shows closed already.
	ChangeClose
	// ChangeStop: the preview will not change again; Violation tells the
	// first violation from the preview-bytes cap.
	ChangeStop
	// ChangeGone: the call is no longer live; its preview is "-" from here
	// on. Only the gate sends it.
	ChangeGone
)

var changeWords = [...]string{ChangeOpen: "open", ChangeScalar: "scalar", ChangeRedacted: "redacted",
	ChangeGrow: "grow", ChangeClose: "close", ChangeStop: "stop", ChangeGone: "gone"}

func (k ChangeKind) String() string {
	if int(k) < len(changeWords) && changeWords[k] != "" {
		return changeWords[k]
	}
	return "change?"
}

// PathStep is one step from the top-level value down: the Index-th element
// of an array, or the Index-th member of an object (Member true), named Name
// as written between its quotes (escapes kept, as the preview shows it).
type PathStep struct {
	Index  int
	Member bool
	Name   string
}

// Change is one step of a preview's growth. Path is shared between the
// changes of one value: read it, do not modify it. Text shares a block of
// about 4 KiB with the texts of nearby changes (one allocation per block,
// not per change), so keeping one Text keeps its block.
type Change struct {
	Kind      ChangeKind
	Path      []PathStep
	Text      string
	Violation bool // ChangeStop only
}

func (c Change) String() string {
	var b strings.Builder
	b.WriteString(c.Kind.String())
	b.WriteByte(' ')
	if len(c.Path) == 0 {
		b.WriteByte('.')
	}
	for _, s := range c.Path {
		if s.Member {
			b.WriteString(`/"` + s.Name + `"`)
		} else {
			b.WriteString("/" + itoa(s.Index))
		}
	}
	if c.Text != "" {
		b.WriteString(" " + c.Text)
	}
	if c.Kind == ChangeStop && c.Violation {
		b.WriteString(" violation")
	}
	return b.String()
}

func itoa(n int) string {
	if n == 0 {
		return "0"
	}
	var d [20]byte
	i := len(d)
	for ; n > 0; n /= 10 {
		i--
		d[i] = byte('0' + n%10)
	}
	return string(d[i:])
}

// wframe is an open container as the watcher has seen it.
type wframe struct {
	obj      bool
	n        int        // children seen
	wantName bool       // object: the next string is a name
	name     string     // object: the last name read
	path     []PathStep // this container's path
}

// Watcher reads a Parser's preview as a sequence of Changes. It is not safe
// for concurrent use with the parser's Write.
type Watcher struct {
	p       *Parser
	pos     int // out[:pos] has been turned into changes
	ri      int // next index in p.redactedAt
	stack   []wframe
	inStr   bool // inside a visible string value (or name, when inName)
	inName  bool
	strPath []PathStep // the open string value's path
	strAt   int        // offset in out of the open string value's quote
	nameAt  int        // offset in out of the name being read
	stopped bool       // ChangeStop was sent
	texts   textArena
}

// textArena makes the changes' Text strings. A string per change would be
// an allocation per delta; the arena copies the texts into shared blocks
// instead. It is a strings.Builder that is only ever appended to, and a
// Builder never modifies bytes it has already handed out as a string, so
// each Text stays as it was. A fresh block starts when the current one is
// full (never growing it in place), so a Text keeps at most one block
// alive.
type textArena struct{ b strings.Builder }

const textBlock = 4 << 10

func (t *textArena) text(p []byte) string {
	if t.b.Cap()-t.b.Len() < len(p) {
		t.b = strings.Builder{}
		t.b.Grow(max(textBlock, len(p)))
	}
	start := t.b.Len()
	t.b.Write(p)
	return t.b.String()[start:]
}

// Watch returns a watcher that starts from the empty preview: its first
// Next reports everything visible so far.
func (p *Parser) Watch() *Watcher { return &Watcher{p: p} }

// childPath is the path of the next value in the innermost container.
func (w *Watcher) childPath() []PathStep {
	if len(w.stack) == 0 {
		return nil
	}
	f := &w.stack[len(w.stack)-1]
	path := make([]PathStep, len(f.path)+1)
	copy(path, f.path)
	path[len(f.path)] = PathStep{Index: f.n, Member: f.obj, Name: f.name}
	f.n++
	return path
}

// valueDone records that the innermost container's current value ended.
func (w *Watcher) valueDone() {
	if n := len(w.stack); n > 0 && w.stack[n-1].obj {
		w.stack[n-1].wantName = false
	}
}

// grow appends the ChangeGrow of the open string. It fills the new element
// in place: building the Change first and copying it in stalled on every
// delta (a 56-byte store read back as wider loads).
func (w *Watcher) grow(dst []Change, text []byte) []Change {
	dst = append(dst, Change{})
	c := &dst[len(dst)-1]
	c.Kind, c.Path, c.Text = ChangeGrow, w.strPath, w.texts.text(text)
	return dst
}

// Next appends to dst the changes since the last call and returns it.
func (w *Watcher) Next(dst []Change) []Change {
	p := w.p
	if p.retired {
		return dst // not even a stop: the call's preview is over, not capped
	}
	out, end := p.out, p.shown
	if w.inStr && !w.inName && w.pos < end && !p.stopped && p.inValueString(w.strAt) {
		// The common case, a long string value growing: all that became
		// visible is its text.
		dst = w.grow(dst, out[w.pos:end])
		w.pos = end
		return dst
	}
	for w.pos < end {
		if w.inStr {
			// While the parser still holds this value string open, all
			// that is visible past pos is its text: no quote to look for.
			i := end
			if w.inName || !p.inValueString(w.strAt) {
				i = sealgate.StringEnd(out[:end], w.pos)
			}
			if w.inName {
				if i == end {
					w.pos = end
					break
				}
				f := &w.stack[len(w.stack)-1]
				f.name, f.wantName = string(out[w.nameAt:i]), false
				w.inStr, w.inName, w.pos = false, false, i+1
				continue
			}
			if i > w.pos {
				dst = w.grow(dst, out[w.pos:i])
			}
			if i == end {
				w.pos = end
				break
			}
			dst = append(dst, Change{Kind: ChangeClose, Path: w.strPath})
			w.inStr, w.strPath, w.pos = false, nil, i+1
			w.valueDone()
			continue
		}
		c := out[w.pos]
		switch c {
		case ',':
			if n := len(w.stack); n > 0 && w.stack[n-1].obj {
				w.stack[n-1].wantName = true
			}
			w.pos++
		case ':':
			w.pos++
		case '"':
			if n := len(w.stack); n > 0 && w.stack[n-1].wantName {
				w.inStr, w.inName, w.nameAt = true, true, w.pos+1
				w.pos++
				continue
			}
			path := w.childPath()
			if w.ri < len(p.redactedAt) && p.redactedAt[w.ri] == w.pos {
				dst = append(dst, Change{Kind: ChangeRedacted, Path: path})
				w.ri++
				w.pos += len(redacted)
				w.valueDone()
				continue
			}
			dst = append(dst, Change{Kind: ChangeOpen, Path: path, Text: `"`})
			w.inStr, w.strPath, w.strAt = true, path, w.pos
			w.pos++
		case '{', '[':
			path := w.childPath()
			dst = append(dst, Change{Kind: ChangeOpen, Path: path, Text: string(c)})
			w.stack = append(w.stack, wframe{obj: c == '{', wantName: c == '{', path: path})
			w.pos++
		case '}', ']':
			f := w.stack[len(w.stack)-1]
			dst = append(dst, Change{Kind: ChangeClose, Path: f.path})
			w.stack = w.stack[:len(w.stack)-1]
			w.valueDone()
			w.pos++
		default:
			// A number or literal: out[:shown] only ever holds complete
			// ones, ended by a comma, a closer or the end of the text.
			i := w.pos + 1
			for i < end && out[i] != ',' && out[i] != ']' && out[i] != '}' {
				i++
			}
			dst = append(dst, Change{Kind: ChangeScalar, Path: w.childPath(), Text: w.texts.text(out[w.pos:i])})
			w.pos = i
			w.valueDone()
		}
	}
	if p.stopped && !w.stopped && w.pos == end {
		w.stopped = true
		dst = append(dst, Change{Kind: ChangeStop, Violation: p.violated})
	}
	return dst
}

// View is a preview rebuilt from Changes alone, as a UI would keep it. Its
// String is the snapshot text.
type View struct {
	root *vnode
	gone bool

	// The string that grew last and its path, so that the next growth of
	// the same string (a ChangeGrow per delta) skips the walk from the
	// root. A sender shares one Path between the changes of a value and
	// never modifies it, so the same first element means the same path.
	lastPath []PathStep
	last     *vnode
}

type vnode struct {
	kind  byte // '{', '[', '"', 's' (scalar or redacted text)
	text  rope
	names []string
	kids  []*vnode
}

// rope is a text kept in the chunks it was written into, so that a long
// string grows without ever copying (or zeroing) what it already holds:
// growing one buffer by doubling touched twice the text's size in fresh
// memory and copied it once more. Chunks double from 64 bytes up to
// ropeChunk.
type rope struct {
	done []string // full chunks
	cur  strings.Builder
}

const ropeChunk = 64 << 10

func (r *rope) WriteString(s string) {
	if r.cur.Cap()-r.cur.Len() < len(s) {
		if r.cur.Len() > 0 {
			r.done = append(r.done, r.cur.String())
		}
		size := max(min(2*r.cur.Cap(), ropeChunk), 64, len(s))
		r.cur = strings.Builder{}
		r.cur.Grow(size)
	}
	r.cur.WriteString(s)
}

func (r *rope) writeTo(b *strings.Builder) {
	for _, s := range r.done {
		b.WriteString(s)
	}
	b.WriteString(r.cur.String())
}

// Apply applies one change. It reports false for a change that does not fit
// the view (a bug in the sender).
func (v *View) Apply(c Change) bool {
	switch c.Kind {
	case ChangeStop, ChangeClose:
		return true
	case ChangeGone:
		v.root, v.gone, v.lastPath, v.last = nil, true, nil, nil
		return true
	}
	if v.gone {
		return false
	}
	if c.Kind == ChangeGrow {
		n := v.last
		if !samePath(c.Path, v.lastPath) {
			if n = v.at(c.Path); n == nil || n.kind != '"' {
				return false
			}
			v.lastPath, v.last = c.Path, n
		}
		n.text.WriteString(c.Text)
		return true
	}
	n := &vnode{kind: 's'}
	switch c.Kind {
	case ChangeOpen:
		if c.Text != "{" && c.Text != "[" && c.Text != `"` {
			return false
		}
		n.kind = c.Text[0]
	case ChangeScalar:
		n.text.WriteString(c.Text)
	case ChangeRedacted:
		n.text.WriteString(redacted)
	default:
		return false
	}
	if len(c.Path) == 0 {
		if v.root != nil {
			return false
		}
		v.root = n
		return true
	}
	parent := v.at(c.Path[:len(c.Path)-1])
	last := c.Path[len(c.Path)-1]
	if parent == nil || last.Index != len(parent.kids) || last.Member != (parent.kind == '{') || parent.kind == '"' || parent.kind == 's' {
		return false
	}
	parent.kids = append(parent.kids, n)
	parent.names = append(parent.names, last.Name)
	return true
}

// samePath reports whether a and b are the same slice of one array (len 0
// never is: the root's path needs no walk).
func samePath(a, b []PathStep) bool {
	return len(a) == len(b) && len(a) > 0 && &a[0] == &b[0]
}

func (v *View) at(path []PathStep) *vnode {
	n := v.root
	for _, s := range path {
		if n == nil || s.Index < 0 || s.Index >= len(n.kids) {
			return nil
		}
		n = n.kids[s.Index]
	}
	return n
}

// String renders the view as the snapshot text, "-" when nothing is shown.
func (v *View) String() string {
	if v.root == nil {
		return "-"
	}
	var b strings.Builder
	var render func(n *vnode)
	render = func(n *vnode) {
		switch n.kind {
		case '"':
			b.WriteByte('"')
			n.text.writeTo(&b)
			b.WriteByte('"')
		case 's':
			n.text.writeTo(&b)
		default:
			b.WriteByte(n.kind)
			for i, k := range n.kids {
				if i > 0 {
					b.WriteByte(',')
				}
				if n.kind == '{' {
					b.WriteString(`"` + n.names[i] + `":`)
				}
				render(k)
			}
			if n.kind == '{' {
				b.WriteByte('}')
			} else {
				b.WriteByte(']')
			}
		}
	}
	render(v.root)
	return b.String()
}
