package sealgate_test

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// readmeMaxLines keeps the README a front page: the manual and the lab
// notes live in docs/.
const readmeMaxLines = 150

// readmeWrapper marks a Go block that is a function body, not a whole file:
// the line before its fence names the imports and the signature it is
// compiled in, so the block is checked exactly as a reader sees it.
//
//	<!-- readme: import PATH...; body of func(PARAMS) RESULTS -->
var readmeWrapper = regexp.MustCompile(`^<!-- readme: import ([^;]+); body of (func\(.*\).*) -->$`)

func readREADME(t *testing.T) []string {
	t.Helper()
	b, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	return strings.Split(strings.TrimSuffix(string(b), "\n"), "\n")
}

// goTool is the go command the checks run: the README is checked by what
// a reader would type.
func goTool(t *testing.T) string {
	t.Helper()
	p, err := exec.LookPath("go")
	if err != nil {
		t.Fatalf("these checks run the go command: %v", err)
	}
	return p
}

// TestREADMELength: the README stays at most readmeMaxLines lines.
func TestREADMELength(t *testing.T) {
	if n := len(readREADME(t)); n > readmeMaxLines {
		t.Errorf("README.md has %d lines, at most %d: move the detail to docs/", n, readmeMaxLines)
	}
}

// layoutRows returns the first cell's paths of each row of the README's
// layout table (the first table after the "## Layout" heading), each with
// its README line number. A path is a backquoted folder ending in "/" or a
// file glob, relative to the module root.
func layoutRows(t *testing.T, lines []string) map[string]int {
	t.Helper()
	start := -1
	for i, l := range lines {
		if strings.HasPrefix(l, "## Layout") {
			start = i
			break
		}
	}
	if start < 0 {
		t.Fatal(`README.md has no "## Layout" heading`)
	}
	paths := map[string]int{}
	row, inTable := 0, false
	quoted := regexp.MustCompile("`([^`]+)`")
	for i := start + 1; i < len(lines); i++ {
		l := lines[i]
		if !strings.HasPrefix(l, "|") {
			if inTable {
				break
			}
			continue
		}
		inTable = true
		row++
		if row <= 2 { // the header and the separator
			continue
		}
		first := strings.SplitN(strings.TrimPrefix(l, "|"), "|", 2)[0]
		for _, m := range quoted.FindAllStringSubmatch(first, -1) {
			paths[m[1]] = i + 1
		}
	}
	if len(paths) == 0 {
		t.Fatal("README.md's layout table names no path")
	}
	return paths
}

// TestREADMELayout: the layout table covers every package `go list ./...`
// prints and names nothing that does not exist. A package is covered when
// the table names its folder, or a parent folder other than internal/ (the
// research instruments are each named), or, for the root package, a glob of
// its files.
func TestREADMELayout(t *testing.T) {
	rows := layoutRows(t, readREADME(t))
	for p, line := range rows {
		if folder, ok := strings.CutSuffix(p, "/"); ok {
			if fi, err := os.Stat(folder); err != nil || !fi.IsDir() {
				t.Errorf("README.md:%d: the layout table names %s, which is not a folder", line, p)
			}
			continue
		}
		if m, err := filepath.Glob(p); err != nil || len(m) == 0 {
			t.Errorf("README.md:%d: the layout table names %s, which matches no file", line, p)
		}
	}

	out, err := exec.Command(goTool(t), "list", "-f", "{{.Dir}}", "./...").Output()
	if err != nil {
		t.Fatalf("go list ./...: %v", err)
	}
	root, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for _, dir := range strings.Fields(string(out)) {
		rel, err := filepath.Rel(root, dir)
		if err != nil {
			t.Fatal(err)
		}
		rel = filepath.ToSlash(rel)
		if !layoutCovers(rows, rel) {
			t.Errorf("README.md's layout table has no row for package %s: add %s/ to a row", rel, rel)
		}
	}
}

