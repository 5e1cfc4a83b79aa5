package wire

import (
	"bytes"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"unicode/utf16"
	"unicode/utf8"
)

// Vertex AI streams a Gemini 3 call's arguments (streamFunctionCallArguments)
// as values at JSONPaths, not as bytes. The gate's contract is about bytes,
// so this file builds them, one way only (the byte rule of the package doc
// and docs/wire-vertex.md): compact text, members in arrival order, each
// piece appended as it arrives, nothing ever rewritten.

// The protocol errors of a Vertex streamed call. Each fails the attempt
// (close failed); they are named so that a caller can tell a stream that
// broke the protocol from one the decoder merely could not read.
var (
	// ErrClosedMember: a path goes back into a member (or array element)
	// already closed, or writes the same member twice.
	ErrClosedMember = errors.New("path goes back into a member already closed")
	// ErrIndexOrder: an array index that is not the next one (arrays are
	// built from 0, in order, without gaps).
	ErrIndexOrder = errors.New("array index out of order")
	// ErrNoOpenCall: a piece, or the terminal functionCall:{}, for no open
	// streamed call.
	ErrNoOpenCall = errors.New("piece for no open call")
	// ErrTypeChange: the kind of value under one path changes (a string
	// continued as a number, an object indexed as an array, a scalar
	// given members).
	ErrTypeChange = errors.New("value type changes under one path")
	// ErrOpenString: a piece for another path, or the call's end, while
	// a string value still continues (willContinue).
	ErrOpenString = errors.New("string value still open")
	// ErrCallOpen: a new functionCall while a streamed call of the same
	// candidate has not ended.
	ErrCallOpen = errors.New("functionCall while a streamed call is still open")
	// ErrBadPiece: a piece the protocol does not allow (a jsonPath outside
	// the RFC 9535 singular-query subset, no value or two values,
	// willContinue on a value that is not a string).
	ErrBadPiece = errors.New("bad partialArgs piece")
)

// VertexErrors lists the named protocol errors of a Vertex streamed call.
var VertexErrors = []error{ErrClosedMember, ErrIndexOrder, ErrNoOpenCall, ErrTypeChange, ErrOpenString, ErrCallOpen, ErrBadPiece}

// pathSeg is one segment of a jsonPath: a member name or an array index.
type pathSeg struct {
	name  string
	index int
	isIdx bool
}

func (s pathSeg) String() string {
	if s.isIdx {
		return "[" + strconv.Itoa(s.index) + "]"
	}
	if isShorthand(s.name) {
		return "." + s.name
	}
	return "[" + quotePathName(s.name) + "]"
}

func pathString(p []pathSeg) string {
	var b strings.Builder
	b.WriteByte('$')
	for _, s := range p {
		b.WriteString(s.String())
	}
	return b.String()
}

// maxPathIndex bounds an array index in a path (indexes arrive in order,
// so a larger one could only be a gap).
const maxPathIndex = 1 << 30

