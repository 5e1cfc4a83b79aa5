package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/sealgate/sealgate/internal/zoo"
)

// lockedBuffer is output that the command writes and the test reads while
// the command runs.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// TestCampaignInterruptExits130: an interrupt (SIGINT, as Ctrl-C sends)
// while a target fuzzes ends the campaign with "interrupted after", the
// totals so far, and exit status 130.
func TestCampaignInterruptExits130(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a fuzzing binary; skipped with -short")
	}
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("no go command on PATH")
	}
	dir := t.TempDir()
	for _, f := range []string{"go.mod", "fake_test.go"} {
		b, err := os.ReadFile(filepath.Join("..", "..", "internal", "campaign", "testdata", "fake", f))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, f), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	t.Setenv(zoo.FaultsEnv, "")
	var out, errb lockedBuffer
	done := make(chan int, 1)
	start := time.Now()
	go func() {
		done <- run([]string{"-dir", dir, "-for", "2m", "-targets", "FuzzPasses", "-regress", filepath.Join(dir, "regress"), "-cache", t.TempDir()}, &out, &errb)
	}()
	// The campaign listens for the interrupt from before it builds; the
	// signal goes once a target fuzzes.
	for !strings.Contains(out.String(), "fuzzing FuzzPasses for") {
		select {
		case code := <-done:
			t.Fatalf("the campaign ended (exit %d) before it fuzzed:\n%s\n%s", code, out.String(), errb.String())
		case <-time.After(100 * time.Millisecond):
		}
	}
	time.Sleep(2 * time.Second)
	if err := syscall.Kill(os.Getpid(), syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	var code int
	select {
	case code = <-done:
	case <-time.After(time.Minute):
		t.Fatalf("the campaign went on after the interrupt:\n%s", out.String())
	}
	if code != 130 {
		t.Errorf("exit %d, want 130\n%s\n%s", code, out.String(), errb.String())
	}
	if time.Since(start) > 90*time.Second {
		t.Errorf("the interrupted campaign took %v", time.Since(start))
	}
	for _, want := range []string{"interrupted after ", "the totals so far:", "FuzzPasses", "CPU time"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("the output lacks %q:\n%s", want, out.String())
		}
	}
}

// TestPlantedBugRefusals: an unknown SEALGATE_FAULTS name is refused with
// every bug's name, and a planted bug's reductions are kept out of corpus/;
// both before anything is built.
func TestPlantedBugRefusals(t *testing.T) {
	t.Setenv(zoo.FaultsEnv, "no-such-bug")
	var out, errb bytes.Buffer
	if code := run([]string{"-for", "1m"}, &out, &errb); code != 2 {
		t.Errorf("unknown bug: exit %d, want 2", code)
	}
	for _, b := range zoo.All {
		if !strings.Contains(errb.String(), b.Name) {
			t.Errorf("the refusal does not list %s: %s", b.Name, errb.String())
		}
	}
	t.Setenv(zoo.FaultsEnv, zoo.AckFailClearsAll.Name)
	errb.Reset()
	if code := run([]string{"-for", "1m", "-regress", filepath.Join("..", "..", "corpus", "regress")}, &out, &errb); code != 2 || !strings.Contains(errb.String(), "under corpus/") {
		t.Errorf("planted bug with -regress in corpus/: exit %d, %s", code, errb.String())
	}
	if underCorpus(filepath.Join("..", "..", "corpusx")) || !underCorpus(filepath.Join("..", "..", "corpus")) {
		t.Error("underCorpus mistakes corpus/'s neighbour or corpus/ itself")
	}
}

// TestPowerHelpListsBugs: power -h names every zoo bug, for -bugs.
func TestPowerHelpListsBugs(t *testing.T) {
	var out, errb bytes.Buffer
	if code := run([]string{"power", "-h"}, &out, &errb); code != 0 {
		t.Fatalf("exit %d", code)
	}
	for _, b := range zoo.All {
		if !strings.Contains(out.String(), b.Name) {
			t.Errorf("power -h does not list %s", b.Name)
		}
	}
	out.Reset()
	if code := run([]string{"power", "-bugs", "nope"}, &out, &errb); code != 2 || !strings.Contains(errb.String(), zoo.Unbounded.Name) {
		t.Errorf("power -bugs nope: exit %d, %s", code, errb.String())
	}
}

// TestSharedOneLine: with the shared data present, sealfuzz shared prints
// exactly one line, so a user can tell it checked.
func TestSharedOneLine(t *testing.T) {
	root := filepath.Join(t.TempDir(), "sealgate")
	if err := os.MkdirAll(root, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, "go.mod"), []byte("module example.com/m\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Chdir(root)
	t.Setenv("CI", "")
	t.Setenv("SEALGATE_JSONTESTSUITE", root)
	t.Setenv("SEALGATE_VENDOR_FIXTURES", root)
	var out, errb bytes.Buffer
	if code := run([]string{"shared"}, &out, &errb); code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	if strings.Count(out.String(), "\n") != 1 || errb.Len() != 0 {
		t.Errorf("sealfuzz shared with the data present printed %q (stderr %q), want one line", out.String(), errb.String())
	}
}
