package lazyfs_test

import (
	"bytes"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"

	"golang.org/x/sys/unix"

	"github.com/sealgate/sealgate/internal/lazyfs"
)

func write(t *testing.T, path string, b []byte, off int64, sync bool) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.WriteAt(b, off); err != nil {
		t.Fatal(err)
	}
	if sync {
		if err := f.Sync(); err != nil {
			t.Fatal(err)
		}
	}
}

func syncDir(t *testing.T, dir string) {
	t.Helper()
	d, err := os.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	if err := d.Sync(); err != nil {
		t.Fatal(err)
	}
}

func read(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func cut(t *testing.T, f *lazyfs.FS) lazyfs.CutReport {
	t.Helper()
	rep, err := f.Cut()
	if err != nil {
		t.Fatal(err)
	}
	return rep
}

// durableFile makes a file whose entry and content are durable.
func durableFile(t *testing.T, f *lazyfs.FS, name string, b []byte) string {
	t.Helper()
	p := filepath.Join(f.Dir(), name)
	write(t, p, b, 0, true)
	syncDir(t, f.Dir())
	return p
}

func TestUnsyncedLostOnCut(t *testing.T) {
	f, backing := lazyfs.ForTest(t, nil)
	p := durableFile(t, f, "a", []byte("durable\n"))
	write(t, p, []byte("cached, never synced\n"), 8, false)
	if got := string(read(t, p)); got != "durable\ncached, never synced\n" {
		t.Fatalf("before the cut a read sees %q, want the cached write", got)
	}
	if got := string(read(t, filepath.Join(backing, "a"))); got != "durable\n" {
		t.Fatalf("the backing file holds %q before any fsync of the write", got)
	}
	rep := cut(t, f)
	if got := string(read(t, p)); got != "durable\n" {
		t.Fatalf("after the cut the file is %q, want only what was fsynced", got)
	}
	if rep.Unsynced != 1 {
		t.Errorf("the cut reports %d files with unsynced writes, want 1", rep.Unsynced)
	}
	// A truncate is a write too.
	fh, err := os.OpenFile(p, os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	if err := fh.Truncate(3); err != nil {
		t.Fatal(err)
	}
	fh.Close()
	cut(t, f)
	if got := string(read(t, p)); got != "durable\n" {
		t.Fatalf("an unsynced truncate survived the cut: %q", got)
	}
}

func TestSyncedKept(t *testing.T) {
	f, _ := lazyfs.ForTest(t, nil)
	p := durableFile(t, f, "a", []byte("first\n"))
	write(t, p, []byte("second\n"), 6, true)
	fh, err := os.OpenFile(p, os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := fh.WriteAt([]byte("X"), 0); err != nil {
		t.Fatal(err)
	}
	// fdatasync counts as fsync.
	if err := syscall.Fdatasync(int(fh.Fd())); err != nil {
		t.Fatal(err)
	}
	fh.Close()
	rep := cut(t, f)
	if got := string(read(t, p)); got != "Xirst\nsecond\n" {
		t.Fatalf("after the cut the file is %q, want every fsynced write", got)
	}
	if rep.Unsynced != 0 {
		t.Errorf("the cut reports %d files with unsynced writes, want 0", rep.Unsynced)
	}
}

func TestDirEntryLostWithoutDirFsync(t *testing.T) {
	f, _ := lazyfs.ForTest(t, nil)
	p := filepath.Join(f.Dir(), "new")
	write(t, p, []byte("synced data\n"), 0, true)
	cut(t, f)
	if _, err := os.Stat(p); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("a file fsynced but its directory not: after the cut stat says %v, want it gone", err)
	}
	write(t, p, []byte("synced data\n"), 0, true)
	syncDir(t, f.Dir())
	cut(t, f)
	if got := string(read(t, p)); got != "synced data\n" {
		t.Fatalf("after an fsync of the file and of its directory the cut left %q", got)
	}

	// A rename is a directory change: lost without the directory's fsync.
	q := filepath.Join(f.Dir(), "renamed")
	if err := os.Rename(p, q); err != nil {
		t.Fatal(err)
	}
	cut(t, f)
	if _, err := os.Stat(q); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("an unsynced rename survived the cut (%v)", err)
	}
	if got := string(read(t, p)); got != "synced data\n" {
		t.Fatalf("after an unsynced rename and a cut the old name holds %q", got)
	}
	if err := os.Rename(p, q); err != nil {
		t.Fatal(err)
	}
	syncDir(t, f.Dir())
	cut(t, f)
	if _, err := os.Stat(p); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("the old name is still there after a synced rename (%v)", err)
	}
	if got := string(read(t, q)); got != "synced data\n" {
		t.Fatalf("after a synced rename the new name holds %q", got)
	}

	// So is an unlink, and a new directory with its entries.
	if err := os.Remove(q); err != nil {
		t.Fatal(err)
	}
	sub := filepath.Join(f.Dir(), "sub")
	if err := os.Mkdir(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	write(t, filepath.Join(sub, "x"), []byte("x"), 0, true)
	syncDir(t, sub)
	cut(t, f)
	if _, err := os.Stat(q); err != nil {
		t.Fatalf("an unsynced unlink survived the cut: %v", err)
	}
	if _, err := os.Stat(sub); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("a directory whose parent was not fsynced survived the cut (%v)", err)
	}
	if err := os.Mkdir(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	write(t, filepath.Join(sub, "x"), []byte("x"), 0, true)
	syncDir(t, sub)
	syncDir(t, f.Dir())
	cut(t, f)
	if got := string(read(t, filepath.Join(sub, "x"))); got != "x" {
		t.Fatalf("a synced file in a synced new directory holds %q after the cut", got)
	}
}

func TestTornWrite(t *testing.T) {
	f, _ := lazyfs.ForTest(t, &lazyfs.Options{Torn: true, Rand: rand.New(rand.NewPCG(1, 2))})
	old := bytes.Repeat([]byte{'a'}, 8192)
	p := durableFile(t, f, "a", old)
	kept := map[int]bool{}
	for i := 0; i < 60 && len(kept) < 3; i++ {
		// An earlier unsynced write is dropped whole; the last one is torn.
		write(t, p, bytes.Repeat([]byte{'c'}, 100), 6000, false)
		// Within one page: the kernel sends a write that crosses a page
		// boundary as two writes, and only the second would be the last.
		const off, n = 4096 + 100, 3000
		write(t, p, bytes.Repeat([]byte{'b'}, n), off, false)
		rep := cut(t, f)
		if len(rep.Torn) != 1 {
			t.Fatalf("cut %d: %d torn writes reported, want 1", i, len(rep.Torn))
		}
		tw := rep.Torn[0]
		if tw.Off != off || tw.Len != n || tw.Sectors != 7 {
			t.Fatalf("cut %d: torn write %+v, want off %d len %d over 7 sectors", i, tw, off, n)
		}
		if end := tw.Off + tw.Kept; tw.Kept != 0 && end != off+n && end%lazyfs.SectorSize != 0 {
			t.Fatalf("cut %d: kept %d bytes, ending at %d: not a whole sector", i, tw.Kept, end)
		}
		want := slices.Clone(old)
		copy(want[off:off+tw.Kept], bytes.Repeat([]byte{'b'}, int(tw.Kept)))
		if got := read(t, p); !bytes.Equal(got, want) {
			t.Fatalf("cut %d: the file is not the synced content plus %d bytes of the last write", i, tw.Kept)
		}
		switch {
		case tw.Kept == 0:
			kept[0] = true
		case tw.Kept == n:
			kept[2] = true
		default:
			kept[1] = true
		}
		write(t, p, old, 0, true) // back to the old content, durable
	}
	if !kept[1] {
		t.Fatalf("no cut tore the write in the middle (kept: none %v, part %v, all %v)", kept[0], kept[1], kept[2])
	}
}

// ops runs the same file operations under dir and returns what they saw.
func ops(t *testing.T, dir string) string {
	var out strings.Builder
	say := func(format string, a ...any) { fmt.Fprintf(&out, format+"\n", a...) }
	p := filepath.Join(dir, "f")
	fh, err := os.OpenFile(p, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o640)
	if err != nil {
		t.Fatal(err)
	}
	fh.Write([]byte("hello, world\n"))
	fh.WriteAt([]byte("HELLO"), 0)
	fh.WriteAt([]byte("past the end"), 20) // leaves a hole of zeros
	st, _ := fh.Stat()
	say("size %d mode %v", st.Size(), st.Mode())
	b := make([]byte, 40)
	n, err := fh.ReadAt(b, 3)
	say("read %d %q %v", n, b[:n], err)
	fh.Truncate(8)
	st, _ = fh.Stat()
	say("truncated size %d", st.Size())
	fh.Truncate(12)
	say("grown %q", read(t, p))
	fh.Close()
	_, err = os.OpenFile(p, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o640)
	say("exclusive create of an existing file: %v", errors.Is(err, os.ErrExist))
	ap, err := os.OpenFile(p, os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		t.Fatal(err)
	}
	ap.WriteAt([]byte("x"), 0) // refused by Go for O_APPEND
	ap.Write([]byte("appended\n"))
	ap.Close()
	say("after append %q", read(t, p))
	tr, _ := os.OpenFile(p, os.O_RDWR|os.O_TRUNC, 0)
	tr.Close()
	say("after O_TRUNC %q", read(t, p))
	os.Mkdir(filepath.Join(dir, "d"), 0o755)
	os.WriteFile(filepath.Join(dir, "d", "g"), []byte("g"), 0o600)
	say("rmdir of a non-empty directory: %v", errors.Is(os.Remove(filepath.Join(dir, "d")), syscall.ENOTEMPTY))
	os.Rename(filepath.Join(dir, "d", "g"), filepath.Join(dir, "f")) // replaces f
	say("after rename over f %q", read(t, p))
	os.Remove(filepath.Join(dir, "d"))
	es, _ := os.ReadDir(dir)
	for _, e := range es {
		info, _ := e.Info()
		say("entry %s dir=%v size=%d", e.Name(), e.IsDir(), info.Size())
	}
	_, err = os.Stat(filepath.Join(dir, "missing"))
	say("missing: %v", errors.Is(err, os.ErrNotExist))
	return out.String()
}

func TestBehavesAsBacking(t *testing.T) {
	f, _ := lazyfs.ForTest(t, nil)
	want := ops(t, t.TempDir())
	got := ops(t, f.Dir())
	if got != want {
		t.Fatalf("on the lazy mount:\n%s\non a plain directory:\n%s", got, want)
	}
}

// mmapChildEnv makes the test binary the process that maps a file of the
// mount (TestMmapSeesCachedWrites): a page fault on the mount waits for the
// server to answer, and a server in the faulting process can be stopped by
// the runtime (a collection, a GOMAXPROCS update) while the faulting thread
// cannot, so the faults must come from another process, as bbolt's would in
// use.
const mmapChildEnv = "SEALGATE_LAZYFS_MMAP_CHILD"

func init() {
	if p := os.Getenv(mmapChildEnv); p != "" {
		if err := mapAndWrite(p); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		os.Exit(0)
	}
}

// mapAndWrite, in the child: a read-only shared map sees writes made
// through the file (as bbolt does), and a write through a writable shared
// map reaches the file and is made durable by msync.
func mapAndWrite(p string) error {
	fh, err := os.OpenFile(p, os.O_RDWR, 0)
	if err != nil {
		return err
	}
	defer fh.Close()
	m, err := syscall.Mmap(int(fh.Fd()), 0, 8192, syscall.PROT_READ, syscall.MAP_SHARED)
	if err != nil {
		return err
	}
	_ = m[0] // fault the first page in before the write
	if _, err := fh.WriteAt([]byte("bbbb"), 4096); err != nil {
		return err
	}
	if _, err := fh.WriteAt([]byte("cc"), 10); err != nil {
		return err
	}
	if string(m[4096:4100]) != "bbbb" || string(m[10:12]) != "cc" {
		return fmt.Errorf("the map does not see the cached writes: %q %q", m[4096:4100], m[10:12])
	}
	syscall.Munmap(m)
	w, err := syscall.Mmap(int(fh.Fd()), 0, 8192, syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_SHARED)
	if err != nil {
		return err
	}
	copy(w[100:], "mapped")
	if err := unix.Msync(w, unix.MS_SYNC); err != nil {
		return err
	}
	return syscall.Munmap(w)
}

func TestMmapSeesCachedWrites(t *testing.T) {
	f, _ := lazyfs.ForTest(t, nil)
	p := durableFile(t, f, "m", bytes.Repeat([]byte{'a'}, 8192))
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(exe, "-test.run=^$")
	cmd.Env = append(os.Environ(), mmapChildEnv+"="+p)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("the mapping process: %v\n%s", err, out)
	}
	b := make([]byte, 6)
	fh, err := os.Open(p)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := fh.ReadAt(b, 100); err != nil || string(b) != "mapped" {
		t.Fatalf("a read after writing through the map: %q %v", b, err)
	}
	fh.Close()
	cut(t, f)
	got := read(t, p)
	if string(got[100:106]) != "mapped" || string(got[4096:4100]) != "bbbb" {
		t.Fatalf("after msync and a cut: %q %q, want the mapped and the written bytes (msync fsyncs)", got[100:106], got[4096:4100])
	}
}

