package partial

import (
	"bytes"
	"encoding/json"
	"io"
	"math"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"

	"github.com/go-json-experiment/json/jsontext"

	"github.com/sealgate/sealgate"
)

// strictValid is an independent oracle for SPEC section 5's grammar plus the
// depth limit: jsontext's strict defaults (one value, valid UTF-8, paired
// surrogates, no duplicate names) plus noncharacters, finite numbers, depth.
func strictValid(b []byte, depth int) bool {
	if !jsontext.Value(b).IsValid() {
		return false
	}
	d := jsontext.NewDecoder(bytes.NewReader(b))
	for {
		tok, err := d.ReadToken()
		if err == io.EOF {
			return true
		}
		if err != nil {
			return false
		}
		switch tok.Kind() {
		case '{', '[':
			if d.StackDepth() > depth {
				return false
			}
		case '"':
			for _, r := range tok.String() {
				if (r >= 0xFDD0 && r <= 0xFDEF) || r&0xFFFF == 0xFFFE || r&0xFFFF == 0xFFFF {
					return false
				}
			}
		case '0':
			f, _ := strconv.ParseFloat(tok.String(), 64)
			if math.IsInf(f, 0) {
				return false
			}
		}
	}
}

// reference computes V for a complete, strictly valid text by plain
// recursive descent: compacted, secrets redacted.
func reference(doc []byte, secrets [][]string) string {
	var out strings.Builder
	var value func(b []byte, paths [][]string) []byte
	skipWS := func(b []byte) []byte { return bytes.TrimLeft(b, " \t\r\n") }
	str := func(b []byte) (raw, rest []byte) {
		i := 1
		for b[i] != '"' {
			if b[i] == '\\' {
				i++
			}
			i++
		}
		return b[:i+1], b[i+1:]
	}
	value = func(b []byte, paths [][]string) []byte {
		b = skipWS(b)
		switch b[0] {
		case '"':
			raw, rest := str(b)
			out.Write(raw)
			return rest
		case '{', '[':
			obj := b[0] == '{'
			out.WriteByte(b[0])
			b = skipWS(b[1:])
			first := true
			for b[0] != '}' && b[0] != ']' {
				if !first {
					out.WriteByte(',')
					b = skipWS(b[1:])
				}
				first = false
				if !obj {
					b = skipWS(value(b, nil))
					continue
				}
				raw, rest := str(b)
				var name string
				if err := json.Unmarshal(raw, &name); err != nil {
					panic(err)
				}
				out.Write(raw)
				out.WriteByte(':')
				b = skipWS(rest)[1:]
				secret := false
				var child [][]string
				for _, p := range paths {
					if p[0] == name {
						if len(p) == 1 {
							secret = true
						} else {
							child = append(child, p[1:])
						}
					}
				}
				if secret {
					n := out.Len()
					b = skipWS(value(b, nil))
					s := out.String()[:n]
					out.Reset()
					out.WriteString(s)
					out.WriteString(redacted)
					continue
				}
				b = skipWS(value(b, child))
			}
			out.WriteByte(b[0])
			return b[1:]
		}
		i := 0
		for i < len(b) && strings.IndexByte("+-.0123456789eEtrufalsn", b[i]) >= 0 {
			i++
		}
		out.Write(b[:i])
		return b[i:]
	}
	top := skipWS(doc)
	if len(top) > 0 && top[0] == '{' {
		value(doc, secrets)
	} else {
		value(doc, nil)
	}
	return out.String()
}

var fuzzSecrets = [][]string{{"s"}, {"o", "s"}, {"a/b", "~"}}

