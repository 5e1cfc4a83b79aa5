package sealgate_test

import (
	"os"
	"slices"
	"strings"
	"testing"
)

// topLevel is what the module's root may hold: the packages a user imports,
// and the folders the suite is read from. Research instruments live under
// internal/, so that no import path is API by accident.
var topLevel = []string{"boltledger", "check", "cmd", "corpus", "docs", "examples", "gate", "guard", "integrations",
	"internal", "model", "scn", "stdiogate", "wire"}

// TestTopLevelFolders: the root holds only the folders of topLevel.
func TestTopLevelFolders(t *testing.T) {
	entries, err := os.ReadDir(".")
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if e.IsDir() && !strings.HasPrefix(e.Name(), ".") && !slices.Contains(topLevel, e.Name()) {
			t.Errorf("folder %s/ at the top level: only %v belong there; a research instrument goes under internal/", e.Name(), topLevel)
		}
	}
}
