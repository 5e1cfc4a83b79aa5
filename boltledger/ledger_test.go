package boltledger_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	bolt "go.etcd.io/bbolt"

	"github.com/sealgate/sealgate"
	"github.com/sealgate/sealgate/boltledger"
	"github.com/sealgate/sealgate/gate"
)

func TestStatesSurviveReopen(t *testing.T) {
	l, path := openTemp(t, nil)
	steps := []struct {
		op   func(string) error
		key  string
		want gate.LedgerState
	}{
		{l.Intent, "a", gate.Intent},
		{l.Intent, "b", gate.Intent},
		{l.Done, "b", gate.Done},
		{l.Intent, "c", gate.Intent},
		{l.Clear, "c", gate.Absent},
	}
	for _, s := range steps {
		if err := s.op(s.key); err != nil {
			t.Fatal(err)
		}
	}
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	again, err := boltledger.Open(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer again.Close()
	final := map[string]gate.LedgerState{}
	for _, s := range steps {
		final[s.key] = s.want
	}
	for key, want := range final {
		if st, err := again.State(key); err != nil || st != want {
			t.Errorf("after reopen, %s is %v (err %v), want %v", key, st, err, want)
		}
	}
	if err := again.Check(); err != nil {
		t.Error(err)
	}
}

func TestNoSyncIsOffUnlessAsked(t *testing.T) {
	l, _ := openTemp(t, nil)
	if l.DB().NoSync {
		t.Error("Open with no options left bbolt's NoSync on: commits would not be fsynced")
	}
	fast, _ := openTemp(t, &boltledger.Options{NoSync: true})
	if !fast.DB().NoSync {
		t.Error("Options.NoSync did not reach bbolt")
	}
}

// TestWritesCommittedBeforeFeedReturns: the intent of a release is in the
// file before Feed hands the release over, and an ack's write before Feed
// returns: a second handle on the file's bytes, taken right after, finds
// it. The hook shows the write ran inside that very Feed call.
func TestWritesCommittedBeforeFeedReturns(t *testing.T) {
	l, path := openTemp(t, nil)
	var writes []string
	inFeed := false
	boltledger.SetCommitHooks(l, nil, func(op, key string) {
		if !inFeed {
			t.Errorf("%s of %s committed outside Feed", op, key)
		}
		writes = append(writes, op+" "+key)
	})
	g, err := gate.New(testConfig(), l)
	if err != nil {
		t.Fatal(err)
	}
	feed := func(ev sealgate.Event) []sealgate.Decision {
		inFeed = true
		defer func() { inFeed = false }()
		ds, err := g.Feed(ev)
		if err != nil {
			t.Fatal(err)
		}
		return ds
	}
	var released []string
	for _, ev := range (turn{attempt: "r1", turn: "t1", args: []string{`{"n":1}`, `{"n":2}`}, status: sealgate.Complete}).events() {
		for _, d := range only(sealgate.Release, feed(ev)) {
			released = append(released, d.Key)
			if st := stateOnDisk(t, path, d.Key); st != gate.Intent {
				t.Errorf("right after the release of %s the file says %v, want intent", d.Key, st)
			}
		}
	}
	if len(released) != 2 {
		t.Fatalf("released %v, want two keys", released)
	}
	want := []string{"intent " + released[0], "intent " + released[1]}
	if fmt.Sprint(writes) != fmt.Sprint(want) {
		t.Fatalf("writes %v, want %v", writes, want)
	}
	if ds := feed(sealgate.AckEvent(released[0], true)); len(ds) != 0 {
		t.Fatalf("ack ok answered %v", ds)
	}
	if st := stateOnDisk(t, path, released[0]); st != gate.Done {
		t.Errorf("right after ack ok the file says %v, want done", st)
	}
	if ds := feed(sealgate.AckEvent(released[1], false)); len(ds) != 0 {
		t.Fatalf("ack fail answered %v", ds)
	}
	if st := stateOnDisk(t, path, released[1]); st != gate.Absent {
		t.Errorf("right after ack fail the file says %v, want absent", st)
	}
	if got := writes[2:]; fmt.Sprint(got) != fmt.Sprint([]string{"done " + released[0], "clear " + released[1]}) {
		t.Errorf("ack writes %v", got)
	}
}

func TestSecondOpenerFailsAtOnce(t *testing.T) {
	_, path := openTemp(t, nil)
	// In this process: flock locks belong to the open file, so a second
	// Open is refused too.
	if l, err := boltledger.Open(path, nil); !errors.Is(err, boltledger.ErrLocked) {
		if l != nil {
			l.Close()
		}
		t.Fatalf("second Open in this process: %v, want ErrLocked", err)
	}
	cmd := childCommand("open", "SEALGATE_LEDGER_PATH="+path)
	out, err := cmd.CombinedOutput()
	if err == nil {
		t.Fatalf("a second process opened a locked ledger:\n%s", out)
	}
	if !strings.Contains(string(out), "locked by another process") || !strings.Contains(string(out), path) {
		t.Fatalf("the second process failed without saying the file is locked:\n%s", out)
	}
}

// childOpen tries to open the ledger a parent holds.
func childOpen() error {
	l, err := boltledger.Open(os.Getenv("SEALGATE_LEDGER_PATH"), nil)
	if err != nil {
		return err
	}
	return l.Close()
}

func TestOpenRefusesWhatIsNotALedger(t *testing.T) {
	dir := t.TempDir()
	junk := filepath.Join(dir, "junk.db")
	if err := os.WriteFile(junk, []byte(strings.Repeat("not a bbolt file ", 1000)), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, path := range []string{junk, filepath.Join(dir, "no-such-folder", "l.db")} {
		if l, err := boltledger.Open(path, nil); err == nil || !strings.Contains(err.Error(), path) {
			if l != nil {
				l.Close()
			}
			t.Errorf("Open(%s): %v, want an error naming the file", path, err)
		}
	}
}

// A file whose meta pages are sound but whose other pages are lost (as
// after a power cut under NoSync) makes bbolt panic; Open returns
// ErrCorrupt naming the file instead.
func TestOpenOfDamagedFileIsErrCorrupt(t *testing.T) {
	path := filepath.Join(t.TempDir(), "ledger.db")
	l, err := boltledger.Open(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := l.Intent("k"); err != nil {
		t.Fatal(err)
	}
	l.Close()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	page := os.Getpagesize()
	clear(b[2*page:]) // keep the two meta pages, lose the freelist and the tree
	if err := os.WriteFile(path, b, 0o600); err != nil {
		t.Fatal(err)
	}
	l, err = boltledger.Open(path, nil)
	if !errors.Is(err, boltledger.ErrCorrupt) || !strings.Contains(err.Error(), path) {
		if l != nil {
			l.Close()
		}
		t.Fatalf("Open of a damaged file: %v, want ErrCorrupt naming the file", err)
	}
	t.Log(err)
}

func TestClosedLedgerFailsTheGateClosed(t *testing.T) {
	l, _ := openTemp(t, nil)
	g, err := gate.New(testConfig(), l)
	if err != nil {
		t.Fatal(err)
	}
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	ds, err := feedAll(g, turn{attempt: "r1", turn: "t1", args: []string{`{"n":1}`}, status: sealgate.Complete}.events())
	if err == nil || !strings.Contains(err.Error(), "gate closed") || !strings.Contains(err.Error(), "database not open") {
		t.Fatalf("feeding over a closed ledger: %v, want gate closed, database not open", err)
	}
	if r := only(sealgate.Release, ds); len(r) != 0 {
		t.Fatalf("released over a closed ledger: %v", r)
	}
}

func TestBadStoredValueIsAnError(t *testing.T) {
	l, _ := openTemp(t, nil)
	err := l.DB().Update(func(tx *bolt.Tx) error {
		return tx.Bucket([]byte(boltledger.DefaultBucket)).Put([]byte("k"), []byte{7})
	})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := l.State("k"); err == nil || !strings.Contains(err.Error(), `key "k"`) {
		t.Fatalf("State of a bad value: %v, want an error naming the key", err)
	}
	if err := l.Each(func(string, gate.LedgerState, time.Time) error { return nil }); err == nil {
		t.Fatal("Each passed over a bad value")
	}
}

func TestBucketsAreSeparate(t *testing.T) {
	path := filepath.Join(t.TempDir(), "shared.db")
	db, err := bolt.Open(path, 0o600, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	a, err := boltledger.New(db, &boltledger.Options{Bucket: "a"})
	if err != nil {
		t.Fatal(err)
	}
	b, err := boltledger.New(db, &boltledger.Options{Bucket: "b"})
	if err != nil {
		t.Fatal(err)
	}
	if err := a.Intent("k"); err != nil {
		t.Fatal(err)
	}
	if st, _ := b.State("k"); st != gate.Absent {
		t.Fatalf("bucket b sees a's key as %v", st)
	}
	if err := b.Close(); err != nil {
		t.Fatal(err)
	}
	if st, err := a.State("k"); err != nil || st != gate.Intent {
		t.Fatalf("closing a ledger New made closed the caller's database: %v %v", st, err)
	}
}

// efbigReport is what the EFBIG child saw.
type efbigReport struct {
	Limit          int64
	Released       []string // keys released before the failure
	Err            string   // the gate's error
	AfterErr       string   // what the next Feed said
	AfterDecisions int      // decisions after the failure (want none)
}

// TestWriteFailureFailsClosed runs the gate in a child process whose file
// size limit (RLIMIT_FSIZE) stops the ledger from growing: the write gets
// EFBIG from the kernel, and the gate must release nothing more and say
// why.
func TestWriteFailureFailsClosed(t *testing.T) {
	path := filepath.Join(t.TempDir(), "ledger.db")
	cmd := childCommand("efbig", "SEALGATE_LEDGER_PATH="+path)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("child: %v\n%s", err, stderr.String())
	}
	var r efbigReport
	if err := json.Unmarshal(out, &r); err != nil {
		t.Fatalf("child report %q: %v", out, err)
	}
	t.Logf("limit %d bytes, %d releases, then: %s", r.Limit, len(r.Released), r.Err)
	for _, want := range []string{"gate closed", "file too large", path} {
		if !strings.Contains(r.Err, want) {
			t.Errorf("the gate's error %q does not say %q", r.Err, want)
		}
	}
	if r.AfterErr != r.Err || r.AfterDecisions != 0 {
		t.Errorf("after the failure Feed said %q with %d decisions, want the same error and nothing", r.AfterErr, r.AfterDecisions)
	}
	if len(r.Released) == 0 {
		t.Error("the child never released: the limit was hit before any write, so nothing shows a working gate closing")
	}
	l, err := boltledger.Open(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	if err := l.Check(); err != nil {
		t.Fatal(err)
	}
	for _, k := range r.Released {
		if st, _ := l.State(k); st == gate.Absent {
			t.Errorf("released %s is not in the ledger", k)
		}
	}
}

// childEFBIG releases a few calls, caps the file at its size, and goes on
// until the ledger cannot grow.
func childEFBIG() error {
	signal.Ignore(syscall.SIGXFSZ) // get EFBIG from write, not death
	path := os.Getenv("SEALGATE_LEDGER_PATH")
	l, err := boltledger.Open(path, nil)
	if err != nil {
		return err
	}
	defer l.Close()
	g, err := gate.New(testConfig(), l)
	if err != nil {
		return err
	}
	var r efbigReport
	for i := 0; i < 20000; i++ {
		if i == 3 {
			fi, err := os.Stat(path)
			if err != nil {
				return err
			}
			r.Limit = fi.Size()
			lim := syscall.Rlimit{Cur: uint64(r.Limit), Max: uint64(r.Limit)}
			if err := syscall.Setrlimit(syscall.RLIMIT_FSIZE, &lim); err != nil {
				return err
			}
		}
		id := fmt.Sprint(i)
		ds, err := feedAll(g, turn{attempt: "r" + id, turn: "t" + id, args: []string{`{"n":` + id + `}`}, status: sealgate.Complete}.events())
		for _, d := range only(sealgate.Release, ds) {
			r.Released = append(r.Released, d.Key)
			if err == nil {
				_, err = g.Ack(d.Key, true)
			}
		}
		if err != nil {
			r.Err = err.Error()
			ds, err := feedAll(g, turn{attempt: "late", turn: "late", args: []string{`{"n":-1}`}, status: sealgate.Complete}.events())
			r.AfterDecisions = len(ds)
			if err != nil {
				r.AfterErr = err.Error()
			}
			return json.NewEncoder(os.Stdout).Encode(r)
		}
	}
	return errors.New("20000 turns and the file limit was never hit")
}