// check runs the shared properties on one input: no panic, chunking
// invariance at the given cuts and byte by byte, a strictly valid snapshot,
// and agreement with the oracle and the reference on complete texts.
func check(t *testing.T, in []byte, cuts []int, depth int) {
	t.Helper()
	one := New(depth, 1<<30, fuzzSecrets)
	one.Write(in)
	want := one.Snapshot()
	if want != "-" && !strictValid([]byte(want), depth) {
		t.Fatalf("%q: snapshot %s is not strict JSON", in, want)
	}

	split := New(depth, 1<<30, fuzzSecrets)
	last := 0
	for _, c := range cuts {
		if c < last || c > len(in) {
			continue
		}
		split.Write(in[last:c])
		last = c
	}
	split.Write(in[last:])
	if got := split.Snapshot(); got != want {
		t.Fatalf("%q split at %v: got %s, want %s", in, cuts, got, want)
	}
	bb := New(depth, 1<<30, fuzzSecrets)
	for i := range in {
		bb.Write(in[i : i+1])
		if s := bb.Snapshot(); s != "-" && !strictValid([]byte(s), depth) {
			t.Fatalf("%q prefix %d: snapshot %s is not strict JSON", in, i+1, s)
		}
	}
	if got := bb.Snapshot(); got != want {
		t.Fatalf("%q byte by byte: got %s, want %s", in, got, want)
	}

	// With a final space a complete text ends every number: the parser
	// finishes without a violation exactly when the oracle accepts.
	done := New(depth, 1<<30, fuzzSecrets)
	done.Write(in)
	done.Write([]byte{' '})
	complete := !done.violated && done.stack[0].ctx == ctxTopDone && len(done.stack) == 1
	valid := strictValid(in, depth)
	if complete != valid {
		t.Fatalf("%q: parser complete=%v, oracle valid=%v", in, complete, valid)
	}
	if valid {
		if ref := reference(in, fuzzSecrets); done.Snapshot() != ref {
			t.Fatalf("%q: got %s, reference %s", in, done.Snapshot(), ref)
		}
		if one.violated {
			t.Fatalf("%q: a valid text reported a violation", in)
		}
	}
}

func FuzzPartial(f *testing.F) {
	for _, c := range cases {
		if len(c.in) < 200 {
			f.Add([]byte(c.in), uint64(len(c.in)/2), uint8(3))
		}
	}
	f.Add([]byte(`{"s":"SECRET","o":{"s":["SECRET"]},"a/b":{"~":SECRET}}`), uint64(0x0a0705), uint8(64))
	f.Add([]byte(`{"o":{"s":1,"t":[{"s":2}]},"s":{"x":"SECRET"}}`), uint64(0x0911), uint8(64))
	f.Fuzz(func(t *testing.T, in []byte, cutBits uint64, depth uint8) {
		if len(in) > 4096 {
			return
		}
		var cuts []int
		for k := 0; k < 4; k++ {
			if len(in) > 0 {
				cuts = append(cuts, int(cutBits>>(16*k)&0xFFFF)%(len(in)+1))
			}
		}
		check(t, in, cuts, int(depth%8)+1)
	})
}

// genDoc writes a random strictly valid text, with random whitespace, escapes
// and UTF-8, that mentions the fuzz secrets' names.
func genDoc(r *rand.Rand, b *bytes.Buffer, depth int) {
	ws := func() {
		for r.IntN(3) == 0 {
			b.WriteByte(" \t\r\n"[r.IntN(4)])
		}
	}
	pieces := []string{"a", "s", "o", "~", "a/b", `\n`, `\u00e9`, `\ud83d\ude00`, `\/`, "é", "😀", "中", `\\`, `\"`, "SECRET", `\u0000`, "\x7f"}
	strv := func() string {
		var s strings.Builder
		s.WriteByte('"')
		for n := r.IntN(4); n > 0; n-- {
			s.WriteString(pieces[r.IntN(len(pieces))])
		}
		s.WriteByte('"')
		return s.String()
	}
	nums := []string{"0", "-0", "12", "-3.25", "1e5", "2E-3", "1.5e+10", "12345678901234567890", "0.000001", "1.7976931348623157e308", "1e-400", "-9e307"}
	ws()
	k := r.IntN(8)
	if depth == 0 && k < 2 {
		k = 3
	}
	switch {
	case k == 0:
		b.WriteByte('{')
		ws()
		used := map[string]bool{}
		for i, n := 0, r.IntN(4); i < n; i++ {
			name := strv()
			var u string
			_ = json.Unmarshal([]byte(name), &u)
			if used[u] {
				continue
			}
			used[u] = true
			if len(used) > 1 {
				b.WriteByte(',')
				ws()
			}
			b.WriteString(name)
			ws()
			b.WriteByte(':')
			genDoc(r, b, depth-1)
		}
		b.WriteByte('}')
	case k == 1:
		b.WriteByte('[')
		ws()
		for i, n := 0, r.IntN(4); i < n; i++ {
			if i > 0 {
				b.WriteByte(',')
			}
			genDoc(r, b, depth-1)
		}
		b.WriteByte(']')
	case k < 5:
		b.WriteString(strv())
	case k < 7:
		b.WriteString(nums[r.IntN(len(nums))])
	default:
		b.WriteString([]string{"true", "false", "null"}[r.IntN(3)])
	}
	ws()
}

