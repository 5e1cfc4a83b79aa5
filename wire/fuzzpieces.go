package wire

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"math/rand"
	"strings"
	"unicode/utf8"

	"github.com/sealgate/sealgate"
	"github.com/sealgate/sealgate/internal/fuzzkit"
)

// The Vertex generators and the body of FuzzWireVertexPieces, in plain
// code like fuzzbody.go (the round trip uses genVertexFrags). Nothing here
// is reachable from the package's API.

var vertexPieceExecs = fuzzkit.NewCounter("FuzzWireVertexPieces")

// Names and strings that stress a jsonPath and a JSON string: shorthand
// and bracket names, quotes, escapes, non-ASCII, the empty name.
var (
	genNames   = []string{"a", "b_1", "é", "a b", "it's", `q"t`, `back\slash`, "0", "$", "", "日本", "x.y", "[0]"}
	genStrings = []string{"", "x", "Boston", `"quoted"`, `\`, "\n\t\r", "\x01\x1f", "é", "日本", "🎉", "\u2028", "a\"b\\c"}
	genNumbers = []string{"0", "-1", "2.5e3", "0.5", "-0", "1E-7", "123456789012345678901234567890", "1e308"}
)

// genVertexFrags returns the fragments the Vertex byte rule writes for a
// random arguments object, written here independently of the decoder:
// compact, minimal escapes, no empty container below the root (no piece
// can write one), a fragment ending at each value, strings cut at random
// rune boundaries, then the closers as the last fragment.
func genVertexFrags(r *rand.Rand) [][]byte {
	var frags [][]byte
	cur := []byte{'{'}
	flush := func() { frags = append(frags, cur); cur = nil }
	esc := func(s string) []byte { q := quote(s); return []byte(q[1 : len(q)-1]) }
	var value func(depth int)
	members := func(depth int) {
		used := map[string]bool{}
		for n := 1 + r.Intn(3); n > 0; n-- {
			name := genNames[r.Intn(len(genNames))]
			if used[name] {
				continue
			}
			if len(used) > 0 {
				cur = append(cur, ',')
			}
			used[name] = true
			cur = append(cur, quote(name)...)
			cur = append(cur, ':')
			value(depth + 1)
		}
	}
	value = func(depth int) {
		switch k := r.Intn(8); {
		case k == 0 && depth < 4:
			cur = append(cur, '{')
			members(depth)
			cur = append(cur, '}')
		case k == 1 && depth < 4:
			cur = append(cur, '[')
			for n := 1 + r.Intn(3); n > 0; n-- {
				value(depth + 1)
				if n > 1 {
					cur = append(cur, ',')
				}
			}
			cur = append(cur, ']')
		case k == 2 || k == 3:
			var s string
			for n := r.Intn(3); n >= 0; n-- {
				s += genStrings[r.Intn(len(genStrings))]
			}
			cur = append(cur, '"')
			rs := []rune(s)
			// Cut points: maybe right after the quote, maybe before the
			// closing one, and some between runes.
			if r.Intn(4) == 0 {
				flush()
			}
			for len(rs) > 0 {
				n := 1 + r.Intn(len(rs))
				cur = append(cur, esc(string(rs[:n]))...)
				rs = rs[n:]
				if len(rs) > 0 && r.Intn(2) == 0 {
					flush()
				}
			}
			if r.Intn(4) == 0 && len(cur) > 0 {
				flush()
			}
			cur = append(cur, '"')
			flush()
		case k == 4:
			cur = append(cur, genNumbers[r.Intn(len(genNumbers))]...)
			flush()
		case k == 5:
			cur = append(cur, []string{"true", "false"}[r.Intn(2)]...)
			flush()
		default:
			cur = append(cur, "null"...)
			flush()
		}
	}
	members(0)
	cur = append(cur, '}')
	flush()
	return frags
}

// vertexPieceRun is FuzzWireVertexPieces's body: a random sequence of
// Vertex chunks (starts, pieces over a small alphabet of paths and values,
// terminal {}, finishes), decoded. The decoder must not panic; it either
// succeeds or fails with one of the named protocol errors; every call's
// text is a prefix of a JSON text (the bare NaN and Infinity tokens of
// non-finite numbers aside, which the generator alone decides to send),
// complete and an object once the call ended; and a call the decoder ended
// with no error is exactly the value its pieces spell, as a plain model of
// the pieces writes it.
func vertexPieceRun(t fuzzkit.TB, seed int64) {
	t.Helper()
	vertexPieceExecs.Add()
	r := rand.New(rand.NewSource(seed))
	var body strings.Builder
	chunk := func(fc string) {
		body.WriteString(`data: {"candidates":[{"content":{"parts":[{"functionCall":` + fc + `}]}}],"responseId":"v"}` + "\n\n")
	}
	nonFinite := false
	calls := map[string][]piece{} // the pieces sent, by the item the decoder gives
	cur, n := "", 0
	var last []pathSeg
	segs := []pathSeg{{name: "a"}, {name: "b"}, {name: "a b"}, {index: 0, isIdx: true}, {index: 1, isIdx: true}, {index: 2, isIdx: true}}
	for steps := 1 + r.Intn(24); steps > 0; steps-- {
		switch k := r.Intn(10); {
		case k == 0 || cur == "" && k < 5:
			cur = "0:" + itoa(n)
			n++
			chunk(`{"name":"f","willContinue":true}`)
		case k == 1:
			chunk(`{}`)
			cur = ""
		default:
			var ps []string
			for m := 1 + r.Intn(3); m > 0; m-- {
				// The next path: often the last one, a sibling or a child
				// of it, so that long valid sequences happen.
				var p []pathSeg
				switch j := r.Intn(4); {
				case j == 0 && len(last) > 0:
					p = append(p, last...)
				case j == 1 && len(last) > 0:
					p = append(p, last...)
					if s := &p[len(p)-1]; s.isIdx {
						s.index++
					} else {
						s.name += "x"
					}
				default:
					for d := 1 + r.Intn(3); d > 0; d-- {
						p = append(p, segs[r.Intn(len(segs))])
					}
				}
				last = p
				pc := piece{path: p}
				v := ""
				switch r.Intn(6) {
				case 0, 1:
					pc.kind, pc.text, pc.cont = kString, genStrings[r.Intn(len(genStrings))], r.Intn(2) == 0
					v = `"stringValue":` + quote(pc.text)
					if pc.cont {
						v += `,"willContinue":true`
					}
				case 2:
					pc.kind, pc.text = kNumber, genNumbers[r.Intn(len(genNumbers))]
					if r.Intn(8) == 0 {
						pc.text = []string{"NaN", "Infinity", "-Infinity", "1e400"}[r.Intn(4)]
						nonFinite = true
					}
					if pc.text[0] == 'N' || pc.text[0] == 'I' || pc.text == "-Infinity" {
						v = `"numberValue":"` + pc.text + `"`
					} else {
						v = `"numberValue":` + pc.text
					}
				case 3:
					pc.kind, pc.text = kBool, []string{"true", "false"}[r.Intn(2)]
					v = `"boolValue":` + pc.text
				default:
					pc.kind = kNull
					v = `"nullValue":"NULL_VALUE"`
				}
				ps = append(ps, `{"jsonPath":`+quote(genPathText(r, p))+`,`+v+`}`)
				calls[cur] = append(calls[cur], pc)
			}
			wc := ""
			if r.Intn(4) > 0 {
				wc = `,"willContinue":true`
			}
			chunk(`{"partialArgs":[` + strings.Join(ps, ",") + `]` + wc + `}`)
		}
	}
	if r.Intn(2) == 0 {
		body.WriteString(`data: {"candidates":[{"content":{"parts":[{"text":""}]},"finishReason":"STOP"}],"responseId":"v"}` + "\n\n")
	}
	evs, err := Decode(Gemini, strings.NewReader(body.String()), Options{})
	if err != nil && !slicesContainsErr(err) {
		t.Fatalf("seed %d: an error that is not a named protocol error: %v\n%s", seed, err, body.String())
	}
	texts, ended := map[string][]byte{}, map[string]bool{}
	for _, e := range evs {
		switch e.Kind {
		case sealgate.Delta:
			texts[e.Item] = append(texts[e.Item], e.Bytes...)
		case sealgate.End:
			ended[e.Item] = true
		}
	}
	for item, text := range texts {
		check := text
		if nonFinite {
			for _, tok := range []string{"-Infinity", "Infinity", "NaN"} {
				check = bytes.ReplaceAll(check, []byte(tok), []byte("0"))
			}
		}
		if perr := jsonPrefix(check); perr != nil {
			t.Fatalf("seed %d: item %s built %q, not a prefix of JSON: %v\n%s", seed, item, text, perr, body.String())
		}
		if !ended[item] {
			continue
		}
		if verr := validate(check); verr != nil || check[0] != '{' {
			t.Fatalf("seed %d: item %s ended with %q, not a JSON object: %v", seed, item, text, verr)
		}
		if err == nil {
			if want := modelText(calls[item]); want != string(text) {
				t.Fatalf("seed %d: item %s built %q, its pieces spell %q\n%s", seed, item, text, want, body.String())
			}
		}
	}
}

func slicesContainsErr(err error) bool {
	for _, e := range VertexErrors {
		if errors.Is(err, e) {
			return true
		}
	}
	return false
}

// genPathText writes p in one of the jsonPath forms the decoder reads.
func genPathText(r *rand.Rand, p []pathSeg) string {
	s := "$"
	for _, g := range p {
		switch {
		case g.isIdx:
			s += "[" + itoa(g.index) + "]"
		case isShorthand(g.name) && r.Intn(2) == 0:
			s += "." + g.name
		case !strings.ContainsAny(g.name, `"\`) && r.Intn(2) == 0:
			s += `["` + g.name + `"]`
		default:
			s += "[" + quotePathName(g.name) + "]"
		}
	}
	return s
}

