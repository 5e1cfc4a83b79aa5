package boltledger_test

// The power-cut test: TestCrash's child, workload and checks, with the
// ledger file and the executor's effect log on a lazy filesystem
// (internal/lazyfs) that keeps every write until it is fsynced. After
// every kill the parent cuts the power: what was not fsynced is lost, the
// last unsynced write of each file may be torn in whole sectors, and a
// directory entry not fsynced is gone. Then it restarts the child. Besides
// TestCrash's checks, every write the child reported committed must be
// there, and so must every effect it reported recorded.
//
// It is modelled on SQLite's crash tests over a VFS that drops unsynced
// writes, Jepsen's LazyFS, and bbolt's robustness tests over a device that
// drops unsynced writes.

import (
	"fmt"
	"math/rand/v2"
	"os"
	"strconv"
	"testing"
	"time"

	"github.com/sealgate/sealgate/internal/lazyfs"
)

// weakenEnv plants one weakness in the child, to show that the test fails
// when durability is broken: SEALGATE_POWER_WEAKEN=nosync go test -run
// '^TestPowerCut$' -v ./boltledger/ must fail.
const weakenEnv = "SEALGATE_POWER_WEAKEN"

// The planted weaknesses.
const (
	weakNoSync  = "nosync"         // the ledger with bbolt's NoSync: commits are not fsynced
	weakEffects = "effects-nosync" // the executor writes its effect log but does not fsync it
	weakDirSync = "no-dir-sync"    // Open does not fsync the directory of the file it creates
)

var weaknesses = []string{weakNoSync, weakEffects, weakDirSync}

// weaknessFoundWithin is how many cuts each planted weakness may take to
// be found.
const weaknessFoundWithin = 20

// powerCuts is how many cuts a run does: 100 unless SEALGATE_POWER_CUTS
// says otherwise.
func powerCuts(t *testing.T) int {
	s := os.Getenv("SEALGATE_POWER_CUTS")
	if s == "" {
		return 100
	}
	n, err := strconv.Atoi(s)
	if err != nil || n < minPerWindow*len(windows) {
		t.Fatalf("SEALGATE_POWER_CUTS=%q: want a number of at least %d", s, minPerWindow*len(windows))
	}
	return n
}

// powerState is a crash state over a fresh lazy mount, with torn writes.
func powerState(t *testing.T, seed uint64, weak string) *crashState {
	f, _ := lazyfs.ForTest(t, &lazyfs.Options{Torn: true, Rand: rand.New(rand.NewPCG(seed, 26))})
	s := newCrashState(t, f.Dir())
	s.power = f
	s.checkDir = f.Backing()
	if weak != "" {
		s.childEnv = []string{weakenEnv + "=" + weak}
	}
	return s
}

func TestPowerCut(t *testing.T) {
	if testing.Short() {
		t.Skip("the power-cut test restarts a child process a hundred times; -short skips it")
	}
	seed := uint64(time.Now().UnixNano())
	t.Logf("seed %d", seed)
	weak := os.Getenv(weakenEnv)
	if weak != "" {
		t.Logf("%s=%s: a weakness is planted, so this run must fail", weakenEnv, weak)
	}
	s := powerState(t, seed, weak)
	s.campaign(seed, powerCuts(t), true)
	t.Logf("%d cuts, %d of them inside a write or fsync; they dropped unsynced writes of %d files; of the last unsynced writes, %d dropped, %d torn part way, %d kept whole",
		s.power.Cuts(), s.faults, s.unsyncedFiles, s.tornDropped, s.tornPartly, s.tornKept)
}

// TestPowerCutFindsWeaknesses shows the test can fail: each planted
// weakness is found within weaknessFoundWithin cuts.
func TestPowerCutFindsWeaknesses(t *testing.T) {
	if testing.Short() {
		t.Skip("restarts a child process up to a few dozen times; -short skips it")
	}
	for _, weak := range weaknesses {
		t.Run(weak, func(t *testing.T) {
			seed := uint64(time.Now().UnixNano())
			s := powerState(t, seed, weak)
			var first string
			s.fail = func(format string, a ...any) {
				if first == "" {
					first = fmt.Sprintf(format, a...)
				}
			}
			cuts := s.campaign(seed, weaknessFoundWithin, false)
			if s.failures == 0 {
				t.Fatalf("%s: nothing found in %d power cuts (seed %d)", weak, cuts, seed)
			}
			if cuts > weaknessFoundWithin {
				t.Fatalf("%s: found only after %d power cuts, want at most %d (seed %d): %s", weak, cuts, weaknessFoundWithin, seed, first)
			}
			t.Logf("%s: found after %d power cuts (run %d, seed %d): %s", weak, cuts, s.run, seed, first)
		})
	}
}