// TestRandomValid: every prefix of a valid text is viable, and the whole text
// reads as the reference value, however it is split.
func TestRandomValid(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for n := 0; n < 1500; n++ {
		var b bytes.Buffer
		if n%2 == 0 {
			b.WriteByte('{')
			b.WriteString(`"s":`)
			genDoc(r, &b, 4)
			b.WriteString(`,"o":`)
			genDoc(r, &b, 4)
			b.WriteByte('}')
		} else {
			genDoc(r, &b, 5)
		}
		in := b.Bytes()
		if !strictValid(in, 8) {
			t.Fatalf("generator made an invalid text: %q", in)
		}
		cuts := []int{r.IntN(len(in) + 1), r.IntN(len(in) + 1), r.IntN(len(in) + 1)}
		check(t, in, cuts, 8)
	}
}

// TestOverflowAgreesWithParseFloat checks the overflow threshold on numbers
// around it against strconv.
func TestOverflowAgreesWithParseFloat(t *testing.T) {
	var tdig = string(overflowDigits)
	below := []byte(tdig)
	for i := len(below) - 1; ; i-- { // tdig - 1 in its last non-zero place
		if below[i] != '0' {
			below[i]--
			break
		}
	}
	nums := []string{
		tdig, string(below), tdig + "0", string(below) + "9999", "0." + tdig + "e309", "0." + string(below) + "e309",
		tdig[:1] + "." + tdig[1:] + "e308", tdig[:17] + "e292", "17976931348623158e292", "17976931348623157e292",
		"1797693134862315807937289714053e278", "1797693134862315807937289714052e278",
		"0.0000" + tdig + "e313", "-" + tdig, "1e308", "10e308", "0.1e310", "100e306",
	}
	r := rand.New(rand.NewPCG(3, 4))
	for n := 0; n < 2000; n++ {
		d := []byte(tdig[:1+r.IntN(len(tdig))])
		d[len(d)-1] = byte('0' + r.IntN(10))
		if d[0] == '0' {
			d[0] = '1'
		}
		s := string(d)
		if r.IntN(2) == 0 {
			s += strings.Repeat("0", r.IntN(4))
		}
		nums = append(nums, s+"e"+strconv.Itoa(309-len(s)+r.IntN(3)))
	}
	infs := 0
	for _, s := range nums {
		f, _ := strconv.ParseFloat(s, 64)
		p := New(64, 1<<20, nil)
		p.Write([]byte("[" + s + "]"))
		inf := math.IsInf(f, 0)
		if inf != p.violated {
			t.Errorf("%s: parser violation=%v, ParseFloat Inf=%v", s, p.violated, inf)
		}
		if inf {
			infs++
		}
	}
	if infs < 100 || len(nums)-infs < 100 {
		t.Fatalf("unbalanced sample: %d of %d overflow", infs, len(nums))
	}
	if f, _ := strconv.ParseFloat(tdig, 64); !math.IsInf(f, 1) {
		t.Fatal("the threshold itself must round to +Inf")
	}
	if f, _ := strconv.ParseFloat(string(below), 64); f != math.MaxFloat64 {
		t.Fatal("just below the threshold must round to MaxFloat64")
	}
}

