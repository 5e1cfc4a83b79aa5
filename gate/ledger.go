package gate

import (
	"strconv"
	"sync"
)

// LedgerState is what the durable ledger knows about an idempotency key
// (SPEC section 7).
type LedgerState uint8

const (
	Absent LedgerState = iota // never released, or cleared by ack fail
	Intent                    // released; the outcome is not known yet
	Done                      // the executor acknowledged the effect
)

func (s LedgerState) String() string {
	switch s {
	case Absent:
		return "absent"
	case Intent:
		return "intent"
	case Done:
		return "done"
	}
	return "ledger-state(" + strconv.Itoa(int(s)) + ")"
}

// Ledger is the durable record of released keys; it outlives a gate (a
// restart is a new gate over the same ledger). An error from any method
// makes the gate fail closed.
type Ledger interface {
	State(key string) (LedgerState, error)
	Intent(key string) error // at release
	Done(key string) error   // ack ok
	Clear(key string) error  // ack fail
}

// MemoryLedger is an in-process Ledger for tests and single-process use. It
// is safe for concurrent use so that one ledger can serve several gates.
type MemoryLedger struct {
	mu   sync.Mutex
	keys map[string]LedgerState
}

// NewMemoryLedger returns an empty ledger.
func NewMemoryLedger() *MemoryLedger { return &MemoryLedger{keys: map[string]LedgerState{}} }

func (l *MemoryLedger) State(key string) (LedgerState, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.keys[key], nil
}

func (l *MemoryLedger) Intent(key string) error { return l.set(key, Intent) }
func (l *MemoryLedger) Done(key string) error   { return l.set(key, Done) }

func (l *MemoryLedger) Clear(key string) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	delete(l.keys, key)
	return nil
}

func (l *MemoryLedger) set(key string, s LedgerState) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.keys[key] = s
	return nil
}

// Len returns how many keys the ledger holds (intent or done).
func (l *MemoryLedger) Len() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return len(l.keys)
}