// parsePath reads a jsonPath: "$" then segments, each .name (RFC 9535
// member-name-shorthand), ['name'] or ["name"] (RFC 9535 string literals
// and their escapes), or [N] (a non-negative index, no leading zero). That
// is RFC 9535's singular query: one member or element per segment, the
// only kind that addresses a place to write. The root alone is refused:
// the arguments are an object, and a piece writes one of its members.
func parsePath(s string) ([]pathSeg, error) {
	bad := func(at int, why string) error {
		return fmt.Errorf("%w: jsonPath %q, byte %d: %s", ErrBadPiece, s, at, why)
	}
	if !strings.HasPrefix(s, "$") {
		return nil, bad(0, "a path starts with $")
	}
	var out []pathSeg
	i := 1
	for i < len(s) {
		if len(out) >= maxDepth {
			return nil, bad(i, fmt.Sprintf("deeper than %d", maxDepth))
		}
		switch s[i] {
		case '.':
			j := i + 1
			for j < len(s) {
				r, n := utf8.DecodeRuneInString(s[j:])
				if !nameChar(r, j == i+1) {
					break
				}
				j += n
			}
			if j == i+1 {
				return nil, bad(i, "a member name must follow '.' (ALPHA, '_' or non-ASCII first; bracket notation for others)")
			}
			out = append(out, pathSeg{name: s[i+1 : j]})
			i = j
		case '[':
			j := skipBlank(s, i+1)
			if j >= len(s) {
				return nil, bad(i, "unterminated '['")
			}
			var seg pathSeg
			switch c := s[j]; {
			case c == '\'' || c == '"':
				name, end, err := pathName(s, j)
				if err != nil {
					return nil, bad(j, err.Error())
				}
				seg, j = pathSeg{name: name}, end
			case c >= '0' && c <= '9':
				k := j
				for k < len(s) && s[k] >= '0' && s[k] <= '9' {
					k++
				}
				if s[j] == '0' && k > j+1 {
					return nil, bad(j, "an index has no leading zero")
				}
				n, err := strconv.Atoi(s[j:k])
				if err != nil || n > maxPathIndex {
					return nil, bad(j, "index too large")
				}
				seg, j = pathSeg{index: n, isIdx: true}, k
			case c == '-':
				return nil, bad(j, "a negative index counts from the end of an array: it addresses no place to write")
			default:
				return nil, bad(j, "a quoted name or an index was expected (one selector per segment)")
			}
			j = skipBlank(s, j)
			if j >= len(s) || s[j] != ']' {
				return nil, bad(j, "']' was expected")
			}
			out = append(out, seg)
			i = j + 1
		default:
			return nil, bad(i, "'.' or '[' was expected")
		}
	}
	if len(out) == 0 {
		return nil, bad(len(s), "the root itself: a piece writes a member of the arguments object")
	}
	return out, nil
}

func skipBlank(s string, i int) int {
	for i < len(s) && (s[i] == ' ' || s[i] == '\t' || s[i] == '\n' || s[i] == '\r') {
		i++
	}
	return i
}

// nameChar: RFC 9535 name-first (first) or name-char.
func nameChar(r rune, first bool) bool {
	switch {
	case r == utf8.RuneError:
		return false
	case r >= 'A' && r <= 'Z', r >= 'a' && r <= 'z', r == '_', r >= 0x80:
		return true
	case r >= '0' && r <= '9':
		return !first
	}
	return false
}

func isShorthand(name string) bool {
	if name == "" {
		return false
	}
	for i, r := range name {
		if !nameChar(r, i == 0) {
			return false
		}
	}
	return true
}

// pathName reads an RFC 9535 string literal starting at s[i] (a quote)
// and returns its value and the index after it.
func pathName(s string, i int) (string, int, error) {
	q := s[i]
	var b strings.Builder
	for j := i + 1; j < len(s); {
		c := s[j]
		switch {
		case c == q:
			return b.String(), j + 1, nil
		case c < 0x20:
			return "", 0, errors.New("a control character in a name")
		case c != '\\':
			b.WriteByte(c)
			j++
			continue
		}
		if j+1 >= len(s) {
			break
		}
		switch e := s[j+1]; e {
		case 'b':
			b.WriteByte('\b')
		case 'f':
			b.WriteByte('\f')
		case 'n':
			b.WriteByte('\n')
		case 'r':
			b.WriteByte('\r')
		case 't':
			b.WriteByte('\t')
		case '/', '\\':
			b.WriteByte(e)
		case '\'', '"':
			if e != q {
				return "", 0, fmt.Errorf("escape \\%c in a %c-quoted name", e, q)
			}
			b.WriteByte(e)
		case 'u':
			r, n, ok := pathU(s[j:])
			if !ok {
				return "", 0, errors.New("a bad or lone-surrogate \\u escape in a name")
			}
			b.WriteRune(r)
			j += n
			continue
		default:
			return "", 0, fmt.Errorf("bad escape \\%c in a name", e)
		}
		j += 2
	}
	return "", 0, errors.New("unterminated name")
}

