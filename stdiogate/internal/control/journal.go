package control

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/sealgate/sealgate/gate"
)

// journal is a gate.Ledger kept as an append-only file of lines
// "intent KEY", "done KEY", "clear KEY", replayed when it is opened. Each
// change is one write(2) before the gate answers, so a process killed at
// any point leaves every answered release in the file; a last line with no
// newline is a write the kill cut, which never reached an answer, and is
// dropped. (The ledger package of the project is the durable one; this
// journal only has to outlive the process.)
type journal struct {
	f     *os.File // nil until the first change when the file was not there
	path  string
	fsync bool
	keys  map[string]gate.LedgerState
}

func openJournal(path string, fsync bool) (*journal, error) {
	if path == "" {
		return nil, fmt.Errorf("ledger: no path in the config line")
	}
	src, err := os.ReadFile(path)
	if err != nil && !os.IsNotExist(err) {
		return nil, fmt.Errorf("ledger: %w", err)
	}
	j := &journal{fsync: fsync, keys: map[string]gate.LedgerState{}}
	if i := bytes.LastIndexByte(src, '\n'); i+1 < len(src) {
		src = src[:i+1] // a torn last write
	}
	sc := bufio.NewScanner(bytes.NewReader(src))
	sc.Buffer(nil, 1<<20)
	for n := 1; sc.Scan(); n++ {
		op, key, ok := strings.Cut(sc.Text(), " ")
		if !ok || key == "" {
			return nil, fmt.Errorf("ledger %s: line %d: %q is not \"OP KEY\"", path, n, sc.Text())
		}
		switch op {
		case "intent":
			j.keys[key] = gate.Intent
		case "done":
			j.keys[key] = gate.Done
		case "clear":
			delete(j.keys, key)
		default:
			return nil, fmt.Errorf("ledger %s: line %d: unknown operation %q", path, n, op)
		}
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("ledger %s: %w", path, err)
	}
	if os.IsNotExist(err) {
		// Created at the first change: a run that changes nothing (a
		// refused configuration, a stream with no release) costs no file.
		// The folder must be there already.
		if fi, err := os.Stat(filepath.Dir(path)); err != nil || !fi.IsDir() {
			return nil, fmt.Errorf("ledger %s: its folder is not there", path)
		}
		j.path = path
		return j, nil
	}
	if j.f, err = os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0o600); err != nil {
		return nil, fmt.Errorf("ledger: %w", err)
	}
	if err := j.f.Truncate(int64(len(src))); err != nil { // drop a torn tail
		j.f.Close()
		return nil, fmt.Errorf("ledger: %w", err)
	}
	return j, nil
}

func (j *journal) State(key string) (gate.LedgerState, error) { return j.keys[key], nil }
func (j *journal) Intent(key string) error                    { return j.write("intent", key, gate.Intent) }
func (j *journal) Done(key string) error                      { return j.write("done", key, gate.Done) }
func (j *journal) Clear(key string) error                     { return j.write("clear", key, gate.Absent) }

func (j *journal) write(op, key string, s gate.LedgerState) error {
	if strings.ContainsAny(key, " \n") {
		return fmt.Errorf("ledger: key %q has a space or a newline", key)
	}
	if j.f == nil {
		f, err := os.OpenFile(j.path, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o600)
		if err != nil {
			return fmt.Errorf("ledger: %w", err)
		}
		j.f = f
	}
	if _, err := j.f.WriteString(op + " " + key + "\n"); err != nil {
		return fmt.Errorf("ledger: %w", err)
	}
	if j.fsync {
		if err := j.f.Sync(); err != nil {
			return fmt.Errorf("ledger: %w", err)
		}
	}
	if s == gate.Absent {
		delete(j.keys, key)
	} else {
		j.keys[key] = s
	}
	return nil
}

func (j *journal) Close() error {
	if j.f == nil {
		return nil
	}
	return j.f.Close()
}
