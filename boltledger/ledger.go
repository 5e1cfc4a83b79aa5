// Package boltledger is a durable gate.Ledger in one file, over
// go.etcd.io/bbolt: the record of released idempotency keys that outlives
// the process, so that "at most once" (SPEC section 7, I7) holds across a
// crash and a restart, not only inside one process.
//
// Every write is its own bbolt transaction, committed and fsynced before
// the method returns (bbolt's NoSync is off unless Options.NoSync asks
// otherwise). The gate writes intent before it returns a release, and done
// or clear before Feed returns an ack; so a release the executor saw is on
// disk, and so is every ack the gate took. Open also fsyncs the file's
// directory, so that a new ledger file's name survives a power cut.
//
// One process at a time: Open takes bbolt's exclusive file lock and a
// second opener gets ErrLocked at once, not a wait and not a shared file.
// A failed write is returned to the gate, which fails closed (nothing more
// is released) with the error wrapped: see docs/ledger.md.
package boltledger

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	bolt "go.etcd.io/bbolt"
	bolterrors "go.etcd.io/bbolt/errors"

	"github.com/sealgate/sealgate/gate"
)

// DefaultBucket is the bucket the keys live in unless Options.Bucket
// names another.
const DefaultBucket = "sealgate-ledger"

// ErrLocked is returned by Open when another process (or another Open in
// this one) holds the file.
var ErrLocked = errors.New("ledger file is locked by another process")

// Options tune Open and New; the zero value (or nil) is the durable
// default.
type Options struct {
	// Bucket holds the keys; several ledgers (one per gate, say) may share
	// one file under different buckets. Default DefaultBucket.
	Bucket string
	// Now stamps each write, for Prune. Default time.Now.
	Now func() time.Time

	// The rest are for Open only; New takes the database as it is.

	// LockWait is how long Open waits for another holder of the file to
	// let go. Zero: fail at once with ErrLocked.
	LockWait time.Duration
	// NoSync skips the fsync of every commit. A crash of the machine (not
	// only the process) may then lose writes the gate relied on: for tests
	// of decisions, never for production.
	NoSync bool
	// Mode is the file's permission bits when Open creates it. Default 0o600.
	Mode os.FileMode
}

// Ledger is a gate.Ledger stored in a bbolt file. Its methods are safe for
// concurrent use (bbolt serializes writers), but the gate reads a key's
// state and writes its intent in two calls: two gates that share one
// ledger and seal the same key at the same moment may both release it.
// Give gates that run at once their own buckets (Options.Bucket).
type Ledger struct {
	db     *bolt.DB
	owned  bool // Open made db, so Close closes it
	bucket []byte
	now    func() time.Time
	// beforeCommit and afterCommit, when set (by the crash test), are
	// called just before each write transaction starts and just after it
	// committed.
	beforeCommit, afterCommit func(op, key string)
}

var _ gate.Ledger = (*Ledger)(nil)

// Open opens (creating if needed) the ledger file at path. It fails at once
// with an error wrapping ErrLocked when another process holds the file,
// unless Options.LockWait says to wait.
func Open(path string, o *Options) (*Ledger, error) {
	if o == nil {
		o = &Options{}
	}
	mode := o.Mode
	if mode == 0 {
		mode = 0o600
	}
	// bbolt treats a zero timeout as "wait forever"; one nanosecond is
	// "try once", since its retry loop gives up once the timeout, less its
	// 50 ms retry step, has passed.
	wait := o.LockWait
	if wait <= 0 {
		wait = time.Nanosecond
	}
	db, err := openBolt(path, mode, &bolt.Options{Timeout: wait, NoSync: o.NoSync})
	if errors.Is(err, bolterrors.ErrTimeout) {
		if o.LockWait > 0 {
			return nil, fmt.Errorf("boltledger: open %s: %w (waited %v)", path, ErrLocked, o.LockWait)
		}
		return nil, fmt.Errorf("boltledger: open %s: %w", path, ErrLocked)
	}
	if err != nil {
		return nil, fmt.Errorf("boltledger: open %s: %w", path, err)
	}
	// bbolt fsyncs the file it creates but not its directory: without
	// this, a power cut can lose the new file's name, and with it every
	// write the gate relied on. Done at every Open, since a file created
	// by an earlier Open that crashed before this point is not durable
	// either.
	if !skipDirSync {
		if err := syncDir(filepath.Dir(path)); err != nil {
			db.Close()
			return nil, fmt.Errorf("boltledger: open %s: make its directory entry durable: %w", path, err)
		}
	}
	l, err := New(db, o)
	if err != nil {
		db.Close()
		return nil, err
	}
	l.owned = true
	return l, nil
}

// skipDirSync, set only by the power-cut test's planted weakness, leaves
// out Open's fsync of the file's directory.
var skipDirSync bool

