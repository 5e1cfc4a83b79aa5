package check_test

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// stepsDoc is the manual whose "An invariant" steps are followed here.
const stepsDoc = "../docs/suite.md"

// TestDocumentedInvariantSteps adds the manual's example invariant exactly
// as the manual says (its function and catalog line into invariants.go,
// its test into check_test.go, nothing else), builds the package with them
// through a go overlay, and runs every test of the package: they must
// pass, the new test among them, so the new check was consulted and a
// second table or a hard-coded list cannot hide in the package again.
func TestDocumentedInvariantSteps(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and tests the package a second time")
	}
	doc, err := os.ReadFile(stepsDoc)
	if err != nil {
		t.Fatal(err)
	}
	fn := docBlock(t, doc, "function")
	line := docBlock(t, doc, "catalog line")
	test := docBlock(t, doc, "test")
	name := regexp.MustCompile(`func (Test\w+)\(`).FindStringSubmatch(test)
	if name == nil {
		t.Fatalf("%s: the example test has no func TestX(", stepsDoc)
	}

	inv := readFile(t, "invariants.go")
	const head = "var catalog = []invariant{\n"
	i := strings.Index(inv, head)
	if i < 0 {
		t.Fatalf("invariants.go has no %q", head)
	}
	j := strings.Index(inv[i:], "\n}\n")
	if j < 0 {
		t.Fatal("invariants.go: the catalog does not end")
	}
	end := i + j + 1
	inv = inv[:end] + line + inv[end:] + "\n" + fn
	checkTest := readFile(t, "check_test.go") + "\n" + test

	dir := t.TempDir()
	here, err := filepath.Abs(".")
	if err != nil {
		t.Fatal(err)
	}
	replace := map[string]string{}
	for file, text := range map[string]string{"invariants.go": inv, "check_test.go": checkTest} {
		p := filepath.Join(dir, file)
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		replace[filepath.Join(here, file)] = p
	}
	overlay, _ := json.Marshal(map[string]any{"Replace": replace})
	ov := filepath.Join(dir, "overlay.json")
	if err := os.WriteFile(ov, overlay, 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("go", "test", "-overlay", ov, "-count=1", "-v",
		"-skip", "^TestDocumentedInvariantSteps$", ".")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("the package's tests fail with the manual's invariant added: %v\n%s", err, tail(out))
	}
	if !strings.Contains(string(out), "--- PASS: "+name[1]+" ") {
		t.Fatalf("the manual's test %s did not run and pass:\n%s", name[1], tail(out))
	}
}

// docBlock is the code block after the marker "<!-- add an invariant: what -->".
func docBlock(t *testing.T, doc []byte, what string) string {
	t.Helper()
	marker := "<!-- add an invariant: " + what + " -->\n```go\n"
	_, rest, ok := strings.Cut(string(doc), marker)
	if !ok {
		t.Fatalf("%s: no %q", stepsDoc, strings.TrimSpace(marker))
	}
	block, _, ok := strings.Cut(rest, "```\n")
	if !ok {
		t.Fatalf("%s: the block after %q does not end", stepsDoc, what)
	}
	return block
}

func readFile(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// tail is the end of a long output, where go test puts its verdict.
func tail(out []byte) string {
	const most = 4000
	if len(out) > most {
		return "..." + string(out[len(out)-most:])
	}
	return string(out)
}
