// Command mutant runs chosen mutants one at a time, the way gremlins runs
// them, and says which the tests kill. gremlins skips a mutant that no test
// covers, and gives no way to rerun one survivor after a test was added for
// it; reviewing survivors (docs/research/power/mutants.md) needs both.
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
	mutated := make([][]byte, len(ms)) // every coordinate is checked before anything runs
	for i, m := range ms {
		src, err := os.ReadFile(filepath.Join(*dir, filepath.FromSlash(m.File)))
		if err != nil {
			fmt.Fprintln(stderr, "mutant:", err)
			return 2
		}
		if mutated[i], err = Apply(src, m); err != nil {
			fmt.Fprintln(stderr, "mutant:", err)
			return 2
		}
		if *show {
			fmt.Fprintf(stdout, "%s | %s -> %s\n", m, lineOf(src, m.Line), lineOf(mutated[i], m.Line))
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
	pkgDir, err := packageDir(scratch, *pkg)
	if err != nil {
		fmt.Fprintln(stderr, "mutant:", err)
		return 2
	}
	t := tests{root: scratch, dir: pkgDir, pkg: *pkg, run: *runRE, timeout: *timeout}
	if v, out, err := t.judge(); err != nil || v.Status != Lived {
		if err != nil {
			fmt.Fprintln(stderr, "mutant:", err)
		} else {
			fmt.Fprintf(stderr, "mutant: the tests of %s do not pass without a mutant (%s):\n%s", *pkg, v, out)
		}
		return 2
	}
	lived := false
	for i, m := range ms {
		v, out, err := t.judgeWith(m.File, mutated[i])
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

// packageDir is the folder of the package whose tests judge the mutants.
func packageDir(root, pkg string) (string, error) {
	list, err := command(root, time.Minute, "go", "list", "-f", "{{.Dir}}", pkg)
	if err != nil {
		return "", fmt.Errorf("go list %s: %v\n%s", pkg, err, list)
	}
	dir := strings.TrimSpace(string(list))
	if strings.Contains(dir, "\n") {
		return "", fmt.Errorf("-pkg %s names more than one package", pkg)
	}
	return dir, nil
}

// tests are one package's tests in the scratch module.
type tests struct {
	root, dir, pkg, run string
	timeout             time.Duration
}

// judgeWith writes a mutated version of one file (relative to the module
// root) into the scratch module, judges it, and puts the file back.
func (t tests) judgeWith(file string, mutated []byte) (Verdict, string, error) {
	path := filepath.Join(t.root, filepath.FromSlash(file))
	orig, err := os.ReadFile(path)
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
	v, out, err := t.judge()
	if rerr := os.WriteFile(path, orig, info.Mode().Perm()); rerr != nil {
		return Verdict{}, "", fmt.Errorf("restoring %s: %w", file, rerr)
	}
	return v, out, err
}

// judge compiles the package's tests and runs them in the package's folder,
// as go test would. Compiling apart from running tells a mutant that does
// not build from one that fails a test.
func (t tests) judge() (Verdict, string, error) {
	start := time.Now()
	bin := filepath.Join(t.root, ".mutant.test")
	defer os.Remove(bin)
	if out, err := command(t.root, 10*time.Minute, "go", "test", "-c", "-o", bin, t.pkg); err != nil {
		var exit *exec.ExitError
		if !errors.As(err, &exit) {
			return Verdict{}, "", fmt.Errorf("go test -c %s: %w", t.pkg, err)
		}
		return Verdict{Status: NotViable, Took: time.Since(start)}, string(out), nil
	}
	if _, err := os.Stat(bin); err != nil {
		return Verdict{}, "", fmt.Errorf("%s has no tests to run", t.pkg)
	}
	args := []string{"-test.count=1", "-test.failfast", "-test.timeout", t.timeout.String()}
	if t.run != "" {
		args = append(args, "-test.run", t.run)
	}
	out, err := command(t.dir, t.timeout+time.Minute, bin, args...)
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
		return Verdict{}, "", fmt.Errorf("running the tests of %s: %w", t.pkg, err)
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
