package sealgate_test

import (
	"bytes"
	"fmt"
	"io"
	"strings"
	"testing"

	"github.com/go-json-experiment/json/jsontext"
	"pgregory.net/rapid"

	"github.com/sealgate/sealgate"
	"github.com/sealgate/sealgate/gate"
	"github.com/sealgate/sealgate/model"
)

// Issue 4: the gate's incremental preview against the model's from-scratch
// one (SPEC section 8), its streaming form, consistency, redaction (I10)
// and the first violation.

// previewSecrets are the secret declarations of the preview tool.
var previewSecrets = []string{"token", "/auth/token", "/o/s"}

// secretMarks are the only characters a generated secret value is made of
// (digits 7 and 9 for numbers); public parts never contain them, so any of
// them in a preview is a piece of a secret.
const secretMarks = "QZ§79"

func previewConfig(depth, previewBytes int) sealgate.Config {
	cfg := sealgate.DefaultConfig()
	cfg.Tools = []sealgate.Tool{{Name: "t", Schema: `{"type":"object"}`, Secrets: previewSecrets}}
	cfg.Limits.Depth = depth
	cfg.Limits.PreviewBytes = previewBytes
	return cfg
}

func previewPaths(tb interface{ Fatal(...any) }) [][]string {
	var out [][]string
	for _, s := range previewSecrets {
		p, err := sealgate.SecretPath(s)
		if err != nil {
			tb.Fatal(err)
		}
		out = append(out, p)
	}
	return out
}

// failer is what rapid.T and testing.T share for these checks.
type failer interface {
	Helper()
	Fatalf(format string, args ...any)
}

// previewRun is one stream's observations.
type previewRun struct {
	values  []string // the peek value after each delta
	changes []gate.PreviewChange
	logs    []string // every decision line but releases (the execution channel) and previews (in values)
}

// runPreview feeds x in the given chunks to a fresh gate, peeking and
// reading the preview stream after every delta. At every peek it checks the
// gate against model.PreviewOf (when withModel) and the stream's rebuilt view
// against the peek.
func runPreview(t failer, x []byte, cuts []int, depth, previewBytes int, withModel bool) previewRun {
	t.Helper()
	g, err := gate.New(previewConfig(depth, previewBytes), gate.NewMemoryLedger())
	if err != nil {
		t.Fatalf("gate.New: %v", err)
	}
	return runPreviewOn(t, g, "r", x, cuts, depth, previewBytes, withModel)
}

// runPreviewOn is runPreview on an existing gate (built with
// previewConfig(depth, previewBytes)), under a fresh attempt id.
func runPreviewOn(t failer, g *gate.Gate, attempt string, x []byte, cuts []int, depth, previewBytes int, withModel bool) previewRun {
	t.Helper()
	paths := previewPaths(fatalOnly{t})
	var run previewRun
	feed := func(ev sealgate.Event) []sealgate.Decision {
		ds, err := g.Feed(ev)
		if err != nil {
			t.Fatalf("feed %v: %v", ev, err)
		}
		for _, d := range ds {
			if d.Kind != sealgate.Release && d.Kind != sealgate.PreviewAnswer {
				run.logs = append(run.logs, d.String())
			}
		}
		return ds
	}
	feed(sealgate.OpenEvent(attempt, "t"))
	feed(sealgate.BeginEvent(attempt, "0", "c", "t"))
	s, ok := g.Watch(attempt, "0")
	if !ok {
		t.Fatalf("Watch refused a live call")
	}
	var view gate.PreviewView
	apply := func() {
		n := len(run.changes)
		run.changes = s.Next(run.changes)
		for _, c := range run.changes[n:] {
			if !view.Apply(c) {
				t.Fatalf("%q: change %v does not fit the view %s", x, c, view.String())
			}
		}
	}
	last := 0
	step := func(end int) {
		feed(sealgate.DeltaEvent(attempt, "0", x[last:end]))
		last = end
		ds := feed(sealgate.PeekEvent(attempt, "0"))
		if len(ds) != 1 || ds[0].Kind != sealgate.PreviewAnswer {
			t.Fatalf("peek answered %v", ds)
		}
		p := ds[0].Preview
		run.values = append(run.values, p.Value)
		if withModel {
			if want := model.PreviewOf(x[:end], depth, previewBytes, paths); p != want {
				t.Fatalf("%q cut %v, after %d bytes: gate %+v, model %+v", x, cuts, end, p, want)
			}
		}
		apply()
		if view.String() != p.Value || s.Bytes() != p.Bytes {
			t.Fatalf("%q cut %v, after %d bytes: stream view %s bytes=%d, peek %s bytes=%d\nchanges %v",
				x, cuts, end, view.String(), s.Bytes(), p.Value, p.Bytes, run.changes)
		}
	}
	for _, c := range cuts {
		if c >= last && c <= len(x) {
			step(c)
		}
	}
	step(len(x))
	feed(sealgate.EndEvent(attempt, "0"))
	feed(sealgate.CloseEvent(attempt, sealgate.Complete))
	apply()
	if view.String() != "-" || run.changes[len(run.changes)-1].Kind != gate.ChangeGone {
		t.Fatalf("%q: after close the stream shows %s, last change %v", x, view.String(), run.changes[len(run.changes)-1])
	}
	return run
}

