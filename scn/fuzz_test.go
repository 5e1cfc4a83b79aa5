package scn

import (
	"bytes"
	"math/rand"
	"testing"

	"github.com/sealgate/sealgate/internal/fuzzkit"
)

var seeds = []string{
	sample,
	"----\n",
	"----\n@0 refused because\n",
	"tool t {}\nallow t f \"\\xff\" v\n----\n",
	"open a turn=t\ndelta a item=0 \"\\xe2\\x82\"\nend a item=0 final=\"\\xe2\\x82\"\n----\n@2 anomaly a item=0 kind=after-end\n",
	"ack k ok\n----\n@1 anomaly - kind=unknown-ack key=k\n",
	"limit calls=3 depth=x\npolicy release=per-call\n----\n",
}

// Alphabet of the mutations: the bytes that matter to the grammar.
const interesting = " \t\n\r\"\\#=@-:,/~x0\xff\xc3"

func mutate(r *rand.Rand, b []byte) []byte {
	if r.Intn(3) == 0 {
		return mutateLines(r, b)
	}
	b = append([]byte(nil), b...)
	for n := 1 + r.Intn(2); n > 0; n-- {
		var c byte
		if r.Intn(2) == 0 {
			c = interesting[r.Intn(len(interesting))]
		} else {
			c = byte(r.Intn(256))
		}
		switch op := r.Intn(4); {
		case len(b) == 0 || op == 0:
			i := r.Intn(len(b) + 1)
			b = append(b[:i], append([]byte{c}, b[i:]...)...)
		case op == 1:
			b[r.Intn(len(b))] = c
		case op == 2:
			i := r.Intn(len(b))
			b = append(b[:i], b[i+1:]...)
		default: // duplicate a line-sized chunk elsewhere
			i, j := r.Intn(len(b)), r.Intn(len(b))
			if i > j {
				i, j = j, i
			}
			k := r.Intn(len(b) + 1)
			chunk := append([]byte(nil), b[i:j]...)
			b = append(b[:k], append(chunk, b[k:]...)...)
		}
	}
	return b
}

// mutateLines deletes, duplicates or swaps whole lines, which keeps many
// files valid and so exercises the printer as well as the errors.
func mutateLines(r *rand.Rand, b []byte) []byte {
	lines := bytes.SplitAfter(b, []byte("\n"))
	i, j := r.Intn(len(lines)), r.Intn(len(lines))
	switch r.Intn(3) {
	case 0:
		lines = append(lines[:i], lines[i+1:]...)
	case 1:
		lines = append(lines[:i], append([][]byte{lines[j]}, lines[i:]...)...)
	default:
		lines[i], lines[j] = lines[j], lines[i]
	}
	return bytes.Join(lines, nil)
}

func TestRandomBytes(t *testing.T) {
	r := rand.New(rand.NewSource(1))
	for i := 0; i < 5000; i++ {
		b := make([]byte, r.Intn(200))
		for j := range b {
			if r.Intn(3) == 0 {
				b[j] = interesting[r.Intn(len(interesting))]
			} else {
				b[j] = byte(r.Intn(256))
			}
		}
		checkRoundTrip(t, b)
	}
}

func TestRandomMutations(t *testing.T) {
	parsed := 0
	for seed := int64(1); seed <= 4; seed++ {
		r := rand.New(rand.NewSource(seed))
		for i := 0; i < 5000; i++ {
			src := []byte(seeds[r.Intn(len(seeds))])
			for k := r.Intn(2); k >= 0; k-- {
				src = mutate(r, src)
			}
			if _, err := Parse("m", src); err == nil {
				parsed++
			}
			checkRoundTrip(t, src)
		}
	}
	// The mutations must reach the round-trip check, not only the errors.
	if parsed < 2000 {
		t.Errorf("only %d mutated files parsed", parsed)
	}
	if testing.Verbose() {
		t.Logf("%d of 20000 mutated files parsed", parsed)
	}
}

func parseFuzzSeeds() [][]any {
	var out [][]any
	for _, s := range seeds {
		out = append(out, []any{[]byte(s)})
	}
	return out
}

func FuzzParse(f *testing.F) {
	fuzzkit.AddSeeds(f, parseFuzzSeeds())
	f.Fuzz(func(t *testing.T, src []byte) { checkRoundTrip(t, src) })
}

// TestWriteSeedCorpus writes this package's fuzz seeds for libFuzzer
// (fuzzkit.SeedCorpusEnv).
func TestWriteSeedCorpus(t *testing.T) {
	fuzzkit.WriteSeedCorpus(t, map[string][][]any{"FuzzParse": parseFuzzSeeds()})
}
