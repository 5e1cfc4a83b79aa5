// Command ackwipegate is a gate with one planted bug, behind the stdio
// protocol (docs/protocol.md): the project's own gate over a ledger its
// user wrote, a journal file whose clear (an `ack KEY fail`) starts the
// journal over instead of removing the one key. So an ack fail forgets
// every other key's `intent` and `done` state, and after a restart a retry
// runs again a call whose effect already happened (SPEC section 7: ack
// fail "removes it", that key, from the ledger). It exists so that the
// suite can show it finds such a gate from generated streams alone:
//
//	sealfuzz test -gate 'go run ./examples/ackwipegate' -corpus ""
//
// With -correct its clear removes only its key, which must pass. It
// claims what the real gate claims, the whole SPEC, since everything but
// the ledger is the real gate; with -release-only it reports its releases
// only and claims no more, so that only the checks on what it releases
// can see the bug.
package main

import (
	"bufio"
	"bytes"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/sealgate/sealgate"
	"github.com/sealgate/sealgate/check"
	"github.com/sealgate/sealgate/gate"
	"github.com/sealgate/sealgate/stdiogate"
)

func main() {
	correct := flag.Bool("correct", false, "serve the gate without the planted bug")
	quiet := flag.Bool("release-only", false, "report releases only, and claim no other decision (nor peeks)")
	flag.Parse()
	var backend stdiogate.Backend = func(cfg sealgate.Config, ledgerPath string) (check.Subject, error) {
		l, err := openJournal(ledgerPath, !*correct)
		if err != nil {
			return nil, err
		}
		g, err := gate.New(cfg, l)
		if err != nil {
			l.f.Close()
			return nil, err
		}
		return subject{g, l}, nil
	}
	if *quiet {
		backend = reportingOnlyReleases(backend)
	}
	if err := stdiogate.Serve(os.Stdin, os.Stdout, "ack-wipe gate", backend); err != nil {
		fmt.Fprintln(os.Stderr, "ackwipegate:", err)
		os.Exit(1)
	}
}

// subject is the real gate over the journal: it claims the whole SPEC.
type subject struct {
	*gate.Gate
	journal *journal
}

func (subject) Capabilities() check.Capabilities { return check.FullCapabilities() }

// Close closes the journal at the end of the run.
func (s subject) Close() error { return s.journal.f.Close() }

// journal is a gate.Ledger kept as a file of lines "intent KEY", "done
// KEY", "clear KEY", read back when a run (or a restart) opens it.
type journal struct {
	f    *os.File
	wipe bool // the planted bug: a clear empties the journal
	keys map[string]gate.LedgerState
}

func openJournal(path string, wipe bool) (*journal, error) {
	if path == "" {
		return nil, fmt.Errorf("ledger: no path in the config line")
	}
	src, err := os.ReadFile(path)
	if err != nil && !os.IsNotExist(err) {
		return nil, fmt.Errorf("ledger: %w", err)
	}
	j := &journal{wipe: wipe, keys: map[string]gate.LedgerState{}}
	sc := bufio.NewScanner(bytes.NewReader(src))
	for n := 1; sc.Scan(); n++ {
		op, key, _ := strings.Cut(sc.Text(), " ")
		switch op {
		case "intent":
			j.keys[key] = gate.Intent
		case "done":
			j.keys[key] = gate.Done
		case "clear":
			delete(j.keys, key)
		default:
			return nil, fmt.Errorf("ledger %s: line %d: %q is not \"OP KEY\"", path, n, sc.Text())
		}
	}
	if j.f, err = os.OpenFile(path, os.O_RDWR|os.O_CREATE|os.O_APPEND, 0o600); err != nil {
		return nil, fmt.Errorf("ledger: %w", err)
	}
	return j, nil
}

func (j *journal) State(key string) (gate.LedgerState, error) { return j.keys[key], nil }
func (j *journal) Intent(key string) error                    { return j.write("intent", key, gate.Intent) }
func (j *journal) Done(key string) error                      { return j.write("done", key, gate.Done) }

func (j *journal) Clear(key string) error {
	if j.wipe {
		// The planted bug: the failed call is to run again, so the journal
		// starts over, and takes every other key's state with it.
		clear(j.keys)
		if err := j.f.Truncate(0); err != nil {
			return fmt.Errorf("ledger: %w", err)
		}
		return nil
	}
	return j.write("clear", key, gate.Absent)
}

func (j *journal) write(op, key string, s gate.LedgerState) error {
	if strings.ContainsAny(key, " \n") {
		return fmt.Errorf("ledger: key %q has a space or a newline", key)
	}
	if _, err := j.f.WriteString(op + " " + key + "\n"); err != nil {
		return fmt.Errorf("ledger: %w", err)
	}
	if s == gate.Absent {
		delete(j.keys, key)
	} else {
		j.keys[key] = s
	}
	return nil
}

// releaseOnly reports only the releases of the gate it wraps, and claims
// only what that leaves: a gate that takes acks and restarts, validates
// schemas, and says nothing of what it does not run. Only the checks that
// hold its releases to the model's (I14, I1, I7, SEAL, ...) then apply.
type releaseOnly struct{ check.Subject }

func (releaseOnly) Capabilities() check.Capabilities {
	return check.Capabilities{Acks: true, Restarts: true, Schemas: true, SplitRunes: true}
}

func (r releaseOnly) Feed(ev sealgate.Event) ([]sealgate.Decision, error) {
	ds, err := r.Subject.Feed(ev)
	out := ds[:0]
	for _, d := range ds {
		if d.Kind == sealgate.Release {
			out = append(out, d)
		}
	}
	return out, err
}

func (r releaseOnly) Close() error {
	if c, ok := r.Subject.(io.Closer); ok {
		return c.Close()
	}
	return nil
}

// reportingOnlyReleases wraps every gate b builds in releaseOnly.
func reportingOnlyReleases(b stdiogate.Backend) stdiogate.Backend {
	return func(cfg sealgate.Config, ledgerPath string) (check.Subject, error) {
		g, err := b(cfg, ledgerPath)
		if err != nil {
			return nil, err
		}
		return releaseOnly{g}, nil
	}
}