type fatalOnly struct{ t failer }

func (f fatalOnly) Fatal(args ...any) { f.t.Fatalf("%s", fmt.Sprint(args...)) }

// --- generators ---

// pubText is what public strings are made of: no secret mark, and escapes
// whose hex digits have no 7 or 9.
var pubText = []string{"a", "b", "p", " ", "é", `\n`, `\"`, `\\`, `\u4e2d`, "中", `\ud83d\ude00`, "😀", `\u0001`, `\/`}

var pubNumbers = []string{"0", "-0", "12", "-1.25", "1e3", "2.5E-3", "100000000000000000000000000000001", "1e-400", "-48"}

var names = []string{"path", "content", "token", "auth", "o", "s", "n", "a b", "名字", `tok\u0065n`, `\u0061uth`}

// unescapedName undoes the two escapes names may carry.
func unescapedName(n string) string {
	return strings.NewReplacer(`\u0065`, "e", `\u0061`, "a").Replace(n)
}

// genPublic writes a value of public bytes; paths are the secret paths
// relative to it (only objects follow them), secrets counts secret values.
func genPublic(t *rapid.T, b *bytes.Buffer, depth int, paths [][]string, secrets *int) {
	k := rapid.IntRange(0, 6).Draw(t, "kind")
	if depth > 3 && k >= 4 {
		k = 0
	}
	switch k {
	case 0, 1:
		b.WriteByte('"')
		for n := rapid.IntRange(0, 12).Draw(t, "len"); n > 0; n-- {
			b.WriteString(rapid.SampledFrom(pubText).Draw(t, "rune"))
		}
		b.WriteByte('"')
	case 2:
		b.WriteString(rapid.SampledFrom(pubNumbers).Draw(t, "number"))
	case 3:
		b.WriteString(rapid.SampledFrom([]string{"true", "false", "null"}).Draw(t, "literal"))
	case 4:
		b.WriteString("[" + pws(t))
		for i, n := 0, rapid.IntRange(0, 3).Draw(t, "items"); i < n; i++ {
			if i > 0 {
				b.WriteString("," + pws(t))
			}
			genPublic(t, b, depth+1, nil, secrets)
		}
		b.WriteString("]")
	default:
		genObject(t, b, depth, paths, secrets)
	}
}

func genObject(t *rapid.T, b *bytes.Buffer, depth int, paths [][]string, secrets *int) {
	b.WriteString("{" + pws(t))
	seen := map[string]bool{}
	for i, n := 0, rapid.IntRange(0, 4).Draw(t, "members"); i < n; i++ {
		name := rapid.SampledFrom(names).Draw(t, "name")
		u := unescapedName(name)
		if seen[u] {
			continue
		}
		if len(seen) > 0 {
			b.WriteString("," + pws(t))
		}
		seen[u] = true
		b.WriteString(`"` + name + `"` + pws(t) + ":" + pws(t))
		secret := false
		var sub [][]string
		for _, p := range paths {
			if p[0] == u {
				if len(p) == 1 {
					secret = true
				} else {
					sub = append(sub, p[1:])
				}
			}
		}
		if secret {
			*secrets++
			genSecret(t, b, depth+1)
		} else if len(sub) > 0 && rapid.Bool().Draw(t, "into") {
			genObject(t, b, depth+1, sub, secrets)
		} else {
			genPublic(t, b, depth+1, nil, secrets)
		}
		b.WriteString(pws(t))
	}
	b.WriteString("}")
}

