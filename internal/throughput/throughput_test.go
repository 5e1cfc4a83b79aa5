package throughput

import (
	"bytes"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sealgate/sealgate/internal/fuzzkit"
)

// TestRunTiny measures on a tiny budget: one row per reading and one for
// FuzzChunking, each with every column, and the sampling table with a row
// per zoo bug.
func TestRunTiny(t *testing.T) {
	var out bytes.Buffer
	if err := Run(Options{Inputs: 2, Corpus: filepath.Join("..", "..", "corpus", "spec"), Zoo: true}, &out); err != nil {
		t.Fatal(err)
	}
	got := out.String()
	header := "| target | reading | inputs | execs | CPU s | execs/CPU-s | checked | gate | model | determinism | invariants | I6 bytes | I6 cuts | I5 | not checking |"
	if !strings.Contains(got, header) {
		t.Fatalf("no throughput header:\n%s", got)
	}
	cols := strings.Count(header, "|")
	rows := 0
	for _, l := range strings.Split(got, "\n") {
		for _, prefix := range []string{"| FuzzGateVsModel | text |", "| FuzzGateVsModel | gofuzz |", "| FuzzGateVsModel | machine |", "| FuzzChunking | - |"} {
			if strings.HasPrefix(l, prefix) {
				rows++
				if n := strings.Count(l, "|"); n != cols {
					t.Errorf("row has %d bars, want %d: %s", n, cols, l)
				}
				if f := strings.Split(l, "|"); strings.TrimSpace(f[4]) == "0" {
					t.Errorf("no execs counted: %s", l)
				}
			}
		}
	}
	if rows != 4 {
		t.Errorf("%d throughput rows, want 4:\n%s", rows, got)
	}
	if !strings.Contains(got, "| bug | fail, all checks | fail, sampled |") || !strings.Contains(got, "| release-when-parses |") {
		t.Errorf("no sampling table with the zoo's bugs:\n%s", got)
	}
}

// TestRunOneFailure: a body that fails stops the measurement with its
// message, and a panic that is not Fatalf's goes on up.
func TestRunOneFailure(t *testing.T) {
	err := runOne(func(t fuzzkit.TB, in []byte) { t.Fatalf("bad %s", in) }, []byte("x"))
	if err == nil || err.Error() != "bad x" {
		t.Errorf("Fatalf: %v", err)
	}
	if err := runOne(func(t fuzzkit.TB, in []byte) {}, nil); err != nil {
		t.Errorf("a passing body: %v", err)
	}
	defer func() {
		if recover() == nil {
			t.Error("a panic of the body was swallowed")
		}
	}()
	runOne(func(t fuzzkit.TB, in []byte) { panic("boom") }, nil)
}