// syncDir fsyncs a directory, which makes the entries in it durable.
func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	err = d.Sync()
	if cerr := d.Close(); err == nil {
		err = cerr
	}
	return err
}

// ErrCorrupt is wrapped by the error of Open, or of any read or write,
// when bbolt cannot read the file's structure (it panics on some damaged
// files, such as one that lost unsynced writes to a power cut with NoSync
// on).
var ErrCorrupt = errors.New("ledger file is corrupt")

// openBolt is bolt.Open with its panics on a damaged file turned into an
// error wrapping ErrCorrupt. bbolt does not close the file when it panics,
// so the process keeps its descriptor and lock until it exits.
func openBolt(path string, mode os.FileMode, o *bolt.Options) (db *bolt.DB, err error) {
	defer func() {
		if r := recover(); r != nil {
			db, err = nil, fmt.Errorf("%w: bbolt: %v", ErrCorrupt, r)
		}
	}()
	return bolt.Open(path, mode, o)
}

// update and view are bbolt's transactions with its panics on a damaged
// page (a file that lost unsynced writes, say) turned into an error
// wrapping ErrCorrupt: bbolt rolls the transaction back as the panic
// passes, and the gate over the ledger fails closed on the error.
func update(db *bolt.DB, fn func(*bolt.Tx) error) (err error) {
	defer corrupt(db, &err)
	return db.Update(fn)
}

func view(db *bolt.DB, fn func(*bolt.Tx) error) (err error) {
	defer corrupt(db, &err)
	return db.View(fn)
}

func corrupt(db *bolt.DB, err *error) {
	if r := recover(); r != nil {
		*err = fmt.Errorf("%w: %s: bbolt: %v", ErrCorrupt, db.Path(), r)
	}
}

