package boltledger

// SetCommitHooks installs the crash test's hooks, called just before each
// write transaction of l starts and just after it committed.
func SetCommitHooks(l *Ledger, before, after func(op, key string)) {
	l.beforeCommit, l.afterCommit = before, after
}
