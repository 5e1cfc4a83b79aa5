package peers

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// jsDir is the Node harness, relative to this package.
var jsDir = filepath.Join("js")

// TestJSLockfileHasNoRegistryAddresses: the committed lockfile records no
// download address (npm's omit-lockfile-registry-resolved), so `npm ci`
// installs from whatever registry the machine is configured for.
func TestJSLockfileHasNoRegistryAddresses(t *testing.T) {
	src, err := os.ReadFile(filepath.Join(jsDir, "package-lock.json"))
	if err != nil {
		t.Fatal(err)
	}
	var lock struct {
		Packages map[string]map[string]any `json:"packages"`
	}
	if err := json.Unmarshal(src, &lock); err != nil {
		t.Fatalf("package-lock.json: %v", err)
	}
	if len(lock.Packages) < 10 {
		t.Fatalf("package-lock.json lists %d packages: not a lockfile of the harness", len(lock.Packages))
	}
	for name, p := range lock.Packages {
		if r, ok := p["resolved"].(string); ok && strings.Contains(r, "http") {
			t.Errorf("package-lock.json: %s is resolved to %s", name, r)
		}
	}
	if m := regexp.MustCompile(`"resolved":\s*"[^"]*http`).Find(src); m != nil {
		t.Errorf("package-lock.json holds a registry address: %s", m)
	}
	npmrc, err := os.ReadFile(filepath.Join(jsDir, ".npmrc"))
	if err != nil || !strings.Contains(string(npmrc), "omit-lockfile-registry-resolved=true") {
		t.Errorf(".npmrc does not set omit-lockfile-registry-resolved=true (%v)", err)
	}
}

// TestJSVersionsArePinned: package.json names exact versions, and the
// lockfile installs exactly those.
func TestJSVersionsArePinned(t *testing.T) {
	var pkg struct {
		Dependencies map[string]string `json:"dependencies"`
	}
	var lock struct {
		Packages map[string]struct {
			Version string `json:"version"`
		} `json:"packages"`
	}
	for file, v := range map[string]any{"package.json": &pkg, "package-lock.json": &lock} {
		src, err := os.ReadFile(filepath.Join(jsDir, file))
		if err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(src, v); err != nil {
			t.Fatalf("%s: %v", file, err)
		}
	}
	exact := regexp.MustCompile(`^\d+\.\d+\.\d+$`)
	for _, want := range []string{"ai", "@ai-sdk/openai", "@ai-sdk/anthropic", "openai", "@anthropic-ai/sdk", "@langchain/openai", "@langchain/core", "zod"} {
		if _, ok := pkg.Dependencies[want]; !ok {
			t.Errorf("package.json does not depend on %s", want)
		}
	}
	for name, v := range pkg.Dependencies {
		if !exact.MatchString(v) {
			t.Errorf("package.json: %s %q is not an exact version", name, v)
		}
		if got := lock.Packages["node_modules/"+name].Version; got != v {
			t.Errorf("package-lock.json installs %s %s, package.json pins %s", name, got, v)
		}
	}
}