// genSecret writes a secret value made only of secretMarks and syntax.
func genSecret(t *rapid.T, b *bytes.Buffer, depth int) {
	k := rapid.IntRange(0, 4).Draw(t, "secret-kind")
	if depth > 3 && k >= 3 {
		k = 0
	}
	switch k {
	case 0:
		b.WriteString(`"` + rapid.StringOfN(rapid.SampledFrom([]rune("QZ§")), 1, 12, -1).Draw(t, "secret") + `"`)
	case 1:
		b.WriteString(rapid.SampledFrom([]string{"7", "-97.79", "79e-9", "9E+7", "-7"}).Draw(t, "secret-number"))
	case 2:
		b.WriteString(rapid.SampledFrom([]string{"true", "false", "null"}).Draw(t, "secret-literal"))
	case 3:
		b.WriteString("[" + pws(t))
		for i, n := 0, rapid.IntRange(0, 3).Draw(t, "secret-items"); i < n; i++ {
			if i > 0 {
				b.WriteString(",")
			}
			genSecret(t, b, depth+1)
		}
		b.WriteString("]")
	default:
		b.WriteString("{" + pws(t))
		for i, n := 0, rapid.IntRange(0, 2).Draw(t, "secret-members"); i < n; i++ {
			if i > 0 {
				b.WriteString(",")
			}
			b.WriteString([]string{`"Q":`, `"ZZ" :`}[i])
			genSecret(t, b, depth+1)
		}
		b.WriteString("}")
	}
}

func pws(t *rapid.T) string {
	return rapid.SampledFrom([]string{"", "", "", " ", "\n  ", "\t", "\r\n"}).Draw(t, "ws")
}

// genDocument returns a valid object text and how many secret values it has.
func genDocument(t *rapid.T) ([]byte, int) {
	var b bytes.Buffer
	n := 0
	b.WriteString(pws(t))
	genObject(t, &b, 0, previewPathsRapid(t), &n)
	b.WriteString(pws(t))
	return b.Bytes(), n
}

func previewPathsRapid(t *rapid.T) [][]string { return previewPaths(fatalOnly{t}) }

// genBytes returns any byte string: a valid document, one with a byte
// changed, inserted or cut, or bytes from a JSON-ish alphabet.
func genBytes(t *rapid.T) []byte {
	doc, _ := genDocument(t)
	switch rapid.IntRange(0, 3).Draw(t, "mutation") {
	case 1:
		if len(doc) > 0 {
			i := rapid.IntRange(0, len(doc)-1).Draw(t, "at")
			doc[i] = rapid.SampledFrom([]byte("\x00\"\\,:{}[]0-e.x \xff\xc3\xed")).Draw(t, "byte")
		}
	case 2:
		i := rapid.IntRange(0, len(doc)).Draw(t, "at")
		doc = append(doc[:i:i], append([]byte{rapid.Byte().Draw(t, "byte")}, doc[i:]...)...)
	case 3:
		return rapid.SliceOfN(rapid.SampledFrom([]byte(`{}[]",:0123456789.-+eEtrufalsn \\u"ab`+"\xc3\xa9\xed\xa0\x80\xef\xbf\xbe")), 0, 60).Draw(t, "noise")
	}
	return doc
}

func genCuts(t *rapid.T, n int) []int {
	cuts := rapid.SliceOfN(rapid.IntRange(0, n), 0, 12).Draw(t, "cuts")
	// sorted, so that every drawn cut is used
	for i := 1; i < len(cuts); i++ {
		for j := i; j > 0 && cuts[j] < cuts[j-1]; j-- {
			cuts[j], cuts[j-1] = cuts[j-1], cuts[j]
		}
	}
	return cuts
}

func bytewiseCuts(n int) []int {
	cuts := make([]int, n)
	for i := range cuts {
		cuts[i] = i
	}
	return cuts
}

// --- properties ---

// TestPreviewMatchesModel: for any bytes, in any chunking, at every peek
// point, the gate's incremental preview equals the model's from-scratch one,
// and the stream's changes rebuild it. Byte by byte is the finest chunking.
func TestPreviewMatchesModel(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		x := genBytes(t)
		depth := rapid.SampledFrom([]int{1, 2, 3, 64}).Draw(t, "depth")
		capb := rapid.SampledFrom([]int{1, 5, 17, 40, 64 << 10}).Draw(t, "preview-bytes")
		runPreview(t, x, genCuts(t, len(x)), depth, capb, true)
		runPreview(t, x, bytewiseCuts(len(x)), depth, capb, true)
	})
}

// jnode is a parsed preview value, members in source order.
type jnode struct {
	kind  jsontext.Kind
	text  string // unescaped string, or number / literal text
	names []string
	kids  []*jnode
}