// pathU reads \uXXXX (a surrogate pair as two) at the start of s.
func pathU(s string) (rune, int, bool) {
	hex := func(s string) (rune, bool) {
		if len(s) < 6 || s[0] != '\\' || s[1] != 'u' {
			return 0, false
		}
		for i := 2; i < 6; i++ {
			if !isHex(s[i]) {
				return 0, false
			}
		}
		return hex4([]byte(s[2:6])), true
	}
	r, ok := hex(s)
	if !ok {
		return 0, 0, false
	}
	if !utf16.IsSurrogate(r) {
		return r, 6, true
	}
	r2, ok := hex(s[6:])
	if !ok || r >= 0xDC00 || r2 < 0xDC00 || r2 > 0xDFFF {
		return 0, 0, false
	}
	return utf16.DecodeRune(r, r2), 12, true
}

// quotePathName writes name as an RFC 9535 single-quoted string literal.
func quotePathName(name string) string {
	var b strings.Builder
	b.WriteByte('\'')
	for _, r := range name {
		switch {
		case r == '\'':
			b.WriteString(`\'`)
		case r == '\\':
			b.WriteString(`\\`)
		case r < 0x20:
			fmt.Fprintf(&b, `\u%04x`, r)
		default:
			b.WriteRune(r)
		}
	}
	b.WriteByte('\'')
	return b.String()
}

// valueKind is the kind of value a path holds.
type valueKind uint8

const (
	kObject valueKind = iota
	kArray
	kString
	kNumber
	kBool
	kNull
)

func (k valueKind) String() string {
	return [...]string{"an object", "an array", "a string", "a number", "a boolean", "null"}[k]
}

// piece is one partialArgs element, read.
type piece struct {
	path []pathSeg
	kind valueKind // kString, kNumber, kBool or kNull
	text string    // string: its value; number and bool: the JSON text to write
	cont bool      // willContinue (strings only)
}

// container is one open object or array of the text being built.
type container struct {
	seg   pathSeg // how its parent addresses it (none for the root)
	array bool
	names map[string]bool // object: members written
	n     int             // members or elements written
}

// argsBuilder builds one streamed call's argument text from its pieces.
type argsBuilder struct {
	open    []*container // open containers; open[0] is the root object
	leaf    pathSeg      // the last value written, a member of the top container
	leafK   valueKind
	hasLeaf bool
	strOpen bool // the leaf is a string that continues
}

func newArgsBuilder() *argsBuilder { return &argsBuilder{} }

