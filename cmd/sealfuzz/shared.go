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
		"TestJSONTestSuite (root), TestSealTextJSONTestSuite (gate), FuzzStrictJSON's JSONTestSuite seeds"},
	{"the vendor captures", "SEALGATE_VENDOR_FIXTURES", "vendor-fixtures",
		"TestVendorCorpus and TestDerivedCorpus (wire), TestRunsOnlyReleases and TestModuleProxy (examples/gatestream), the wire fuzz targets' capture seeds"},
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

// sharedMain is `sealfuzz shared`: the notice alone, for .ci/run.
func sharedMain(args []string, stdout, stderr io.Writer) int {
	fs := newFlagSet("shared", `usage: sealfuzz shared

Checks for the test data read in place from ../shared (JSONTestSuite, the
vendor captures). Without it, prints one line naming the tests that will skip
and how to get it; with CI=true, that line is an error (exit 1).
`, stderr)
	if done, code := parseFlags(fs, args, stdout, stderr); done {
		return code
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "sealfuzz shared: unexpected argument %q\n", fs.Arg(0))
		return 2
	}
	if !sharedNotice(stdout, stderr) {
		return 1
	}
	return 0
}