func parsePreview(s string) (*jnode, error) {
	d := jsontext.NewDecoder(strings.NewReader(s))
	var read func() (*jnode, error)
	read = func() (*jnode, error) {
		tok, err := d.ReadToken()
		if err != nil {
			return nil, err
		}
		n := &jnode{kind: tok.Kind()}
		switch n.kind {
		case '{', '[':
			for d.PeekKind() != '}' && d.PeekKind() != ']' {
				if n.kind == '{' {
					name, err := d.ReadToken()
					if err != nil {
						return nil, err
					}
					n.names = append(n.names, name.String())
				}
				k, err := read()
				if err != nil {
					return nil, err
				}
				n.kids = append(n.kids, k)
			}
			if _, err := d.ReadToken(); err != nil {
				return nil, err
			}
		default:
			n.text = tok.String()
		}
		return n, nil
	}
	n, err := read()
	if err == nil {
		if _, err2 := d.ReadToken(); err2 != io.EOF {
			err = fmt.Errorf("text after the value")
		}
	}
	return n, err
}

// consistent reports whether an earlier preview a can grow into b: same
// kinds, equal scalars, a string a prefix, every member or element but the
// last equal (same names, same order) and the last consistent.
func consistent(a, b *jnode, last bool) bool {
	if a.kind != b.kind {
		return false
	}
	switch a.kind {
	case '"':
		if last {
			return strings.HasPrefix(b.text, a.text)
		}
		return a.text == b.text
	case '{', '[':
		if len(a.kids) > len(b.kids) || (!last && len(a.kids) != len(b.kids)) {
			return false
		}
		for i, k := range a.kids {
			if a.kind == '{' && a.names[i] != b.names[i] {
				return false
			}
			if !consistent(k, b.kids[i], last && i == len(a.kids)-1) {
				return false
			}
		}
		return true
	}
	return a.text == b.text
}

// TestPreviewConsistentWithFinal: for a text that ends up valid, every
// preview is consistent with the final one (and with the next one); the
// final one is the whole value, compacted and redacted, when it fits in
// preview-bytes.
func TestPreviewConsistentWithFinal(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		x, _ := genDocument(t)
		run := runPreview(t, x, genCuts(t, len(x)), 64, 64<<10, false)
		final, err := parsePreview(run.values[len(run.values)-1])
		if err != nil {
			t.Fatalf("%q: final preview %s: %v", x, run.values[len(run.values)-1], err)
		}
		if want := model.PreviewOf(append(x, ' '), 64, 64<<10, previewPathsRapid(t)).Value; run.values[len(run.values)-1] != want {
			t.Fatalf("%q: final preview %s, want the whole value %s", x, run.values[len(run.values)-1], want)
		}
		for i, v := range run.values {
			if v == "-" {
				continue
			}
			p, err := parsePreview(v)
			if err != nil {
				t.Fatalf("%q: preview %s is not JSON: %v", x, v, err)
			}
			if !consistent(p, final, true) {
				t.Fatalf("%q: preview %s does not grow into the final %s", x, v, run.values[len(run.values)-1])
			}
			if i+1 < len(run.values) {
				next, _ := parsePreview(run.values[i+1])
				if !consistent(p, next, true) {
					t.Fatalf("%q: preview %s does not grow into the next %s", x, v, run.values[i+1])
				}
			}
		}
	})
}

// noSecret fails if a preview, a change or a log line holds a secret mark.
func noSecret(t failer, x []byte, how string, run previewRun) {
	t.Helper()
	for _, v := range run.values {
		if strings.ContainsAny(v, secretMarks) {
			t.Fatalf("%q %s: preview %s shows a piece of a secret", x, how, v)
		}
	}
	for _, c := range run.changes {
		if strings.ContainsAny(c.Text, secretMarks) {
			t.Fatalf("%q %s: change %v holds a piece of a secret", x, how, c)
		}
		for _, s := range c.Path {
			if strings.ContainsAny(s.Name, secretMarks) {
				t.Fatalf("%q %s: change %v holds a piece of a secret", x, how, c)
			}
		}
	}
	for _, l := range run.logs {
		if _, rest, _ := strings.Cut(l, " "); strings.ContainsAny(rest, secretMarks) {
			t.Fatalf("%q %s: log line %s holds a piece of a secret", x, how, l)
		}
	}
}

