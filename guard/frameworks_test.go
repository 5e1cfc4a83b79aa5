package guard_test

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"golang.org/x/mod/modfile"
)

// frameworkModules are the agent frameworks the integrations protect. They
// live only in nested modules (integrations/*): no package a gate user
// imports may depend on one, and the core go.mod may not require one.
var frameworkModules = []string{"github.com/cloudwego/eino", "github.com/cloudwego/eino-ext",
	"github.com/tmc/langchaingo", "github.com/firebase/genkit", "github.com/modelcontextprotocol/go-sdk",
	"github.com/mark3labs/mcp-go"}

func isFramework(path string) bool {
	return slices.ContainsFunc(frameworkModules, func(m string) bool { return path == m || strings.HasPrefix(path, m+"/") })
}

// frameworkRequires lists the frameworks a go.mod requires, directly or
// indirectly.
func frameworkRequires(t *testing.T, gomod string) []string {
	t.Helper()
	src, err := os.ReadFile(gomod)
	if err != nil {
		t.Fatal(err)
	}
	f, err := modfile.ParseLax(gomod, src, nil)
	if err != nil {
		t.Fatalf("%s: %v", gomod, err)
	}
	var found []string
	for _, r := range f.Require {
		if isFramework(r.Mod.Path) {
			found = append(found, r.Mod.Path+" "+r.Mod.Version)
		}
	}
	return found
}

func TestGateUserPackagesDoNotImportFrameworks(t *testing.T) {
	pkgs := gateUserPackages(t)
	if bad := moduleImports(t, frameworkModules, pkgs...); len(bad) > 0 {
		t.Errorf("a package a gate user imports depends on a framework (checked %s):\n  %s", strings.Join(pkgs, " "), strings.Join(bad, "\n  "))
	}
}

func TestCoreModuleRequiresNoFramework(t *testing.T) {
	if bad := frameworkRequires(t, filepath.Join("..", "go.mod")); len(bad) > 0 {
		t.Errorf("the core go.mod requires a framework; it belongs in a nested module under integrations/: %v", bad)
	}
	// The same check finds the frameworks where they are: in the nested
	// modules of the integrations.
	for _, dir := range []string{"eino", "langchaingo", "mcp"} {
		gomod := filepath.Join("..", "integrations", dir, "go.mod")
		if _, err := os.Stat(gomod); err != nil {
			t.Errorf("integration module %s: %v", dir, err)
			continue
		}
		if len(frameworkRequires(t, gomod)) == 0 {
			t.Errorf("the check finds no framework in %s, which requires one", gomod)
		}
	}
}