// jsonPrefix: b is valid UTF-8 and a prefix of one JSON text, as
// encoding/json's tokenizer reads it (an end of input inside a value is
// fine, a syntax error or a second value is not).
func jsonPrefix(b []byte) error {
	if !utf8.Valid(b) {
		return errors.New("not UTF-8")
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	depth, started := 0, false
	for {
		tok, err := dec.Token()
		if err == io.EOF || err == io.ErrUnexpectedEOF {
			return nil
		}
		if err != nil {
			return err
		}
		if started && depth == 0 {
			return errors.New("text after the value")
		}
		started = true
		switch tok {
		case json.Delim('{'), json.Delim('['):
			depth++
		case json.Delim('}'), json.Delim(']'):
			depth--
		}
	}
}

// mnode is the plain model of a value built from pieces.
type mnode struct {
	kind  valueKind
	keys  []string
	kids  map[string]*mnode
	elems []*mnode
	text  string
}

// modelText writes the value pieces spell: each path walked from the root,
// containers made as the path needs them, members kept in first-arrival
// order, a string's pieces joined.
func modelText(pieces []piece) string {
	root := &mnode{kind: kObject, kids: map[string]*mnode{}}
	for _, p := range pieces {
		n := root
		for i, s := range p.path {
			leaf := i == len(p.path)-1
			var child *mnode
			if s.isIdx {
				if s.index < len(n.elems) {
					child = n.elems[s.index]
				} else {
					child = &mnode{}
					n.elems = append(n.elems, child)
				}
			} else {
				if child = n.kids[s.name]; child == nil {
					child = &mnode{}
					n.kids[s.name] = child
					n.keys = append(n.keys, s.name)
				}
			}
			switch {
			case leaf:
				child.kind = p.kind
				child.text += p.text
			case p.path[i+1].isIdx:
				child.kind = kArray
			default:
				child.kind = kObject
				if child.kids == nil {
					child.kids = map[string]*mnode{}
				}
			}
			n = child
		}
	}
	var b strings.Builder
	var write func(n *mnode)
	write = func(n *mnode) {
		switch n.kind {
		case kObject:
			b.WriteByte('{')
			for i, k := range n.keys {
				if i > 0 {
					b.WriteByte(',')
				}
				b.WriteString(quote(k) + ":")
				write(n.kids[k])
			}
			b.WriteByte('}')
		case kArray:
			b.WriteByte('[')
			for i, e := range n.elems {
				if i > 0 {
					b.WriteByte(',')
				}
				write(e)
			}
			b.WriteByte(']')
		case kString:
			b.WriteString(quote(n.text))
		case kNull:
			b.WriteString("null")
		default:
			b.WriteString(n.text)
		}
	}
	write(root)
	return b.String()
}

// vertexPieceSeeds are FuzzWireVertexPieces's seeds.
func vertexPieceSeeds() [][]any {
	var out [][]any
	for i := int64(0); i < 8; i++ {
		out = append(out, []any{i})
	}
	return out
}
