package boltledger

// SetCommitHooks installs the crash test's hooks, called just before each
// write transaction of l starts and just after it committed.
func SetCommitHooks(l *Ledger, before, after func(op, key string)) {
	l.beforeCommit, l.afterCommit = before, after
}

// SetPruneBatch sets how many keys one Prune transaction drops, and
// returns a function that restores it.
func SetPruneBatch(n int) func() {
	old := pruneBatch
	pruneBatch = n
	return func() { pruneBatch = old }
}

// SetSkipDirSync makes Open leave out the fsync of the ledger file's
// directory (the power-cut test's planted weakness) and returns a function
// that restores it.
func SetSkipDirSync(skip bool) func() {
	old := skipDirSync
	skipDirSync = skip
	return func() { skipDirSync = old }
}
