package power

import (
	"bytes"
	"context"
	"strings"
	"testing"
)

// TestRunRefusesUnknownTechnique: a technique Run does not know is an error
// that names it, before any bug runs or any file is written.
func TestRunRefusesUnknownTechnique(t *testing.T) {
	dir := t.TempDir()
	var out, errb bytes.Buffer
	err := Run(context.Background(), Options{Seeds: 1, Techniques: []string{"corpus", "afl"}, Out: dir}, &out, &errb)
	if err == nil || !strings.Contains(err.Error(), `"afl"`) {
		t.Fatalf("Run with technique afl: %v, want an error naming it", err)
	}
	if out.Len() != 0 {
		t.Errorf("Run printed before refusing: %q", out.String())
	}
}