// TestPreviewSecretSplits (I10): documents with secret values, split in
// two at every position and fed byte by byte: no piece of a secret appears in
// any preview, change or log line.
func TestPreviewSecretSplits(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		x, n := genDocument(t)
		if n == 0 {
			// make sure there is one
			x = append([]byte(`{"token":"QZ§Q", "o":{"s":[797,{"Q":"Z"}]},"auth":{"token":-7.9e9}}`), x...)
		}
		if rapid.Bool().Draw(t, "cut-inside") {
			x = x[:rapid.IntRange(0, len(x)).Draw(t, "cut")]
		}
		g, err := gate.New(previewConfig(64, 64<<10), gate.NewMemoryLedger())
		if err != nil {
			t.Fatalf("gate.New: %v", err)
		}
		for i := 0; i <= len(x); i++ {
			// attempt ids free of secret marks: letters only
			id := strings.Map(func(r rune) rune { return 'a' + (r-'0')%26 }, fmt.Sprint(i))
			noSecret(t, x, fmt.Sprintf("split at %d", i), runPreviewOn(t, g, id, x, []int{i}, 64, 64<<10, false))
		}
		noSecret(t, x, "byte by byte", runPreview(t, x, bytewiseCuts(len(x)), 64, 64<<10, true))
	})
}

// TestPreviewStopsAtViolation: x = a valid prefix, a raw control byte (a
// violation anywhere) and any tail. From the violation on, every preview is
// the preview of the prefix and the stream sends nothing but its stop.
func TestPreviewStopsAtViolation(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		doc, _ := genDocument(t)
		i := rapid.IntRange(0, len(doc)).Draw(t, "at")
		tail := rapid.SliceOfN(rapid.SampledFrom([]byte(`WW"ab,:}]{[1 `+"\x00")), 0, 20).Draw(t, "tail")
		x := append(append(append([]byte{}, doc[:i]...), 0x01), tail...)
		want := model.PreviewOf(doc[:i], 64, 64<<10, previewPathsRapid(t)).Value
		cuts := genCuts(t, len(x))
		run := runPreview(t, x, cuts, 64, 64<<10, true)
		// the peeks made with the violation fed: the last, and one per cut past i
		k := len(run.values) - 1
		for _, c := range cuts {
			if c > i {
				k--
			}
		}
		for _, v := range run.values[max(k, 0):] {
			if v != want {
				t.Fatalf("%q: after the violation at %d the preview is %s, want %s", x, i, v, want)
			}
			if strings.Contains(v, "W") {
				t.Fatalf("%q: preview %s shows bytes after the violation", x, v)
			}
		}
		stop := -1
		for j, c := range run.changes {
			if c.Kind == gate.ChangeStop {
				if !c.Violation || stop >= 0 {
					t.Fatalf("%q: stop %v at %d (earlier %d)", x, c, j, stop)
				}
				stop = j
			}
		}
		if stop < 0 || stop != len(run.changes)-2 { // then only gone
			t.Fatalf("%q: stop at %d of %v", x, stop, run.changes)
		}
	})
}

// FuzzPreview: any bytes, chunking, depth and preview-bytes: gate == model
// at every peek point, and the stream rebuilds every peek.
func FuzzPreview(f *testing.F) {
	f.Add([]byte(`{"path":"notes.md","content":"Topic confirmed.`), uint64(0x0a0703), uint8(64), uint16(0))
	f.Add([]byte(`{"token":"QZ","auth":{"token":[1,2]},"o":{"s":tr`), uint64(0x1105), uint8(64), uint16(30))
	f.Add([]byte(`[1e309,"\ud83d\ude00\ud83d",{"a":1,"\u0061":2}]`), uint64(0x0b0502), uint8(2), uint16(0))
	f.Add([]byte("{\"a\":[[[\"x\u00e9\\u00e9\"]]],\"b\":-0.5e-3 }\x01"), uint64(0x20), uint8(3), uint16(11))
	f.Fuzz(func(t *testing.T, x []byte, cutBits uint64, depth uint8, capb uint16) {
		if len(x) > 2048 {
			return
		}
		var cuts []int
		for k := 0; k < 4 && len(x) > 0; k++ {
			cuts = append(cuts, int(cutBits>>(16*k)&0xFFFF)%(len(x)+1))
		}
		for i := 1; i < len(cuts); i++ {
			for j := i; j > 0 && cuts[j] < cuts[j-1]; j-- {
				cuts[j], cuts[j-1] = cuts[j-1], cuts[j]
			}
		}
		d := int(depth%6) + 1
		if depth >= 128 {
			d = 64
		}
		c := int(capb)
		if c == 0 {
			c = 64 << 10
		}
		runPreview(t, x, cuts, d, c, true)
		if len(x) <= 256 {
			runPreview(t, x, bytewiseCuts(len(x)), d, c, true)
		}
	})
}
