// Package fakechecks stands in for a target whose check is cheaper while
// fuzzing: the planted bug (SEALGATE_FAULTS=fake-planted) is seen only with
// every check on (SEALGATE_CHECKS=full), so only the campaign's re-run of
// new corpus entries can find it.
package fakechecks

import (
	"bytes"
	"os"
	"testing"
)

func FuzzCheapCheck(f *testing.F) {
	f.Add([]byte("ok"))
	f.Fuzz(func(t *testing.T, b []byte) {
		full := os.Getenv("SEALGATE_CHECKS") == "full"
		if full && os.Getenv("SEALGATE_FAULTS") == "fake-planted" && bytes.HasPrefix(b, []byte("bad")) {
			t.Fatalf("planted failure on %q, seen by the full check only", b)
		}
	})
}