func TestReferenceSanity(t *testing.T) {
	got := reference([]byte(` { "s" : [1, {"x":2}] , "o" : { "s" : "v" , "t" : 1 } , "a/b":{"~":true} } `), fuzzSecrets)
	want := `{"s":"[redacted]","o":{"s":"[redacted]","t":1},"a/b":{"~":"[redacted]"}}`
	if got != want {
		t.Fatalf("reference: %s", got)
	}
	if _, err := sealgate.SecretPath("/a~1b/~0"); err != nil {
		t.Fatal(err)
	}
}

// benchDoc is about 1 MiB of varied JSON.
func benchDoc() []byte {
	var b bytes.Buffer
	b.WriteString(`{"items":[`)
	for i := 0; b.Len() < 1<<20; i++ {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(`{"id":` + strconv.Itoa(i) + `,"name":"item \u00e9 number ` + strconv.Itoa(i) +
			`","price":12.5e-1,"tags":["a","b\n","中文"],"ok":true,"token":"secret-value","nested":{"x":null,"y":[1,2,3]}}`)
	}
	b.WriteString(`]}`)
	return b.Bytes()
}

func BenchmarkWrite16(b *testing.B) {
	doc := benchDoc()
	secrets := [][]string{{"token"}, {"items", "token"}}
	b.SetBytes(int64(len(doc)))
	b.ReportAllocs()
	for b.Loop() {
		p := New(64, len(doc)+1, secrets)
		for i := 0; i < len(doc); i += 16 {
			p.Write(doc[i:min(i+16, len(doc))])
		}
		if p.violated {
			b.Fatal("violation")
		}
	}
}

func BenchmarkWrite16Peek(b *testing.B) {
	doc := benchDoc()
	b.SetBytes(int64(len(doc)))
	for b.Loop() {
		p := New(64, len(doc)+1, nil)
		for i := 0; i < len(doc); i += 16 {
			p.Write(doc[i:min(i+16, len(doc))])
			if i%(64<<10) == 0 {
				_ = p.Snapshot()
			}
		}
	}
}

// BenchmarkWrite16Text feeds one long string value, file text with escapes
// and non-ASCII runes as the gate's issue 4 benchmarks do, in 16-byte deltas:
// the parser's string path alone.
func BenchmarkWrite16Text(b *testing.B) { benchWrite16(b, false) }

// BenchmarkWrite16Watch is BenchmarkWrite16Text with a watcher read after
// every delta: the streaming preview's own cost, without the gate.
func BenchmarkWrite16Watch(b *testing.B) { benchWrite16(b, true) }

func benchWrite16(b *testing.B, watch bool) {
	doc := textDoc()
	b.SetBytes(int64(len(doc)))
	b.ReportAllocs()
	var out []byte
	var cs []Change
	for b.Loop() {
		p := New(64, len(doc)+1, nil)
		p.Reuse(out)
		var w *Watcher
		if watch {
			w = p.Watch()
		}
		seen := 0
		for i := 0; i < len(doc); i += 16 {
			p.Write(doc[i:min(i+16, len(doc))])
			if watch {
				cs = w.Next(cs[:0])
				for j := range cs {
					seen += len(cs[j].Text)
				}
			}
		}
		if p.violated || p.shown != len(doc) || watch && seen < len(doc)-64 {
			b.Fatalf("violation %v, shown %d of %d, %d bytes of change text", p.violated, p.shown, len(doc), seen)
		}
		out = p.Recycle()
	}
}

// textDoc is a 1 MiB save_file argument: file text with escapes and
// non-ASCII runes, as the gate's issue 4 benchmarks stream.
func textDoc() []byte {
	var d bytes.Buffer
	d.WriteString(`{"path":"notes.md","content":"`)
	for d.Len() < 1<<20 {
		d.WriteString(`Topic confirmed; the date still waits for the venue \u00e9t\u00e9 caf` + "é" + ` \ud83d\ude00 'q' \"ok\"\n`)
	}
	d.WriteString(`"}`)
	return d.Bytes()
}
