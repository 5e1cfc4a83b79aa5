package wire

import (
	"bytes"
	"math/rand"
	"os"
	"path/filepath"
)

// FuzzSeeds is fuzzSeeds for the fuzz targets in the external test package
// (fuzz_test.go), whose body is in package fuzztarget.
var FuzzSeeds = fuzzSeeds

// fuzzSeeds: the captures when present, and encodings of random sequences.
func fuzzSeeds(p Protocol) [][]byte {
	var out [][]byte
	if dir, ok := fixturesDir(); ok {
		files, _ := filepath.Glob(filepath.Join(dir, string(p), "*.sse"))
		for _, f := range files {
			if b, err := os.ReadFile(f); err == nil && len(b) < 64<<10 {
				out = append(out, b)
			}
		}
		// JSONL captures (the Vertex streamed calls among them) as the SSE
		// body they were stored from.
		jsonl, _ := filepath.Glob(filepath.Join(dir, string(p), "*.jsonl"))
		for _, f := range jsonl {
			if b, err := os.ReadFile(f); err == nil && len(b) < 64<<10 {
				var sse []byte
				for line := range bytes.Lines(b) {
					sse = append(append(append(sse, "data: "...), bytes.TrimRight(line, "\n")...), "\n\n"...)
				}
				out = append(out, sse)
			}
		}
	}
	for seed := int64(0); seed < 4; seed++ {
		evs := genEvents(p, rand.New(rand.NewSource(seed)))
		if p == Gemini {
			evs = trimGemini(evs)
		}
		if b, err := Encode(p, evs); err == nil {
			out = append(out, b)
		}
	}
	return out
}

// RoundTripSeeds is roundTripSeeds for TestWriteSeedCorpus in the external
// test package.
var RoundTripSeeds = roundTripSeeds

// VertexPieceSeeds and GeminiArraySeeds are the Vertex targets' seeds, for
// TestWriteSeedCorpus in the external test package.
var (
	VertexPieceSeeds = vertexPieceSeeds
	GeminiArraySeeds = geminiArraySeeds
)