// add appends piece p and returns the bytes it writes.
func (b *argsBuilder) add(p piece) ([]byte, error) {
	var w []byte
	if len(b.open) == 0 {
		b.open = []*container{{names: map[string]bool{}}}
		w = append(w, '{')
	}
	if b.strOpen {
		cur := b.curPath()
		if !slices.Equal(cur, p.path) {
			return nil, fmt.Errorf("%w: a piece for %s while the string at %s continues", ErrOpenString, pathString(p.path), pathString(cur))
		}
		if p.kind != kString {
			return nil, fmt.Errorf("%w: %s is a continuing string, then %s", ErrTypeChange, pathString(p.path), p.kind)
		}
		w = appendEscaped(w, p.text)
		if !p.cont {
			w = append(w, '"')
			b.strOpen = false
		}
		return w, nil
	}
	// k: how many segments of p.path name open containers (below the root).
	m := len(b.open) - 1
	k := 0
	for k < m && k < len(p.path) && p.path[k] == b.open[k+1].seg {
		k++
	}
	n := len(p.path)
	if k == n {
		return nil, fmt.Errorf("%w: %s is %s, then %s", ErrTypeChange, pathString(p.path), kindOf(b.open[k]), p.kind)
	}
	c := b.open[k]
	next := p.path[k]
	if next.isIdx != c.array {
		return nil, fmt.Errorf("%w: %s is %s, then addressed as %s", ErrTypeChange, pathString(p.path[:k]), kindOf(c), map[bool]string{true: "an array", false: "an object"}[next.isIdx])
	}
	if k == m && b.hasLeaf && next == b.leaf {
		if n > k+1 {
			return nil, fmt.Errorf("%w: %s is %s, then given members", ErrTypeChange, pathString(p.path[:k+1]), b.leafK)
		}
		if b.leafK != p.kind {
			return nil, fmt.Errorf("%w: %s is %s, then %s", ErrTypeChange, pathString(p.path), b.leafK, p.kind)
		}
	}
	switch {
	case !c.array && c.names[next.name]:
		return nil, fmt.Errorf("%w: %s", ErrClosedMember, pathString(p.path[:k+1]))
	case c.array && next.index < c.n:
		return nil, fmt.Errorf("%w: %s (the array has %d elements)", ErrClosedMember, pathString(p.path[:k+1]), c.n)
	case c.array && next.index > c.n:
		return nil, fmt.Errorf("%w: %s, where index %d was next", ErrIndexOrder, pathString(p.path[:k+1]), c.n)
	}
	for _, s := range p.path[k+1 : n] {
		if s.isIdx && s.index != 0 {
			return nil, fmt.Errorf("%w: %s opens an array at index %d, not 0", ErrIndexOrder, pathString(p.path), s.index)
		}
	}
	// The piece is valid: close what it leaves, then write it.
	for len(b.open)-1 > k {
		w = append(w, closer(b.open[len(b.open)-1]))
		b.open = b.open[:len(b.open)-1]
	}
	w = b.member(w, c, next)
	for _, s := range p.path[k+1 : n] {
		nc := &container{seg: next, array: s.isIdx}
		if !nc.array {
			nc.names = map[string]bool{}
			w = append(w, '{')
		} else {
			w = append(w, '[')
		}
		b.open = append(b.open, nc)
		w = b.member(w, nc, s)
		next = s
	}
	b.leaf, b.leafK, b.hasLeaf = next, p.kind, true
	switch p.kind {
	case kString:
		w = append(w, '"')
		w = appendEscaped(w, p.text)
		if p.cont {
			b.strOpen = true
		} else {
			w = append(w, '"')
		}
	case kNull:
		w = append(w, "null"...)
	default:
		w = append(w, p.text...)
	}
	return w, nil
}

// member writes the separator and name for a new member s of c.
func (b *argsBuilder) member(w []byte, c *container, s pathSeg) []byte {
	if c.n > 0 {
		w = append(w, ',')
	}
	c.n++
	if !c.array {
		c.names[s.name] = true
		w = append(w, quote(s.name)...)
		w = append(w, ':')
	}
	b.hasLeaf = false
	return w
}

// end returns the bytes that close the text: the open containers' closers,
// or {} for a call that sent no piece.
func (b *argsBuilder) end() ([]byte, error) {
	if b.strOpen {
		return nil, fmt.Errorf("%w: the call ends while the string at %s continues", ErrOpenString, pathString(b.curPath()))
	}
	if len(b.open) == 0 {
		return []byte("{}"), nil
	}
	var w []byte
	for i := len(b.open) - 1; i >= 0; i-- {
		w = append(w, closer(b.open[i]))
	}
	b.open = nil
	return w, nil
}

// curPath is the path of the last value written (a continuing string's).
func (b *argsBuilder) curPath() []pathSeg {
	var out []pathSeg
	for _, c := range b.open[1:] {
		out = append(out, c.seg)
	}
	return append(out, b.leaf)
}

func closer(c *container) byte {
	if c.array {
		return ']'
	}
	return '}'
}

func kindOf(c *container) valueKind {
	if c.array {
		return kArray
	}
	return kObject
}

// appendEscaped writes s as the inside of a JSON string, with the minimal
// escapes of quote.
func appendEscaped(w []byte, s string) []byte {
	q := quote(s)
	return append(w, q[1:len(q)-1]...)
}

