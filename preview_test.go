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
	"github.com/sealgate/sealgate/internal/fuzzkit"
	"github.com/sealgate/sealgate/internal/fuzztarget"
	"github.com/sealgate/sealgate/model"
)

// The gate's incremental preview against the model's from-scratch
// one (SPEC section 8), its streaming form, consistency, redaction (I10)
// and the first violation.

// secretMarks are the only characters a generated secret value is made of
// (digits 7 and 9 for numbers); public parts never contain them, so any of
// them in a preview is a piece of a secret.
const secretMarks = "QZ§79"

func previewConfig(depth, previewBytes int) sealgate.Config {
	return fuzztarget.PreviewConfig(depth, previewBytes)
}

func previewPaths(tb interface{ Fatal(...any) }) [][]string { return fuzztarget.PreviewPaths(tb) }

// The stream runner of these tests is FuzzPreview's, in package fuzztarget.

// failer is what rapid.T and testing.T share for these checks.
type failer = fuzzkit.TB

type previewRun = fuzztarget.PreviewRun

var (
	runPreview   = fuzztarget.RunPreview
	runPreviewOn = fuzztarget.RunPreviewOn
	bytewiseCuts = fuzztarget.BytewiseCuts
)

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

func previewPathsRapid(t *rapid.T) [][]string { return previewPaths(t) }

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
		final, err := parsePreview(run.Values[len(run.Values)-1])
		if err != nil {
			t.Fatalf("%q: final preview %s: %v", x, run.Values[len(run.Values)-1], err)
		}
		if want := model.PreviewOf(append(x, ' '), 64, 64<<10, previewPathsRapid(t)).Value; run.Values[len(run.Values)-1] != want {
			t.Fatalf("%q: final preview %s, want the whole value %s", x, run.Values[len(run.Values)-1], want)
		}
		for i, v := range run.Values {
			if v == "-" {
				continue
			}
			p, err := parsePreview(v)
			if err != nil {
				t.Fatalf("%q: preview %s is not JSON: %v", x, v, err)
			}
			if !consistent(p, final, true) {
				t.Fatalf("%q: preview %s does not grow into the final %s", x, v, run.Values[len(run.Values)-1])
			}
			if i+1 < len(run.Values) {
				next, _ := parsePreview(run.Values[i+1])
				if !consistent(p, next, true) {
					t.Fatalf("%q: preview %s does not grow into the next %s", x, v, run.Values[i+1])
				}
			}
		}
	})
}

// noSecret fails if a preview, a change or a log line holds a secret mark.
func noSecret(t failer, x []byte, how string, run previewRun) {
	t.Helper()
	for _, v := range run.Values {
		if strings.ContainsAny(v, secretMarks) {
			t.Fatalf("%q %s: preview %s shows a piece of a secret", x, how, v)
		}
	}
	for _, c := range run.Changes {
		if strings.ContainsAny(c.Text, secretMarks) {
			t.Fatalf("%q %s: change %v holds a piece of a secret", x, how, c)
		}
		for _, s := range c.Path {
			if strings.ContainsAny(s.Name, secretMarks) {
				t.Fatalf("%q %s: change %v holds a piece of a secret", x, how, c)
			}
		}
	}
	for _, l := range run.Logs {
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
		k := len(run.Values) - 1
		for _, c := range cuts {
			if c > i {
				k--
			}
		}
		for _, v := range run.Values[max(k, 0):] {
			if v != want {
				t.Fatalf("%q: after the violation at %d the preview is %s, want %s", x, i, v, want)
			}
			if strings.Contains(v, "W") {
				t.Fatalf("%q: preview %s shows bytes after the violation", x, v)
			}
		}
		stop := -1
		for j, c := range run.Changes {
			if c.Kind == gate.ChangeStop {
				if !c.Violation || stop >= 0 {
					t.Fatalf("%q: stop %v at %d (earlier %d)", x, c, j, stop)
				}
				stop = j
			}
		}
		if stop < 0 || stop != len(run.Changes)-2 { // then only gone
			t.Fatalf("%q: stop at %d of %v", x, stop, run.Changes)
		}
	})
}

// FuzzPreview: any bytes, chunking, depth and preview-bytes: gate == model
// at every peek point, and the stream rebuilds every peek (fuzztarget.Preview).
func FuzzPreview(f *testing.F) {
	fuzzkit.AddSeeds(f, fuzztarget.PreviewSeeds())
	f.Fuzz(func(t *testing.T, x []byte, cutBits uint64, depth uint8, capb uint16) {
		fuzztarget.Preview(t, x, cutBits, depth, capb)
	})
}