// New makes a ledger over a bbolt database the caller opened and will
// close, creating the bucket if it is missing. Its durability is the
// database's: keep db.NoSync false.
func New(db *bolt.DB, o *Options) (*Ledger, error) {
	if o == nil {
		o = &Options{}
	}
	bucket := o.Bucket
	if bucket == "" {
		bucket = DefaultBucket
	}
	now := o.Now
	if now == nil {
		now = time.Now
	}
	l := &Ledger{db: db, bucket: []byte(bucket), now: now}
	if db.IsReadOnly() {
		return l, nil
	}
	err := update(db, func(tx *bolt.Tx) error {
		_, err := tx.CreateBucketIfNotExists(l.bucket)
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("boltledger: %s: create bucket %q: %w", db.Path(), bucket, err)
	}
	return l, nil
}

// DB is the underlying database, for bbolt's own tools (stats, backup).
func (l *Ledger) DB() *bolt.DB { return l.db }

// Close closes the file if Open opened it. A gate over a closed ledger
// fails closed at its next write or read.
func (l *Ledger) Close() error {
	if !l.owned {
		return nil
	}
	if err := l.db.Close(); err != nil {
		return fmt.Errorf("boltledger: close %s: %w", l.db.Path(), err)
	}
	return nil
}

// entry is a stored value: the state, then when it was written.
const entrySize = 1 + 8

func encode(st gate.LedgerState, at time.Time) []byte {
	var b [entrySize]byte
	b[0] = byte(st)
	binary.BigEndian.PutUint64(b[1:], uint64(at.UnixNano()))
	return b[:]
}

func decode(key, v []byte) (gate.LedgerState, time.Time, error) {
	if len(v) != entrySize || (gate.LedgerState(v[0]) != gate.Intent && gate.LedgerState(v[0]) != gate.Done) {
		return gate.Absent, time.Time{}, fmt.Errorf("boltledger: key %q: stored value %x is not a ledger entry (want state 1 or 2 and an 8-byte time)", key, v)
	}
	return gate.LedgerState(v[0]), time.Unix(0, int64(binary.BigEndian.Uint64(v[1:]))), nil
}

// State reads a key's state from the last committed transaction.
func (l *Ledger) State(key string) (gate.LedgerState, error) {
	st := gate.Absent
	err := view(l.db, func(tx *bolt.Tx) error {
		b, err := l.bucketOf(tx)
		if err != nil {
			return err
		}
		v := b.Get([]byte(key))
		if v == nil {
			return nil
		}
		st, _, err = decode([]byte(key), v)
		return err
	})
	if err != nil {
		return gate.Absent, l.wrap("read", key, err)
	}
	return st, nil
}

// Intent records a release; durable when it returns.
func (l *Ledger) Intent(key string) error { return l.put("intent", key, gate.Intent) }

// Done records an ack ok; durable when it returns.
func (l *Ledger) Done(key string) error { return l.put("done", key, gate.Done) }

// Clear forgets a key after an ack fail; durable when it returns.
func (l *Ledger) Clear(key string) error {
	return l.update("clear", key, func(b *bolt.Bucket) error { return b.Delete([]byte(key)) })
}

func (l *Ledger) put(op, key string, st gate.LedgerState) error {
	return l.update(op, key, func(b *bolt.Bucket) error { return b.Put([]byte(key), encode(st, l.now())) })
}

// update runs one write transaction; bbolt commits and (NoSync off)
// fsyncs it before Update returns.
func (l *Ledger) update(op, key string, f func(*bolt.Bucket) error) error {
	if l.beforeCommit != nil {
		l.beforeCommit(op, key)
	}
	err := update(l.db, func(tx *bolt.Tx) error {
		b, err := l.bucketOf(tx)
		if err != nil {
			return err
		}
		return f(b)
	})
	if err == nil && l.afterCommit != nil {
		l.afterCommit(op, key)
	}
	return l.wrap("write "+op+" of", key, err)
}

func (l *Ledger) bucketOf(tx *bolt.Tx) (*bolt.Bucket, error) {
	b := tx.Bucket(l.bucket)
	if b == nil {
		return nil, fmt.Errorf("bucket %q is missing", l.bucket)
	}
	return b, nil
}

func (l *Ledger) wrap(what, key string, err error) error {
	if err == nil {
		return nil
	}
	return fmt.Errorf("boltledger: %s: %s key %s: %w", l.db.Path(), what, key, err)
}

// Each calls f for every key in key order with its state and the time of
// its last write, in one read transaction, stopping at f's first error.
// An operator uses it to list the keys left in intent after a crash (the
// effects to reconcile) or to audit the ledger.
func (l *Ledger) Each(f func(key string, st gate.LedgerState, at time.Time) error) error {
	err := view(l.db, func(tx *bolt.Tx) error {
		b, err := l.bucketOf(tx)
		if err != nil {
			return err
		}
		return b.ForEach(func(k, v []byte) error {
			st, at, err := decode(k, v)
			if err != nil {
				return err
			}
			return f(string(k), st, at)
		})
	})
	if err != nil {
		return fmt.Errorf("boltledger: %s: each: %w", l.db.Path(), err)
	}
	return nil
}

// pruneBatch bounds one Prune transaction, so that pruning a large ledger
// neither holds the writer lock nor grows the dirty page set for long.
var pruneBatch = 10000

// Prune drops done keys last written before the given time and returns how
// many it dropped. Intent keys are kept whatever their age: their outcome is
// unknown and only reconciliation may clear them.
//
// It is maintenance outside the gate's decisions and it has a cost: a
// replay of a turn older than the horizon (a retry, regeneration or
// duplicate dispatch of a pruned key) is no longer refused
// duplicate-effect, and runs again. Choose the horizon longer than any
// replay can arrive. The file does not shrink (bbolt reuses freed pages);
// its size stops growing once the keys written per horizon are steady.
func (l *Ledger) Prune(before time.Time) (int, error) {
	cut := before.UnixNano()
	total := 0
	var from []byte // the next batch starts here (nil: the first key)
	for {
		n := 0
		err := update(l.db, func(tx *bolt.Tx) error {
			b, err := l.bucketOf(tx)
			if err != nil {
				return err
			}
			// Collect, then delete: deleting under a cursor skips keys.
			var drop [][]byte
			c := b.Cursor()
			k, v := c.First()
			if from != nil {
				k, v = c.Seek(from)
			}
			for ; k != nil && len(drop) < pruneBatch; k, v = c.Next() {
				st, at, err := decode(k, v)
				if err != nil {
					return err
				}
				if st == gate.Done && at.UnixNano() < cut {
					drop = append(drop, bytes.Clone(k))
				}
			}
			for _, k := range drop {
				if err := b.Delete(k); err != nil {
					return err
				}
			}
			if n = len(drop); n > 0 {
				from = drop[n-1] // deleted, so Seek lands on the key after it
			}
			return nil
		})
		if err != nil {
			return total, fmt.Errorf("boltledger: %s: prune before %s: %w", l.db.Path(), before.Format(time.RFC3339), err)
		}
		total += n
		if n < pruneBatch {
			return total, nil
		}
	}
}

// Check runs bbolt's consistency check of the whole file (every page
// reachable once, no page both used and free, keys in order) and returns
// what it finds, joined, or nil.
func (l *Ledger) Check() error {
	var errs []error
	err := view(l.db, func(tx *bolt.Tx) error {
		for e := range tx.Check() {
			errs = append(errs, e)
		}
		return nil
	})
	if err != nil {
		errs = append(errs, err)
	}
	if len(errs) > 0 {
		return fmt.Errorf("boltledger: %s: check: %w", l.db.Path(), errors.Join(errs...))
	}
	return nil
}
