package partial

import (
	"bytes"
	"encoding/json"
	"math"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"

	"github.com/sealgate/sealgate"
	"github.com/sealgate/sealgate/internal/fuzzkit"
)

func partialFuzzSeeds() [][]any {
	var out [][]any
	for _, c := range cases {
		if len(c.in) < 200 {
			out = append(out, []any{[]byte(c.in), uint64(len(c.in) / 2), uint8(3)})
		}
	}
	return append(out,
		[]any{[]byte(`{"s":"SECRET","o":{"s":["SECRET"]},"a/b":{"~":SECRET}}`), uint64(0x0a0705), uint8(64)},
		[]any{[]byte(`{"o":{"s":1,"t":[{"s":2}]},"s":{"x":"SECRET"}}`), uint64(0x0911), uint8(64)})
}

func FuzzPartial(f *testing.F) {
	fuzzkit.AddSeeds(f, partialFuzzSeeds())
	f.Fuzz(func(t *testing.T, in []byte, cutBits uint64, depth uint8) { fuzzPartial(t, in, cutBits, depth) })
}

// TestWriteSeedCorpus writes this package's fuzz seeds for libFuzzer
// (fuzzkit.SeedCorpusEnv).
func TestWriteSeedCorpus(t *testing.T) {
	fuzzkit.WriteSeedCorpus(t, map[string][][]any{"FuzzPartial": partialFuzzSeeds(), "FuzzWatch": watchFuzzSeeds()})
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
// and non-ASCII runes as the gate's preview benchmarks do, in 16-byte deltas:
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
// non-ASCII runes, as the gate's preview benchmarks stream.
func textDoc() []byte {
	var d bytes.Buffer
	d.WriteString(`{"path":"notes.md","content":"`)
	for d.Len() < 1<<20 {
		d.WriteString(`Topic confirmed; the date still waits for the venue \u00e9t\u00e9 caf` + "é" + ` \ud83d\ude00 'q' \"ok\"\n`)
	}
	d.WriteString(`"}`)
	return d.Bytes()
}