// layoutCovers reports whether the table's paths cover the package in the
// folder rel ("." for the module root).
func layoutCovers(rows map[string]int, rel string) bool {
	for p := range rows {
		folder, isFolder := strings.CutSuffix(p, "/")
		switch {
		case rel == "." && !isFolder && !strings.Contains(p, "/") && strings.HasSuffix(p, ".go"):
			return true
		case isFolder && folder == rel:
			return true
		case isFolder && folder != "internal" && strings.HasPrefix(rel, folder+"/"):
			return true
		}
	}
	return false
}

// goBlock is one ```go block of the README: its first line's number, its
// text, and the wrapper that makes it a file (none for a whole file).
type goBlock struct {
	line    int
	text    string
	imports []string
	sig     string
}

func readmeGoBlocks(t *testing.T, lines []string) []goBlock {
	t.Helper()
	var blocks []goBlock
	for i := 0; i < len(lines); i++ {
		if lines[i] != "```go" {
			continue
		}
		b := goBlock{line: i + 2}
		end := i + 1
		for end < len(lines) && lines[end] != "```" {
			end++
		}
		if end == len(lines) {
			t.Fatalf("README.md:%d: the ```go block is not closed", i+1)
		}
		b.text = strings.Join(lines[i+1:end], "\n") + "\n"
		if i > 0 {
			if m := readmeWrapper.FindStringSubmatch(lines[i-1]); m != nil {
				b.imports, b.sig = strings.Fields(m[1]), m[2]
			}
		}
		if b.sig == "" && !regexp.MustCompile(`(?m)^package \w+$`).MatchString(b.text) {
			t.Errorf("README.md:%d: a ```go block is neither a whole file nor marked by a line %q before it",
				i+1, "<!-- readme: import PATH...; body of func(...) ... -->")
		}
		blocks = append(blocks, b)
		i = end
	}
	return blocks
}

// source is the block as a Go file: a whole file as it is, a body inside
// its declared function.
func (b goBlock) source() string {
	// A line directive makes the compiler's positions README.md's own.
	if b.sig == "" {
		return fmt.Sprintf("//line README.md:%d\n%s", b.line, b.text)
	}
	var s strings.Builder
	s.WriteString("package main\n\nimport (\n")
	for _, p := range b.imports {
		fmt.Fprintf(&s, "\t%q\n", p)
	}
	fmt.Fprintf(&s, ")\n\nvar readmeBlock = %s {\n//line README.md:%d\n%s}\n\nfunc main() { _ = readmeBlock }\n", b.sig, b.line, b.text)
	return s.String()
}

// TestREADMEGoBlocks: every ```go block of the README builds and passes go
// vet, in a scratch module that requires this one (replaced by this
// checkout) and the same versions of everything else.
func TestREADMEGoBlocks(t *testing.T) {
	blocks := readmeGoBlocks(t, readREADME(t))
	if len(blocks) == 0 {
		t.Fatal("README.md has no ```go block")
	}
	if t.Failed() {
		return
	}
	root, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	mod, err := os.ReadFile("go.mod")
	if err != nil {
		t.Fatal(err)
	}
	sum, err := os.ReadFile("go.sum")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	gomod, ok := strings.CutPrefix(string(mod), "module github.com/sealgate/sealgate\n")
	if !ok {
		t.Fatal("go.mod does not start with the module line")
	}
	gomod = "module readmecheck\n" + gomod + fmt.Sprintf("\nrequire github.com/sealgate/sealgate v0.0.0\n\nreplace github.com/sealgate/sealgate => %s\n", root)
	write := func(name, text string) {
		t.Helper()
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("go.mod", gomod)
	write("go.sum", string(sum))
	for _, b := range blocks {
		write(filepath.Join(fmt.Sprintf("line%d", b.line), "main.go"), b.source())
	}
	for _, args := range [][]string{{"build", "./..."}, {"vet", "./..."}} {
		cmd := exec.Command(goTool(t), args...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "GOFLAGS=-mod=mod", "GOWORK=off")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Errorf("go %s on the README's Go blocks: %v\n%s",
				strings.Join(args, " "), err, out)
		}
	}
}
