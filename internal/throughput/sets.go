package throughput

import (
	"math/rand"
	"os"

	"github.com/sealgate/sealgate/internal/fuzzkit"
	"github.com/sealgate/sealgate/internal/gen"
	"github.com/sealgate/sealgate/scn"
)

// gateVsModelSeeds are FuzzGateVsModel's seeds as the root fuzz test adds
// them: the generic seeds of o.Seed, then every corpus file in the text
// reading.
func gateVsModelSeeds(o Options) ([][]byte, error) {
	seeds := fuzzkit.Seeds(o.Seed)
	files, err := scn.Files(o.Corpus)
	if err != nil {
		return nil, err
	}
	for _, path := range files {
		if src, err := os.ReadFile(path); err == nil {
			seeds = append(seeds, append([]byte{1}, src...))
		}
	}
	return seeds, nil
}

// gateVsModelSet is the seeds of one reading and n generated inputs of it:
// corpus texts with one to three byte edits, random gofuzz bytes, random
// machine bitstreams of the seeds' size.
func gateVsModelSet(seeds [][]byte, reading gen.Reading, n int) [][]byte {
	var set [][]byte
	for _, b := range seeds {
		if gen.ReadingOf(b) == reading {
			set = append(set, b)
		}
	}
	texts := append([][]byte(nil), set...)
	r := rand.New(rand.NewSource(int64(reading) + 16))
	const edits = " \n\"=@-:0123456789abcdefgikmnoprstuyz{}[],\\"
	for i := 0; i < n; i++ {
		switch reading {
		case gen.Text:
			set = append(set, editText(r, texts, edits))
		case gen.Gofuzz:
			b := make([]byte, 64+r.Intn(448))
			r.Read(b)
			b[0] = 0
			set = append(set, b)
		case gen.Machine:
			b := make([]byte, 1+fuzzkit.MachineSeedBytes)
			r.Read(b)
			b[0] = 2
			set = append(set, b)
		}
	}
	return set
}

// editText is one of texts with one to three bytes replaced, removed or
// inserted.
func editText(r *rand.Rand, texts [][]byte, edits string) []byte {
	b := append([]byte(nil), texts[r.Intn(len(texts))]...)
	for k := 1 + r.Intn(3); k > 0 && len(b) > 2; k-- {
		at := 1 + r.Intn(len(b)-1)
		switch r.Intn(3) {
		case 0:
			b[at] = edits[r.Intn(len(edits))]
		case 1:
			b = append(b[:at], b[at+1:]...)
		default:
			b = append(b[:at], append([]byte{edits[r.Intn(len(edits))]}, b[at:]...)...)
		}
	}
	return b
}

// chunkingSeeds are FuzzChunking's seeds as the root fuzz test adds them.
func chunkingSeeds() [][]any {
	var out [][]any
	for _, d := range gen.Docs {
		out = append(out, []any{[]byte(d), []byte{3, 1, 7, 2}, uint8(0)})
	}
	return append(out, []any{[]byte(`{"token":"abcdef","content":"日本"}`), []byte{9, 1, 1, 1, 1}, uint8(1)})
}

// chunkingSet is FuzzChunking's seeds and n generated argument lists, each
// encoded as one input (fuzzkit's layout) so that a set is one [][]byte.
func chunkingSet(n int) [][]byte {
	var set [][]byte
	add := func(args ...any) {
		b, err := fuzzkit.Encode(args...)
		if err != nil {
			panic(err) // the arguments are of the kinds Encode takes
		}
		set = append(set, b)
	}
	for _, s := range chunkingSeeds() {
		add(s...)
	}
	r := rand.New(rand.NewSource(7))
	for i := 0; i < n; i++ {
		doc := []byte(gen.Docs[r.Intn(len(gen.Docs))])
		if r.Intn(2) == 0 && len(doc) > 1 {
			doc[r.Intn(len(doc))] = byte(r.Intn(256))
		}
		cuts := make([]byte, 1+r.Intn(8))
		r.Read(cuts)
		add(doc, cuts, uint8(r.Intn(256)))
	}
	return set
}
