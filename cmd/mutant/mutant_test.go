package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

const maxSrc = `package m

// Max returns the larger of a and b.
func Max(a, b int) int {
	if a > b {
		return a
	}
	return b
}

// Sum adds 1..n.
func Sum(n int) int {
	s := 0
	for i := 1; i <= n; i++ {
		s += i
	}
	return s - 0
}

func Name() string { return "a" + "b" }

func Neg(x int) int { _ = "é"; return -x }
`

func TestApply(t *testing.T) {
	cases := []struct {
		at, want string
	}{
		{"m.go:5:7:CONDITIONALS_NEGATION", "if a <= b {"},
		{"m.go:5:7:CONDITIONALS_BOUNDARY", "if a >= b {"},
		{"m.go:14:16:CONDITIONALS_BOUNDARY", "for i := 1; i < n; i++ {"},
		{"m.go:14:23:INCREMENT_DECREMENT", "for i := 1; i <= n; i-- {"},
		{"m.go:17:11:ARITHMETIC_BASE", "return s + 0"},
		{"m.go:17:11:INVERT_NEGATIVES", "return s + 0"},
		{"m.go:22:40:INVERT_NEGATIVES", `func Neg(x int) int { _ = "é"; return +x }`}, // é is two bytes: byte columns
	}
	for _, c := range cases {
		m, err := ParseMutant(c.at)
		if err != nil {
			t.Fatal(err)
		}
		out, err := Apply([]byte(maxSrc), m)
		if err != nil {
			t.Fatalf("%s: %v", c.at, err)
		}
		if got := lineOf(out, m.Line); got != c.want {
			t.Errorf("%s: line %q, want %q", c.at, got, c.want)
		}
		if n := diffLines(maxSrc, string(out)); n != 1 {
			t.Errorf("%s: %d lines changed, want 1", c.at, n)
		}
	}
}

func diffLines(a, b string) int {
	la, lb := strings.Split(a, "\n"), strings.Split(b, "\n")
	if len(la) != len(lb) {
		return -1
	}
	n := 0
	for i := range la {
		if la[i] != lb[i] {
			n++
		}
	}
	return n
}

func TestApplyRefuses(t *testing.T) {
	for _, at := range []string{
		"m.go:5:6:CONDITIONALS_NEGATION",  // the space before >, not >
		"m.go:5:7:INCREMENT_DECREMENT",    // > is no ++
		"m.go:99:1:CONDITIONALS_NEGATION", // no such line
	} {
		m, err := ParseMutant(at)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := Apply([]byte(maxSrc), m); err == nil || !strings.Contains(err.Error(), at) {
			t.Errorf("%s: err %v, want one naming the mutant", at, err)
		}
	}
	for _, bad := range []string{"m.go:5:7", "m.go:x:7:CONDITIONALS_NEGATION", "m.go:0:7:CONDITIONALS_NEGATION", "m.go:5:7:SWAP"} {
		if _, err := ParseMutant(bad); err == nil || !strings.Contains(err.Error(), bad) {
			t.Errorf("ParseMutant(%q): err %v, want one naming the input", bad, err)
		}
	}
}