// readPiece reads one partialArgs element.
func readPiece(raw []byte) (piece, error) {
	var p piece
	o, err := elemObj("piece", raw)
	if err != nil {
		return p, fmt.Errorf("%w: %v", ErrBadPiece, err)
	}
	path, err := o.needStr("jsonPath")
	if err != nil {
		return p, fmt.Errorf("%w: %v", ErrBadPiece, err)
	}
	if p.path, err = parsePath(path); err != nil {
		return p, err
	}
	values := 0
	for _, k := range o.keys {
		switch k {
		case "stringValue", "numberValue", "boolValue", "nullValue":
			values++
		}
	}
	if values != 1 {
		return p, fmt.Errorf("%w: %s: %d of stringValue, numberValue, boolValue, nullValue (exactly one is the piece's value)", ErrBadPiece, path, values)
	}
	bad := func(what string) (piece, error) {
		return p, fmt.Errorf("%w: %s: %s", ErrBadPiece, path, what)
	}
	switch {
	case o.hasKey("stringValue"):
		p.kind = kString
		s, ok, err := o.str("stringValue")
		if err != nil || !ok {
			return bad("stringValue: a string was expected")
		}
		p.text = s
	case o.hasKey("numberValue"):
		p.kind = kNumber
		v, _ := o.rawKey("numberValue")
		switch string(v) {
		case `"NaN"`, `"Infinity"`, `"-Infinity"`:
			// The proto3 JSON forms of the doubles JSON cannot write: the
			// value is written as the bare token, outside the grammar, so
			// that the gate rejects this call malformed-json (and only it).
			p.text = string(v[1 : len(v)-1])
		default:
			if v[0] != '-' && (v[0] < '0' || v[0] > '9') {
				return bad("numberValue: a JSON number was expected")
			}
			// As received: a number that overflows a double (1e400) is in
			// the JSON grammar but not finite, and the gate's strict parse
			// rejects it malformed-json.
			p.text = string(v)
		}
	case o.hasKey("boolValue"):
		p.kind = kBool
		v, _ := o.rawKey("boolValue")
		if s := string(v); s != "true" && s != "false" {
			return bad("boolValue: true or false was expected")
		}
		p.text = string(v)
	default:
		p.kind = kNull
		v, _ := o.rawKey("nullValue")
		if s := string(v); s != "null" && s != `"NULL_VALUE"` {
			return bad(`nullValue: "NULL_VALUE" or null was expected`)
		}
	}
	cont, _, err := o.boolean("willContinue")
	if err != nil {
		return bad(err.Error())
	}
	if cont && p.kind != kString {
		return bad("willContinue on " + p.kind.String() + ": only a string continues")
	}
	p.cont = cont
	return p, nil
}

// vertexPieces reads back the pieces whose byte-rule writing is frags,
// one piece a fragment, and with ended a last fragment of closers. It is
// the encoder's side of the rule: fragments cut anywhere else, or in
// another form (whitespace, other escapes, an empty container), are an
// error, because no piece sequence writes them.
func vertexPieces(frags [][]byte, ended bool) ([]piece, error) {
	np := len(frags)
	if ended {
		np--
	}
	var text []byte
	bounds := map[int]bool{}
	for _, f := range frags[:max(np, 0)] {
		text = append(text, f...)
		bounds[len(text)] = true
	}
	pieces, err := readPieces(text, bounds)
	if err != nil {
		return nil, fmt.Errorf("the fragments are not pieces of the Vertex byte rule: %v", err)
	}
	b := newArgsBuilder()
	wrong := func(i int, got []byte) error {
		return fmt.Errorf("fragment %d is %q, the byte rule writes %q for its piece: the fragments are not pieces of the Vertex byte rule", i+1, frags[i], got)
	}
	if len(pieces) != np {
		return nil, fmt.Errorf("%d fragments, %d pieces: the fragments are not pieces of the Vertex byte rule", np, len(pieces))
	}
	for i, p := range pieces {
		got, err := b.add(p)
		if err != nil {
			return nil, err
		}
		if !bytes.Equal(got, frags[i]) {
			return nil, wrong(i, got)
		}
	}
	if ended {
		got, err := b.end()
		if err != nil {
			return nil, err
		}
		if !bytes.Equal(got, frags[np]) {
			return nil, wrong(np, got)
		}
	}
	return pieces, nil
}

