package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/sealgate/sealgate/internal/campaign"
)

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
	root, err := campaign.ModuleRoot(".")
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

var sharedCmd = &command{
	name:  "shared",
	usage: "shared",
	short: "say which tests skip for want of ../shared",
	long: `Checks for the test data read in place from ../shared (JSONTestSuite, the
vendor captures) and for /dev/fuse (the power-cut test). Without one, prints
one line naming the tests that will skip and how to get it; with CI=true,
that line is an error (exit 1). With both, says that nothing skips.
`,
	flags: func(fs *flag.FlagSet) func(args []string, stdout, stderr io.Writer) int {
		return sharedMain
	},
}

// sharedMain is `sealfuzz shared`: the notice alone, for .ci/run.
func sharedMain(args []string, stdout, stderr io.Writer) int {
	if len(args) > 0 {
		fmt.Fprintf(stderr, "sealfuzz shared: unexpected argument %q\n", args[0])
		return 2
	}
	if !sharedNotice(stdout, stderr) {
		return 1
	}
	if line := missingFUSE(); line != "" {
		if os.Getenv("CI") == "true" {
			fmt.Fprintf(stderr, "sealfuzz: CI=true and %s\n", line)
			return 1
		}
		fmt.Fprintf(stdout, "sealfuzz: %s\n", line)
		return 0
	}
	fmt.Fprintln(stdout, "sealfuzz shared: nothing skips: ../shared and /dev/fuse are here")
	return 0
}

// missingFUSE says which tests skip without /dev/fuse, the device the
// power-cut test mounts its lazy filesystem through ("" when it is there).
func missingFUSE() string {
	if _, err := os.Stat("/dev/fuse"); err == nil {
		return ""
	}
	return "no /dev/fuse: skipped without it: TestPowerCut and TestPowerCutFindsWeaknesses (boltledger), the tests of internal/lazyfs; to get it, install fuse3 and give the machine or container /dev/fuse (with CI=true they fail)"
}
