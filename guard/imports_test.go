package guard_test

import (
	"os"
	"os/exec"
	"slices"
	"strings"
	"testing"
)

// sdkModules are the vendor SDKs. The guard's tests run the first two; no
// package a gate user imports may depend on any of them.
var sdkModules = []string{"github.com/openai/openai-go", "github.com/anthropics/anthropic-sdk-go", "google.golang.org/genai"}

// gateUserPackages are the packages an application embeds: the vocabulary,
// the gate, the decoders, the guard and the durable ledger.
func gateUserPackages(t *testing.T) []string {
	return []string{".", "./gate/...", "./wire/...", "./guard/...", "./boltledger/..."}
}

// sdkImports runs go list -deps in the module root over args and returns
// each import of an SDK package, as "importer -> imported", for a package
// outside the SDKs (their own imports of one another are not news).
func sdkImports(t *testing.T, args ...string) []string {
	return moduleImports(t, sdkModules, args...)
}

// moduleImports is sdkImports for any list of modules.
func moduleImports(t *testing.T, modules []string, args ...string) []string {
	t.Helper()
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Fatalf("the go command is needed to list imports: %v", err)
	}
	cmd := exec.Command(goTool, append([]string{"list", "-deps", "-f", "{{.ImportPath}}{{range .Imports}} {{.}}{{end}}"}, args...)...)
	cmd.Dir = ".."
	cmd.Env = append(os.Environ(), "GOPROXY=off", "GOFLAGS=-mod=readonly")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("go list %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	isSDK := func(p string) bool {
		return slices.ContainsFunc(modules, func(m string) bool { return p == m || strings.HasPrefix(p, m+"/") })
	}
	var found []string
	for line := range strings.Lines(string(out)) {
		f := strings.Fields(line)
		if len(f) == 0 || isSDK(f[0]) {
			continue
		}
		for _, imp := range f[1:] {
			if isSDK(imp) {
				found = append(found, f[0]+" -> "+imp)
			}
		}
	}
	return found
}

func TestGateUserPackagesDoNotImportSDKs(t *testing.T) {
	pkgs := gateUserPackages(t)
	if bad := sdkImports(t, pkgs...); len(bad) > 0 {
		t.Errorf("a package a gate user imports depends on an SDK (checked %s):\n  %s", strings.Join(pkgs, " "), strings.Join(bad, "\n  "))
	}
	// The same check finds the SDKs where they are: in the guard's tests.
	bad := sdkImports(t, "-test", "./guard")
	for _, m := range sdkModules[:2] {
		if !slices.ContainsFunc(bad, func(s string) bool { return strings.Contains(s, "-> "+m) }) {
			t.Errorf("the check misses %s, which the guard's tests import: %v", m, bad)
		}
	}
}
