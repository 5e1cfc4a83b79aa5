package boltledger_test

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sealgate/sealgate"
	"github.com/sealgate/sealgate/boltledger"
	"github.com/sealgate/sealgate/gate"
)

// childEnv names the role a re-executed test binary plays; TestMain runs
// that role instead of the tests.
const childEnv = "SEALGATE_BOLTLEDGER_CHILD"

// childRoles are the jobs a child process can do, by name.
var childRoles = map[string]func() error{
	"open":  childOpen,
	"efbig": childEFBIG,
	"crash": childCrash,
}

func TestMain(m *testing.M) {
	if role := os.Getenv(childEnv); role != "" {
		run := childRoles[role]
		if run == nil {
			fmt.Fprintf(os.Stderr, "%s=%q: no such child role\n", childEnv, role)
			os.Exit(2)
		}
		if err := run(); err != nil {
			fmt.Fprintln(os.Stderr, "child "+role+":", err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// childCommand re-executes the test binary in a role, with extra
// environment variables; it runs no test.
func childCommand(role string, env ...string) *exec.Cmd {
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(append(os.Environ(), childEnv+"="+role), env...)
	return cmd
}

// testConfig has one tool whose calls are {"n": integer, "pad": text}.
func testConfig() sealgate.Config {
	cfg := sealgate.DefaultConfig()
	cfg.Tools = []sealgate.Tool{{Name: "write",
		Schema: `{"type":"object","required":["n"],"properties":{"n":{"type":"integer"},"pad":{"type":"string"}}}`}}
	return cfg
}

// turn is one attempt of a turn: its calls' argument texts, streamed in
// pieces fragments each, then closed with status; or, with cutAt > 0, its
// first cutAt events only (the next attempt of the turn supersedes it).
type turn struct {
	attempt, turn string
	args          []string
	pieces        int
	status        sealgate.Status
	cutAt         int
}

// events are the turn's events in stream order: open, begins, the calls'
// fragments interleaved, ends, close.
func (t turn) events() []sealgate.Event {
	evs := []sealgate.Event{sealgate.OpenEvent(t.attempt, t.turn)}
	for i := range t.args {
		item := fmt.Sprint(i)
		evs = append(evs, sealgate.BeginEvent(t.attempt, item, "call-"+item, "write"))
	}
	pieces := max(t.pieces, 1)
	for p := 0; p < pieces; p++ {
		for i, a := range t.args {
			lo, hi := p*len(a)/pieces, (p+1)*len(a)/pieces
			evs = append(evs, sealgate.DeltaEvent(t.attempt, fmt.Sprint(i), []byte(a[lo:hi])))
		}
	}
	for i := range t.args {
		evs = append(evs, sealgate.EndEvent(t.attempt, fmt.Sprint(i)))
	}
	evs = append(evs, sealgate.CloseEvent(t.attempt, t.status))
	if t.cutAt > 0 {
		return evs[:t.cutAt]
	}
	return evs
}

// feeder is a gate, or a pair of them (twinGate).
type feeder interface {
	Feed(sealgate.Event) ([]sealgate.Decision, error)
}

// feedAll feeds events and returns every decision, stopping at the first
// error.
func feedAll(g feeder, evs []sealgate.Event) ([]sealgate.Decision, error) {
	var out []sealgate.Decision
	for _, ev := range evs {
		ds, err := g.Feed(ev)
		out = append(out, ds...)
		if err != nil {
			return out, err
		}
	}
	return out, nil
}

// only returns the decisions of one kind.
func only(kind sealgate.DecisionKind, ds []sealgate.Decision) []sealgate.Decision {
	var out []sealgate.Decision
	for _, d := range ds {
		if d.Kind == kind {
			out = append(out, d)
		}
	}
	return out
}

// openTemp opens a durable ledger in a new temporary folder.
func openTemp(t *testing.T, o *boltledger.Options) (*boltledger.Ledger, string) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "ledger.db")
	l, err := boltledger.Open(path, o)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	return l, path
}

// stateOnDisk reads a key's state from a copy of the file's bytes as they
// are now, through a second, independent handle: what a process started
// right now would find.
func stateOnDisk(t *testing.T, path, key string) gate.LedgerState {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	cp := filepath.Join(t.TempDir(), "copy.db")
	if err := os.WriteFile(cp, b, 0o600); err != nil {
		t.Fatal(err)
	}
	l, err := boltledger.Open(cp, nil)
	if err != nil {
		t.Fatalf("the file's bytes right now do not open: %v", err)
	}
	defer l.Close()
	st, err := l.State(key)
	if err != nil {
		t.Fatal(err)
	}
	return st
}

// lines splits text into its complete lines (a last line without a
// newline is left out) and the torn tail.
func lines(b []byte) (whole []string, tail []byte) {
	i := bytes.LastIndexByte(b, '\n')
	if i < 0 {
		return nil, b
	}
	return strings.Split(string(b[:i]), "\n"), b[i+1:]
}