// TestJudge runs real mutants in a throwaway module: each status must come
// out for the mutant built to earn it.
func TestJudge(t *testing.T) {
	if testing.Short() {
		t.Skip("runs go test in a scratch module")
	}
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("no go command on PATH")
	}
	dir := t.TempDir()
	write := func(name, s string) {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("go.mod", "module m\n\ngo 1.22\n")
	write("m.go", maxSrc)
	write("m_test.go", `package m

import "testing"

func TestM(t *testing.T) {
	if Max(1, 2) != 2 || Max(2, 1) != 2 || Sum(3) != 6 || Name() != "ab" {
		t.Fatal("wrong")
	}
}
`)
	cases := []struct {
		at   string
		want Status
	}{
		{"m.go:5:7:CONDITIONALS_NEGATION", Killed},
		{"m.go:5:7:CONDITIONALS_BOUNDARY", Lived}, // equivalent: equal a and b give the same
		{"m.go:20:33:ARITHMETIC_BASE", NotViable}, // "a" - "b"
		{"m.go:14:23:INCREMENT_DECREMENT", TimedOut},
	}
	var stdout, stderr bytes.Buffer
	args := []string{"-dir", dir, "-pkg", ".", "-timeout", "3s"}
	for _, c := range cases {
		args = append(args, c.at)
	}
	code := run(args, &stdout, &stderr)
	if code != 1 {
		t.Errorf("exit %d, want 1 (a mutant lived); stderr: %s", code, stderr.String())
	}
	for _, c := range cases {
		if !strings.Contains(stdout.String(), c.at+" => "+string(c.want)+" (") {
			t.Errorf("%s: want %s in\n%s", c.at, c.want, stdout.String())
		}
	}
	src, _ := os.ReadFile(filepath.Join(dir, "m.go"))
	if string(src) != maxSrc {
		t.Error("the module's own file was changed")
	}
}

// TestJudgeRefusesBadBaseline: with a package that is not there, or tests
// that fail unmutated, no verdict means anything, so none is given.
func TestJudgeRefusesBadBaseline(t *testing.T) {
	if testing.Short() {
		t.Skip("runs go test in a scratch module")
	}
	dir := t.TempDir()
	must(t, os.WriteFile(filepath.Join(dir, "go.mod"), []byte("module m\n\ngo 1.22\n"), 0o644))
	must(t, os.WriteFile(filepath.Join(dir, "m.go"), []byte(maxSrc), 0o644))
	must(t, os.WriteFile(filepath.Join(dir, "m_test.go"), []byte("package m\n\nimport \"testing\"\n\nfunc TestM(t *testing.T) { t.Fatal(\"always\") }\n"), 0o644))
	for _, c := range []struct{ pkg, want string }{
		{"./nope", "go list ./nope"},
		{".", "do not pass without a mutant"},
	} {
		var stdout, stderr bytes.Buffer
		code := run([]string{"-dir", dir, "-pkg", c.pkg, "m.go:5:7:CONDITIONALS_NEGATION"}, &stdout, &stderr)
		if code != 2 || !strings.Contains(stderr.String(), c.want) || stdout.Len() != 0 {
			t.Errorf("-pkg %s: exit %d, stdout %q, stderr %q; want exit 2 and %q", c.pkg, code, stdout.String(), stderr.String(), c.want)
		}
	}
}

func TestCopyModule(t *testing.T) {
	src, dst := t.TempDir(), t.TempDir()
	files := map[string]os.FileMode{
		"go.mod": 0o644, "a.go": 0o644, "run.sh": 0o755,
		"testdata/fuzz/FuzzX/abc": 0o644, ".git/HEAD": 0o644,
	}
	for name, mode := range files {
		p := filepath.Join(src, filepath.FromSlash(name))
		must(t, os.MkdirAll(filepath.Dir(p), 0o755))
		must(t, os.WriteFile(p, []byte(name), mode))
	}
	must(t, copyModule(src, dst))
	for name, mode := range files {
		info, err := os.Stat(filepath.Join(dst, filepath.FromSlash(name)))
		if name == ".git/HEAD" {
			if err == nil {
				t.Error(".git was copied")
			}
			continue
		}
		if err != nil {
			t.Errorf("%s not copied: %v", name, err)
		} else if info.Mode().Perm() != mode {
			t.Errorf("%s: mode %v, want %v", name, info.Mode().Perm(), mode)
		}
	}
	if err := copyModule(filepath.Join(src, "testdata"), t.TempDir()); err == nil || !strings.Contains(err.Error(), "not a module root") {
		t.Errorf("copying a folder with no go.mod: err %v", err)
	}
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

func TestVerdictString(t *testing.T) {
	// The output format the README and docs/research/power/mutants.md quote.
	v := Verdict{Status: Lived, Took: 1500 * time.Millisecond}
	if v.String() != "LIVED (1.5s)" {
		t.Errorf("got %q", v.String())
	}
}