// readPieces walks a compact argument text (or a prefix of one that stops
// at a piece boundary) and returns its leaves as pieces, a string split at
// the bounds that fall inside it.
func readPieces(t []byte, bounds map[int]bool) ([]piece, error) {
	if len(t) == 0 {
		return nil, nil
	}
	if t[0] != '{' {
		return nil, errors.New("the text does not start with {")
	}
	type level struct {
		path  []pathSeg
		array bool
		n     int
	}
	stack := []*level{{}}
	var out []piece
	i := 1
	for len(stack) > 0 && i < len(t) {
		top := stack[len(stack)-1]
		if c := t[i]; c == '}' && !top.array || c == ']' && top.array {
			stack = stack[:len(stack)-1]
			i++
			continue
		}
		if top.n > 0 {
			if t[i] != ',' {
				return nil, fmt.Errorf("byte %d: ',' was expected", i)
			}
			i++
		}
		path := append(append([]pathSeg{}, top.path...), pathSeg{index: top.n, isIdx: top.array})
		top.n++
		if !top.array {
			if i >= len(t) || t[i] != '"' {
				return nil, fmt.Errorf("byte %d: a member name was expected", i)
			}
			end, err := scanString(t, i)
			if err != nil {
				return nil, err
			}
			name, err := unquote(t[i:end])
			if err != nil {
				return nil, err
			}
			path[len(path)-1] = pathSeg{name: name}
			i = end
			if i >= len(t) || t[i] != ':' {
				return nil, fmt.Errorf("byte %d: ':' was expected", i)
			}
			i++
		}
		if i >= len(t) {
			return nil, fmt.Errorf("byte %d: a value was expected", i)
		}
		switch c := t[i]; {
		case c == '{' || c == '[':
			if len(stack) >= maxDepth {
				return nil, fmt.Errorf("byte %d: nested deeper than %d", i, maxDepth)
			}
			stack = append(stack, &level{path: path, array: c == '['})
			i++
		case c == '"':
			// The string's content, cut at the bounds inside it; an
			// unterminated string may end the text (a cut call).
			j, start := i+1, i+1
			emit := func(cont bool) error {
				lit := []byte(`"` + string(t[start:j]) + `"`)
				if validate(lit) != nil {
					return fmt.Errorf("byte %d: a fragment cuts an escape or a character", j)
				}
				s, err := unquote(lit)
				if err != nil {
					return err
				}
				out = append(out, piece{path: path, kind: kString, text: s, cont: cont})
				start = j
				return nil
			}
			for {
				if j > len(t) {
					return nil, fmt.Errorf("byte %d: an escape is cut", len(t))
				}
				if j == len(t) {
					if err := emit(true); err != nil {
						return nil, err
					}
					i = j
					break
				}
				if bounds[j] {
					if err := emit(true); err != nil {
						return nil, err
					}
				}
				if t[j] == '"' {
					if err := emit(false); err != nil {
						return nil, err
					}
					i = j + 1
					break
				}
				if t[j] == '\\' {
					j++
				}
				j++
			}
		default:
			j := i
			for j < len(t) && t[j] != ',' && t[j] != '}' && t[j] != ']' {
				j++
			}
			tok := string(t[i:j])
			p := piece{path: path, text: tok}
			switch {
			case tok == "true" || tok == "false":
				p.kind = kBool
			case tok == "null":
				p.kind, p.text = kNull, ""
			case tok == "NaN" || tok == "Infinity" || tok == "-Infinity":
				p.kind = kNumber
			default:
				if end, err := scanNumber(t, i); err != nil || end != j {
					return nil, fmt.Errorf("byte %d: a value was expected", i)
				}
				p.kind = kNumber
			}
			out = append(out, p)
			i = j
		}
	}
	if i < len(t) {
		return nil, fmt.Errorf("byte %d: text after the value", i)
	}
	return out, nil
}
