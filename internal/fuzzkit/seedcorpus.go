package fuzzkit

import (
	"crypto/sha1"
	"fmt"
	"os"
	"path/filepath"
)

// SeedCorpusEnv names a directory where TestWriteSeedCorpus (in each
// package with fuzz targets) writes every target's f.Add seeds in the
// shim's layout, one file per seed under DIR/TARGET/: libFuzzer drops the
// f.Add seeds, so .clusterfuzzlite/build.sh zips these as
// TARGET_seed_corpus.zip. Without it the test only checks that every seed
// encodes.
const SeedCorpusEnv = "SEALGATE_SEED_CORPUS"

// SeedCorpusTB is what WriteSeedCorpus needs of its test.
type SeedCorpusTB interface {
	Helper()
	Fatalf(format string, args ...any)
	Logf(format string, args ...any)
}

// WriteSeedCorpus encodes the seeds of each target (name → the argument
// lists given to f.Add) and, when SeedCorpusEnv is set, writes them.
func WriteSeedCorpus(t SeedCorpusTB, seeds map[string][][]any) {
	t.Helper()
	dir := os.Getenv(SeedCorpusEnv)
	for target, list := range seeds {
		if len(list) == 0 {
			t.Fatalf("%s: no seeds", target)
		}
		sub := filepath.Join(dir, target)
		if dir != "" {
			if err := os.MkdirAll(sub, 0o755); err != nil {
				t.Fatalf("%v", err)
			}
		}
		for i, args := range list {
			b, err := Encode(args...)
			if err != nil {
				t.Fatalf("%s seed %d: %v", target, i, err)
			}
			if dir == "" {
				continue
			}
			// Named by content, as libFuzzer names its corpus files.
			name := filepath.Join(sub, fmt.Sprintf("%x", sha1.Sum(b)))
			if err := os.WriteFile(name, b, 0o644); err != nil {
				t.Fatalf("%v", err)
			}
		}
		if dir != "" {
			t.Logf("%s: %d seeds in %s", target, len(list), sub)
		}
	}
}

// AddSeeds gives a go test target its seeds (f is the *testing.F), the
// same lists WriteSeedCorpus writes for libFuzzer.
func AddSeeds(f interface{ Add(args ...any) }, seeds [][]any) {
	for _, s := range seeds {
		f.Add(s...)
	}
}