func TestFlock(t *testing.T) {
	f, _ := lazyfs.ForTest(t, nil)
	for _, dir := range []string{t.TempDir(), f.Dir()} {
		p := filepath.Join(dir, "lock")
		a, err := os.OpenFile(p, os.O_RDWR|os.O_CREATE, 0o600)
		if err != nil {
			t.Fatal(err)
		}
		b, err := os.OpenFile(p, os.O_RDWR, 0)
		if err != nil {
			t.Fatal(err)
		}
		if err := syscall.Flock(int(a.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
			t.Fatalf("%s: first flock: %v", dir, err)
		}
		if err := syscall.Flock(int(b.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); !errors.Is(err, syscall.EWOULDBLOCK) {
			t.Fatalf("%s: a second exclusive flock: %v, want EWOULDBLOCK", dir, err)
		}
		if err := syscall.Flock(int(b.Fd()), syscall.LOCK_SH|syscall.LOCK_NB); !errors.Is(err, syscall.EWOULDBLOCK) {
			t.Fatalf("%s: a shared flock under an exclusive one: %v, want EWOULDBLOCK", dir, err)
		}
		a.Close() // closing releases the lock
		if err := syscall.Flock(int(b.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
			t.Fatalf("%s: flock after the holder closed: %v", dir, err)
		}
		b.Close()
	}
}

// recorder is a testing.TB that records Skip and Fatal instead of ending
// the test.
type recorder struct {
	testing.TB
	skipped, fatal []string
}

func (r *recorder) Helper()          {}
func (r *recorder) Skip(a ...any)    { r.skipped = append(r.skipped, fmt.Sprint(a...)) }
func (r *recorder) Fatal(a ...any)   { r.fatal = append(r.fatal, fmt.Sprint(a...)) }
func (r *recorder) Cleanup(f func()) { r.TB.Cleanup(f) }

func TestMissingDeviceSaysSo(t *testing.T) {
	defer lazyfs.SetDevice(filepath.Join(t.TempDir(), "no-fuse"))()
	_, err := lazyfs.Mount(t.TempDir(), t.TempDir(), nil)
	if !errors.Is(err, lazyfs.ErrNoDevice) {
		t.Fatalf("Mount without the device: %v, want ErrNoDevice", err)
	}
	for _, ci := range []string{"", "true"} {
		t.Setenv("CI", ci)
		r := &recorder{TB: t}
		lazyfs.Unavailable(r, err)
		got := append(r.skipped, r.fatal...)
		if len(got) != 1 || strings.Contains(got[0], "\n") || !strings.Contains(got[0], "no /dev/fuse") {
			t.Fatalf("CI=%q: said %q, want one line naming the missing device", ci, got)
		}
		if (ci == "true") != (len(r.fatal) == 1) {
			t.Fatalf("CI=%q: fatal %q, skipped %q: want a failure exactly under CI=true", ci, r.fatal, r.skipped)
		}
		t.Logf("CI=%q: %s", ci, got[0])
	}
}

func TestFaultStopsEverythingUntilTheCut(t *testing.T) {
	f, _ := lazyfs.ForTest(t, nil)
	p := durableFile(t, f, "a", []byte("durable\n"))
	var mu sync.Mutex // the hook runs in the filesystem's goroutines
	var seen []lazyfs.Op
	f.SetFault(func(op lazyfs.Op) bool {
		mu.Lock()
		defer mu.Unlock()
		seen = append(seen, op)
		return len(seen) == 2 // the write goes through, its fsync fails
	})
	fh, err := os.OpenFile(p, os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := fh.WriteAt([]byte("written"), 8); err != nil {
		t.Fatal(err)
	}
	if err := fh.Sync(); !errors.Is(err, syscall.EIO) {
		t.Fatalf("the fsync the fault stops: %v, want EIO", err)
	}
	if _, err := fh.WriteAt([]byte("later"), 0); !errors.Is(err, syscall.EIO) {
		t.Fatalf("a write after the fault: %v, want EIO", err)
	}
	fh.Close()
	mu.Lock()
	defer mu.Unlock()
	if len(seen) != 2 || seen[0] != lazyfs.OpWrite || seen[1] != lazyfs.OpFsync {
		t.Fatalf("the hook saw %v, want a write then an fsync (and nothing after the fault)", seen)
	}
	cut(t, f)
	if got := string(read(t, p)); got != "durable\n" {
		t.Fatalf("after the cut the file is %q, want what was durable before the fault", got)
	}
	write(t, p, []byte("after\n"), 8, true) // the cut removed the fault
	cut(t, f)
	if got := string(read(t, p)); got != "durable\nafter\n" {
		t.Fatalf("after the power came back, a synced write left %q", got)
	}
}
