package main

import (
	"fmt"
	"math/rand"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/sealgate/sealgate"
	"github.com/sealgate/sealgate/check"
	"github.com/sealgate/sealgate/internal/machine"
	"github.com/sealgate/sealgate/internal/trial"
	"github.com/sealgate/sealgate/stdiogate"
)

// inProcess is the gate of this command as a checker, without a process:
// each run over its own ledger file.
func inProcess(t *testing.T, planted, quiet bool) *check.Checker {
	dir, n := t.TempDir(), 0
	b := stdiogate.Control(false)
	if planted {
		b = endedDisconnectIsComplete(b)
	}
	if quiet {
		b = reportingOnlyReleases(b)
	}
	return check.NewChecker(func(cfg sealgate.Config) (check.Subject, error) {
		n++
		return b(cfg, filepath.Join(dir, fmt.Sprint(n)))
	})
}

// TestGeneratedStreamsFindThePlantedBug: among the generated streams of
// `sealfuzz test -gate` (seed 1), many kill the planted gate, claiming the
// whole SPEC or reporting only its releases, and none fails the gate
// without the planted bug.
func TestGeneratedStreamsFindThePlantedBug(t *testing.T) {
	const streams = 400
	for _, quiet := range []bool{false, true} {
		planted, correct := inProcess(t, true, quiet), inProcess(t, false, quiet)
		next := trial.Bytes(rand.New(rand.NewSource(1)))
		kills := 0
		for i := range streams {
			s, _ := next(i)
			if err := correct.All(s.Config, s.Events); err != nil {
				t.Fatalf("release-only %v: %s fails the gate without the planted bug: %v", quiet, s.Source, err)
			}
			if planted.All(s.Config, s.Events) != nil {
				kills++
			}
		}
		t.Logf("release-only %v: %d of %d generated streams kill the planted gate", quiet, kills, streams)
		if kills < streams/100 {
			t.Fatalf("release-only %v: %d of %d generated streams kill the planted gate, want at least %d", quiet, kills, streams, streams/100)
		}
	}
}

// TestMachineFindsThePlantedBug: the rapid state machine (seed 1, 100
// runs) finds the planted gate.
func TestMachineFindsThePlantedBug(t *testing.T) {
	f, after, err := machine.Hunt(inProcess(t, true, false), 1, 100)
	if err != nil {
		t.Fatal(err)
	}
	if f == nil {
		t.Fatal("the machine (seed 1, 100 runs) passes the planted gate")
	}
	t.Logf("found after %v: %v", after, f.Err)
}

// TestOverStdio: the command, built and run behind the stdio protocol
// (reporting only its releases), fails on the same generated streams as
// in process, and without the planted bug on none.
func TestOverStdio(t *testing.T) {
	const streams = 100
	bin := filepath.Join(t.TempDir(), "gate")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	for _, planted := range []bool{true, false} {
		argv := []string{bin, "-release-only"}
		if !planted {
			argv = append(argv, "-correct")
		}
		c, err := stdiogate.NewClient(argv, 0)
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		here, there := inProcess(t, planted, true), c.Checker()
		next := trial.Bytes(rand.New(rand.NewSource(1)))
		kills := 0
		for i := range streams {
			s, _ := next(i)
			want, got := here.All(s.Config, s.Events), there.All(s.Config, s.Events)
			if (want == nil) != (got == nil) {
				t.Fatalf("planted %v, %s: in process %v, over stdio %v", planted, s.Source, want, got)
			}
			if got != nil {
				kills++
			}
		}
		t.Logf("planted %v: %d of %d generated streams fail over stdio", planted, kills, streams)
		if planted == (kills == 0) {
			t.Fatalf("planted %v: %d of %d generated streams fail", planted, kills, streams)
		}
	}
}
