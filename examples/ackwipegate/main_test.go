package main

import (
	"fmt"
	"math/rand"
	"path/filepath"
	"testing"

	"github.com/sealgate/sealgate"
	"github.com/sealgate/sealgate/check"
	"github.com/sealgate/sealgate/gate"
	"github.com/sealgate/sealgate/internal/trial"
)

// inProcess is the gate of this command as a checker, without a process:
// each run over its own journal file.
func inProcess(t *testing.T, planted bool) *check.Checker {
	dir, n := t.TempDir(), 0
	return check.NewChecker(func(cfg sealgate.Config) (check.Subject, error) {
		n++
		l, err := openJournal(filepath.Join(dir, fmt.Sprint(n)), planted)
		if err != nil {
			return nil, err
		}
		g, err := gate.New(cfg, l)
		if err != nil {
			l.f.Close()
			return nil, err
		}
		return subject{g, l}, nil
	})
}

// TestGeneratedStreamsFindThePlantedBug: among the generated streams of
// `sealfuzz test -gate` (seed 1), many kill the planted gate, and none
// fails the gate without the bug.
func TestGeneratedStreamsFindThePlantedBug(t *testing.T) {
	const streams = 400
	planted, correct := inProcess(t, true), inProcess(t, false)
	next := trial.Bytes(rand.New(rand.NewSource(1)))
	kills := 0
	for i := range streams {
		s, _ := next(i)
		if err := correct.All(s.Config, s.Events); err != nil {
			t.Fatalf("%s fails the gate without the planted bug: %v", s.Source, err)
		}
		if planted.All(s.Config, s.Events) != nil {
			kills++
		}
	}
	t.Logf("%d of %d generated streams kill the planted gate", kills, streams)
	if kills < streams/50 {
		t.Fatalf("%d of %d generated streams kill the planted gate, want at least %d", kills, streams, streams/50)
	}
}
