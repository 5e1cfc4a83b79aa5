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
// The package's tests must pass on the unmutated copy first; otherwise
// every verdict would be meaningless and the command stops. Then a mutant
// is KILLED when the tests fail, LIVED when they pass, TIMED OUT when they
// run past -timeout, and NOT VIABLE when the mutated package does not
// compile (gremlins counts that last case as killed, since go test exits 1
// either way). The exit status is 1 when any mutant lived.
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
	for _, m := range ms { // every coordinate is checked before anything runs
		src, err := os.ReadFile(filepath.Join(*dir, filepath.FromSlash(m.File)))
		if err != nil {
			fmt.Fprintln(stderr, "mutant:", err)
			return 2
		}
		mutated, err := Apply(src, m)
		if err != nil {
			fmt.Fprintln(stderr, "mutant:", err)
			return 2
		}
		if *show {
			fmt.Fprintf(stdout, "%s | %s -> %s\n", m, lineOf(src, m.Line), lineOf(mutated, m.Line))
		}
	}
	if *show {
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
	if v, out, err := judge(scratch, nil, *pkg, *runRE, *timeout); err != nil || v.Status != Lived {
		if err != nil {
			fmt.Fprintln(stderr, "mutant:", err)
		} else {
			fmt.Fprintf(stderr, "mutant: the tests of %s do not pass without a mutant (%s):\n%s", *pkg, v, out)
		}
		return 2
	}
	lived := false
	for _, m := range ms {
		v, out, err := judge(scratch, &m, *pkg, *runRE, *timeout)
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

// judge mutates one file of the scratch module (none when m is nil),
// compiles the package's tests, runs them in the package's folder as go
// test would, and puts the file back. Compiling apart from running tells a
// mutant that does not build from one that fails a test.
func judge(root string, m *Mutant, pkg, runRE string, timeout time.Duration) (Verdict, string, error) {
	if m != nil {
		path := filepath.Join(root, filepath.FromSlash(m.File))
		orig, err := os.ReadFile(path)
		if err != nil {
			return Verdict{}, "", err
		}
		mutated, err := Apply(orig, *m)
		if err != nil {
			return Verdict{}, "", err
		}
		info, err := os.Stat(path)
		if err != nil {
			return Verdict{}, "", err
		}
		if err := os.WriteFile(path, mutated, info.Mode().Perm()); err != nil {
			return Verdict{}, "", err
		}
		v, out, err := judge(root, nil, pkg, runRE, timeout)
		if rerr := os.WriteFile(path, orig, info.Mode().Perm()); rerr != nil {
			return Verdict{}, "", fmt.Errorf("restoring %s: %w", m.File, rerr)
		}
		return v, out, err
	}

	start := time.Now()
	list, err := command(root, time.Minute, "go", "list", "-f", "{{.Dir}}", pkg)
	if err != nil {
		return Verdict{}, "", fmt.Errorf("go list %s: %v\n%s", pkg, err, list)
	}
	pkgDir := strings.TrimSpace(string(list))
	if strings.Contains(pkgDir, "\n") {
		return Verdict{}, "", fmt.Errorf("-pkg %s names more than one package", pkg)
	}
	bin := filepath.Join(root, ".mutant.test")
	defer os.Remove(bin)
	if out, err := command(root, 10*time.Minute, "go", "test", "-c", "-o", bin, pkg); err != nil {
		var exit *exec.ExitError
		if !errors.As(err, &exit) {
			return Verdict{}, "", fmt.Errorf("go test -c %s: %w", pkg, err)
		}
		return Verdict{Status: NotViable, Took: time.Since(start)}, string(out), nil
	}
	if _, err := os.Stat(bin); err != nil {
		return Verdict{}, "", fmt.Errorf("%s has no tests to run", pkg)
	}
	args := []string{"-test.count=1", "-test.failfast", "-test.timeout", timeout.String()}
	if runRE != "" {
		args = append(args, "-test.run", runRE)
	}
	out, err := command(pkgDir, timeout+time.Minute, bin, args...)
	v := Verdict{Took: time.Since(start)}
	var exit *exec.ExitError
	switch {
	case err == nil:
		v.Status = Lived
	case errors.Is(err, context.DeadlineExceeded) || bytes.Contains(out, []byte("panic: test timed out")):
		v.Status = TimedOut
	case errors.As(err, &exit):
		v.Status = Killed
	default:
		return Verdict{}, "", fmt.Errorf("running the tests of %s: %w", pkg, err)
	}
	return v, string(out), nil
}

// command runs name in dir and returns its combined output. Past limit the
// process is killed, and its pipes are closed 10 s later even if a child
// still holds them, so a stuck test cannot hang the command.
func command(dir string, limit time.Duration, name string, args ...string) ([]byte, error) {
	ctx, cancel := context.WithTimeout(context.Background(), limit)
	defer cancel()
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Dir = dir
	cmd.WaitDelay = 10 * time.Second
	out, err := cmd.CombinedOutput()
	if ctx.Err() != nil {
		return out, ctx.Err()
	}
	return out, err
}

// copyModule copies the module at src into dst, file modes kept, leaving
// out only version control. testdata/fuzz stays: go test runs its inputs as
// seed tests, and a committed crasher may be what kills a mutant.
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
			if rel != "." && d.Name() == ".git" {
				return filepath.SkipDir
			}
			return os.MkdirAll(filepath.Join(dst, rel), 0o755)
		}
		if !d.Type().IsRegular() {
			return nil
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(dst, rel), b, info.Mode().Perm())
	})
}

func lineOf(src []byte, line int) string {
	ls := strings.Split(string(src), "\n")
	if line < 1 || line > len(ls) {
		return ""
	}
	return strings.TrimSpace(ls[line-1])
}
