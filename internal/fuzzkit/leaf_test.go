package fuzzkit

import (
	"os/exec"
	"strings"
	"testing"
)

// TestStandardLibraryOnly: fuzzkit and everything it imports come from the
// standard library, so that every package of the module can import it.
func TestStandardLibraryOnly(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", "-f", "{{if not .Standard}}{{.ImportPath}}{{end}}", ".").CombinedOutput()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, out)
	}
	const self = "github.com/sealgate/sealgate/internal/fuzzkit"
	var outside []string
	listed := false
	for _, p := range strings.Fields(string(out)) {
		if p == self {
			listed = true
		} else {
			outside = append(outside, p)
		}
	}
	if !listed {
		t.Fatalf("go list did not list %s itself: %q", self, out)
	}
	if len(outside) > 0 {
		t.Fatalf("fuzzkit imports packages outside the standard library: %s", strings.Join(outside, ", "))
	}
}
