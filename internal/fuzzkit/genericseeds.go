package fuzzkit

import (
	"fmt"
	"math/rand"
	"os"
	"strconv"
)

// SeedEnv names the environment variable that picks the generic seed
// inputs of FuzzGateVsModel (Seeds). go fuzz cannot be seeded (its
// mutator seeds itself from the clock), so the power benchmark varies what
// it can: each run of a bug starts from seeds of its own.
const SeedEnv = "SEALGATE_FUZZ_SEED"

// SeedFromEnv reads SeedEnv: 0 when unset (go test's seeds).
func SeedFromEnv() (int64, error) {
	v := os.Getenv(SeedEnv)
	if v == "" {
		return 0, nil
	}
	n, err := strconv.ParseInt(v, 10, 64)
	if err != nil {
		return 0, fmt.Errorf("%s=%q: want an integer", SeedEnv, v)
	}
	return n, nil
}

// MachineSeedBytes is the length of a machine-reading seed: enough words
// for most runs of the state machine to end by rapid's own choice rather
// than by running out of bits.
const MachineSeedBytes = 32 << 10

// The first byte of an input of FuzzGateVsModel says how gen.ReadingOf
// reads the rest; these are the two readings the generic seeds use. They
// are spelled here, not imported, so that this package stays a leaf
// (fuzztarget's tests hold them to gen.ReadingOf).
const (
	gofuzzReading  = 0
	machineReading = 2
)

// Seeds are FuzzGateVsModel's generic seed inputs for seed n, the same
// with or without a planted bug (shapes, not the corpus's answers), and
// the first inputs the target adds, so that go fuzz's seed#i is Seeds(n)[i]:
// pseudo-random bitstreams in the machine reading (each one whole run of
// the state machine; first, because go fuzz takes its corpus in turn),
// then pseudo-random bytes in the gofuzz reading, the empty scenario and a
// counting one. They live here rather than beside the target's body
// because the state machine's own tests replay them, and package machine
// cannot import fuzztarget, which imports it.
func Seeds(n int64) [][]byte {
	const seedStride = 100003 // math/rand keeps a source seed modulo 2³¹-1
	var out [][]byte
	for i := int64(0); i < 8; i++ {
		r := rand.New(rand.NewSource(n*seedStride + 1000 + i))
		b := make([]byte, 1+MachineSeedBytes)
		r.Read(b)
		b[0] = machineReading
		out = append(out, b)
	}
	for i := int64(0); i < 32; i++ {
		r := rand.New(rand.NewSource(n*seedStride + i))
		b := make([]byte, 64+r.Intn(448))
		r.Read(b)
		b[0] = gofuzzReading
		out = append(out, b)
	}
	return append(out, []byte{gofuzzReading}, []byte("\x00\x01\x02\x03\x04\x05\x06\x07\x08\x09\x0a\x0b\x0c\x0d\x0e\x0f\x10\x11\x12\x13\x14\x15\x16\x17\x18\x19\x1a\x1b\x1c\x1d\x1e\x1f"))
}
