package wire

import (
	"os/exec"
	"strings"
	"testing"
)

// TestWireDoesNotImportScn: wire turns vendor bytes into events and knows
// nothing of the scenario format, which comes later in the suite's flow.
func TestWireDoesNotImportScn(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", ".").CombinedOutput()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, out)
	}
	deps := strings.Fields(string(out))
	if len(deps) == 0 || deps[len(deps)-1] != "github.com/sealgate/sealgate/wire" {
		t.Fatalf("go list -deps did not end with wire itself: %q", out)
	}
	for _, p := range deps {
		if p == "github.com/sealgate/sealgate/scn" {
			t.Fatal("wire imports scn")
		}
	}
}
