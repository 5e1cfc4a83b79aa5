package main

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/sealgate/sealgate/internal/trial"
	"github.com/sealgate/sealgate/stdiogate"
)

// With SEALFUZZ_STDIO_CONTROL set, the test binary is the control gate
// (cmd/sealgate-stdio), so that sealfuzz test can run it without a build.
func TestMain(m *testing.M) {
	if os.Getenv("SEALFUZZ_STDIO_CONTROL") != "" {
		if err := stdiogate.Serve(os.Stdin, os.Stdout, "sealgate", stdiogate.Control(false)); err != nil {
			os.Exit(1)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

func TestGateTestControl(t *testing.T) {
	t.Setenv("SEALFUZZ_STDIO_CONTROL", "1")
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	var out, errOut bytes.Buffer
	code := run([]string{"test", "-for", "1s", "-checks", "1", "-corpus", filepath.Join("..", "..", "corpus", "seed"), "--", exe}, &out, &errOut)
	if code != 0 || !strings.Contains(out.String(), "\ntest: 0 violations") || !strings.Contains(out.String(), "capabilities: full") {
		t.Fatalf("exit %d\n%s\n%s", code, out.String(), errOut.String())
	}
	phases := regexp.MustCompile(`\nphases: corpus [1-9]\d* in \S+, machine 1 in \S+, generated \d+ in \S+ \(\d+ streams/s\); CPU: sealfuzz \S+, gate processes \S+\n$`)
	if !phases.MatchString(out.String()) {
		t.Fatalf("the report does not end with each phase's count and time:\n%s", out.String())
	}
	t.Log(lastLine(out.String()))
}

// TestGateTestMachineBound: once -machine-for is spent, the machine run
// in progress is the last, and the report says how many ran.
func TestGateTestMachineBound(t *testing.T) {
	t.Setenv("SEALFUZZ_STDIO_CONTROL", "1")
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	var out, errOut bytes.Buffer
	code := run([]string{"test", "-for", "0", "-checks", "5", "-machine-for", "1ns", "-corpus", "", "--", exe}, &out, &errOut)
	s := out.String()
	if code != 0 || !strings.Contains(s, "machine: stopped after 1 of 5 runs, at the 1ns bound") || !strings.Contains(s, "\nphases: machine 1 in ") {
		t.Fatalf("exit %d\n%s\n%s", code, s, errOut.String())
	}
	if code := run([]string{"test", "-machine-for", "-1s", "--", exe}, &out, &errOut); code != 2 {
		t.Fatalf("a negative -machine-for: exit %d, want 2", code)
	}
}

// TestGateTestWorkersAndStreams: -streams ends the generated phase at a
// count, whatever -for is left, on -workers workers; no worker is no run.
func TestGateTestWorkersAndStreams(t *testing.T) {
	t.Setenv("SEALFUZZ_STDIO_CONTROL", "1")
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	var out, errOut bytes.Buffer
	code := run([]string{"test", "-for", "1h", "-streams", "30", "-workers", "3", "-checks", "0", "-corpus", "", "--", exe}, &out, &errOut)
	s := out.String()
	if code != 0 || !strings.Contains(s, "in generated 30 streams; ") || !strings.Contains(s, ", generated 30 in ") {
		t.Fatalf("exit %d\n%s\n%s", code, s, errOut.String())
	}
	for _, bad := range [][]string{{"-workers", "0"}, {"-streams", "-1"}} {
		if code := run(append([]string{"test"}, append(bad, "--", exe)...), &out, &errOut); code != 2 {
			t.Fatalf("%v: exit %d, want 2", bad, code)
		}
	}
}

// TestGateTestEmbeddedCorpus runs sealfuzz test from an empty folder, as
// a researcher who installed sealfuzz alone would: the corpus built into
// the binary is run, every scenario of the corpus folder that has a
// configuration, against the control gate.
func TestGateTestEmbeddedCorpus(t *testing.T) {
	want := 0
	scenarios, err := trial.LoadCorpus(filepath.Join("..", "..", "corpus"))
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range scenarios {
		if _, err := s.Config(); err == nil {
			want++
		}
	}
	t.Setenv("SEALFUZZ_STDIO_CONTROL", "1")
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	t.Chdir(t.TempDir())
	var out, errOut bytes.Buffer
	code := run([]string{"test", "-for", "0", "-checks", "0", "--", exe}, &out, &errOut)
	if code != 0 || !strings.Contains(out.String(), "\ntest: 0 violations") {
		t.Fatalf("exit %d\n%s\n%s", code, out.String(), errOut.String())
	}
	if got := fmt.Sprintf("in corpus %d streams", want); !strings.Contains(out.String(), got) {
		t.Fatalf("want %q (every scenario of the corpus folder), got:\n%s", got, lastLine(out.String()))
	}
	t.Log(lastLine(out.String()))
}

func TestGateTestNaiveGate(t *testing.T) {
	py, err := exec.LookPath("python3")
	if err != nil {
		t.Skip("python3 not found on PATH: the naive example gate needs it")
	}
	var out, errOut bytes.Buffer
	dir := t.TempDir()
	code := run([]string{"test", "-for", "0", "-checks", "0", "-corpus", filepath.Join("..", "..", "corpus", "evidence"), "-o", dir,
		"-gate", py + " " + filepath.Join("..", "..", "examples", "python", "naive_gate.py")}, &out, &errOut)
	s := out.String()
	if code != 1 {
		t.Fatalf("exit %d, want 1\n%s\n%s", code, s, errOut.String())
	}
	for _, want := range []string{"FAIL I1:", "close a status=disconnected", "what the gate said:", "reason=turn-disconnected", "\ntest: ", " checks failed (I1"} {
		if !strings.Contains(s, want) {
			t.Errorf("the report lacks %q:\n%s", want, s)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "I1.scn")); err != nil {
		t.Errorf("-o does not write CHECK.scn: %v", err)
	}
}

func TestGateTestUsage(t *testing.T) {
	var out, errOut bytes.Buffer
	if code := run([]string{"test", "-h"}, &out, &errOut); code != 0 || !strings.Contains(out.String(), "-timeout") {
		t.Fatalf("-h: exit %d, %q", code, out.String())
	}
	if code := run([]string{"test"}, &out, &errOut); code != 2 {
		t.Fatalf("no gate: exit %d, want 2", code)
	}
}

func lastLine(s string) string {
	s = strings.TrimSpace(s)
	return s[strings.LastIndex(s, "\n")+1:]
}
