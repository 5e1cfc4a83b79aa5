package boltledger

// SetBeforeCommit installs the crash test's hook, called just before each
// write transaction of l starts.
func SetBeforeCommit(l *Ledger, f func(op, key string)) { l.beforeCommit = f }
