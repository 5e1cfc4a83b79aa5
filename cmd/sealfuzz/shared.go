package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
)

// moduleRoot is the folder of the go.mod at or above dir (absolute).
func moduleRoot(dir string) (string, error) {
	root, err := filepath.Abs(dir)
	if err != nil {
		return "", err
	}
	for {
		if _, err := os.Stat(filepath.Join(root, "go.mod")); err == nil {
			return root, nil
		}
		up := filepath.Dir(root)
		if up == root {
			return "", fmt.Errorf("%s is not inside a Go module (no go.mod above it)", dir)
		}
		root = up
	}
}

// sharedData is test data read in place from the project's shared folder
// beside the module, never copied into it; env overrides its location.
type sharedData struct {
	what, env, rel string
	uses           string // what goes without it
}

var sharedFolders = []sharedData{
	{"JSONTestSuite", "SEALGATE_JSONTESTSUITE", "jsontestsuite/test_parsing",
		"FuzzStrictJSON's JSONTestSuite seeds, TestJSONTestSuite (root, gate)"},
	{"the vendor captures", "SEALGATE_VENDOR_FIXTURES", "vendor-fixtures",
		"the wire fuzz targets' capture seeds, wire's capture tests, examples/gatestream's tests"},
}

// missingShared lists the shared test data not found from the module root
// root, as one line naming what goes without it and how to get it ("" when
// everything is there).
func missingShared(root string) string {
	var gone, uses, envs []string
	for _, d := range sharedFolders {
		dir := os.Getenv(d.env)
		if dir == "" {
			dir = filepath.Join(root, "..", "shared", filepath.FromSlash(d.rel))
		}
		if st, err := os.Stat(dir); err == nil && st.IsDir() {
			continue
		}
		gone = append(gone, d.what+" ("+dir+")")
		uses = append(uses, d.uses)
		envs = append(envs, d.env)
	}
	if len(gone) == 0 {
		return ""
	}
	return fmt.Sprintf("not found: %s; skipped without it: %s; to get it, put the project's shared folder beside the module as ../shared, or set %s",
		strings.Join(gone, ", "), strings.Join(uses, "; "), strings.Join(envs, " and "))
}

// sharedNotice prints missingShared's line for the module in the working
// directory, and reports false when the run must stop: in CI (CI=true) the
// shared data is required, so that no skip goes unseen.
func sharedNotice(stdout, stderr io.Writer) bool {
	root, err := moduleRoot(".")
	if err != nil {
		return true // not in the module: the campaign's own error says so
	}
	line := missingShared(root)
	if line == "" {
		return true
	}
	if os.Getenv("CI") == "true" {
		fmt.Fprintf(stderr, "sealfuzz: CI=true and %s\n", line)
		return false
	}
	fmt.Fprintf(stdout, "sealfuzz: %s\n", line)
	return true
}
