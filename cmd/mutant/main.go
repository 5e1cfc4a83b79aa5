// Command mutant runs chosen mutants one at a time, the way gremlins runs
// them, and says which the tests kill. gremlins skips a mutant that no test
// covers, and gives no way to rerun one survivor after a test was added for
// it; reviewing survivors (docs/power/mutants.md) needs both.
//
// Each mutant is named as gremlins prints it, FILE:LINE:COL:TYPE, with FILE
// relative to the module root and TYPE one of gremlins' mutators. The module
// is copied to a scratch folder first, so the working tree is never touched:
//
//	go run ./cmd/mutant -pkg ./gate gate/strict.go:179:10:CONDITIONALS_BOUNDARY
//	go run ./cmd/mutant -pkg ./gate -show gate/strict.go:179:10:CONDITIONALS_BOUNDARY
//
// A mutant is KILLED when the package's tests fail, LIVED when they pass,
// NOT VIABLE when the mutated package does not build, and TIMED OUT when
// the tests pass their -timeout. The exit status is 1 when any mutant lived.
package main

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

func run(args []string, stdout, stderr io.Writer) int {
	fl := flag.NewFlagSet("mutant", flag.ContinueOnError)
	fl.SetOutput(stderr)
	dir := fl.String("dir", ".", "module root")
	pkg := fl.String("pkg", "", "package whose tests judge the mutants, e.g. ./gate (required)")
	runRE := fl.String("run", "", "go test -run pattern (default: every test)")
	timeout := fl.Duration("timeout", 5*time.Minute, "time allowed to one mutant's tests")
	show := fl.Bool("show", false, "print each mutated line; run no tests")
	verbose := fl.Bool("v", false, "print the first lines of go test's output for every mutant")
	fl.Usage = func() {
		fmt.Fprintln(stderr, "usage: mutant -pkg ./PKG [-dir ROOT] [-run RE] [-timeout D] [-show] [-v] FILE:LINE:COL:TYPE...")
		fl.PrintDefaults()
	}
	if err := fl.Parse(args); err != nil {
		return 2
	}
	if fl.NArg() == 0 || (*pkg == "" && !*show) {
		fl.Usage()
		return 2
	}
	ms := make([]Mutant, 0, fl.NArg())
	for _, a := range fl.Args() {
		m, err := ParseMutant(a)
		if err != nil {
			fmt.Fprintln(stderr, "mutant:", err)
			return 2
		}
		ms = append(ms, m)
	}
	if *show {
		for _, m := range ms {
			src, err := os.ReadFile(filepath.Join(*dir, m.File))
			if err != nil {
				fmt.Fprintln(stderr, "mutant:", err)
				return 2
			}
			if _, err := Apply(src, m); err != nil {
				fmt.Fprintln(stderr, "mutant:", err)
				return 2
			}
			fmt.Fprintf(stdout, "%s | %s\n", m, lineOf(src, m.Line))
		}
		return 0
	}
	scratch, err := os.MkdirTemp("", "mutant-")
	if err != nil {
		fmt.Fprintln(stderr, "mutant:", err)
		return 2
	}
	defer os.RemoveAll(scratch)
	if err := copyModule(*dir, scratch); err != nil {
		fmt.Fprintln(stderr, "mutant: copying the module:", err)
		return 2
	}
	lived := false
	for _, m := range ms {
		v, out, err := judge(scratch, m, *pkg, *runRE, *timeout)
		if err != nil {
			fmt.Fprintln(stderr, "mutant:", err)
			return 2
		}
		fmt.Fprintf(stdout, "%s => %s\n", m, v)
		if *verbose || v.Status == Killed {
			lines := strings.Split(strings.TrimRight(out, "\n"), "\n")
			fmt.Fprintln(stdout, "   "+strings.Join(lines[:min(len(lines), 12)], "\n   "))
		}
		lived = lived || v.Status == Lived
	}
	if lived {
		return 1
	}
	return 0
}

// Status is what the tests made of a mutant.
type Status string

const (
	Killed    Status = "KILLED"
	Lived     Status = "LIVED"
	NotViable Status = "NOT VIABLE"
	TimedOut  Status = "TIMED OUT"
)

// Verdict is a Status and the time the tests took.
type Verdict struct {
	Status Status
	Took   time.Duration
}

func (v Verdict) String() string {
	return fmt.Sprintf("%s (%v)", v.Status, v.Took.Round(time.Millisecond))
}

// judge mutates one file of the scratch module, runs the package's tests
// and puts the file back.
func judge(root string, m Mutant, pkg, runRE string, timeout time.Duration) (Verdict, string, error) {
	path := filepath.Join(root, filepath.FromSlash(m.File))
	orig, err := os.ReadFile(path)
	if err != nil {
		return Verdict{}, "", err
	}
	mutated, err := Apply(orig, m)
	if err != nil {
		return Verdict{}, "", err
	}
	if err := os.WriteFile(path, mutated, 0o644); err != nil {
		return Verdict{}, "", err
	}
	defer os.WriteFile(path, orig, 0o644)

	args := []string{"test", "-count=1", "-failfast", "-timeout", timeout.String()}
	if runRE != "" {
		args = append(args, "-run", runRE)
	}
	ctx, cancel := context.WithTimeout(context.Background(), timeout+time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "go", append(args, pkg)...)
	cmd.Dir = root
	start := time.Now()
	out, err := cmd.CombinedOutput()
	v := Verdict{Took: time.Since(start)}
	var exit *exec.ExitError
	switch {
	case err == nil:
		v.Status = Lived
	case ctx.Err() != nil || bytes.Contains(out, []byte("panic: test timed out")):
		v.Status = TimedOut
	case bytes.Contains(out, []byte("[build failed]")) || bytes.Contains(out, []byte("[setup failed]")):
		v.Status = NotViable
	case errors.As(err, &exit):
		v.Status = Killed
	default:
		return Verdict{}, "", fmt.Errorf("running go test: %w", err)
	}
	return v, string(out), nil
}

// copyModule copies the module at src into dst, leaving out version
// control and the fuzzing cache so the copy is the code and its tests.
func copyModule(src, dst string) error {
	if _, err := os.Stat(filepath.Join(src, "go.mod")); err != nil {
		return fmt.Errorf("%s is not a module root: %w", src, err)
	}
	return filepath.WalkDir(src, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(src, path)
		if err != nil {
			return err
		}
		if d.IsDir() {
			if name := d.Name(); rel != "." && (name == ".git" || name == "fuzz" && filepath.Base(filepath.Dir(path)) == "testdata") {
				return filepath.SkipDir
			}
			return os.MkdirAll(filepath.Join(dst, rel), 0o755)
		}
		if !d.Type().IsRegular() {
			return nil
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(dst, rel), b, 0o644)
	})
}

func lineOf(src []byte, line int) string {
	ls := strings.Split(string(src), "\n")
	if line < 1 || line > len(ls) {
		return ""
	}
	return strings.TrimSpace(ls[line-1])
}
