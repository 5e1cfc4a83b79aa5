// Package lazyfs is a FUSE filesystem for power-cut tests: it keeps every
// write in its own cache and makes it durable in a backing directory only
// when the file is fsynced, and a new, renamed or removed directory entry
// durable only when its directory is fsynced, so that a simulated power cut
// (Cut) loses exactly what a real machine may lose.
//
// It follows Jepsen's LazyFS and SQLite's crash-test VFS: a process crash
// (SIGKILL) keeps the operating system's page cache, so only a filesystem
// that forgets unsynced writes can test a durability promise.
//
// The model is the weakest POSIX allows and ext4, xfs and btrfs may show:
//   - a file's data and size reach the backing directory on fsync or
//     fdatasync of that file, all of its unsynced changes at once;
//   - a directory's entries (creates, renames, unlinks, mkdir, rmdir) reach
//     it on fsync of that directory, with each file's content as of that
//     file's last fsync (a file never fsynced is durable empty);
//   - a cut drops everything else; with Options.Torn it first keeps a
//     random prefix, in whole 512-byte sectors, of each file's last
//     unsynced write, as a disk that loses power in the middle of a write.
//
// Reads, mmap and flock go through the kernel as on any FUSE mount: the
// page cache serves mapped reads from the cached writes, and flock is the
// kernel's own (go-fuse's EnableLocks is off). A cut unmounts, which drops
// the kernel's page cache of the mount, and mounts the backing directory
// again. Hard links, symlinks and device nodes are not supported.
package lazyfs

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"time"

	gofs "github.com/hanwen/go-fuse/v2/fs"
	"github.com/hanwen/go-fuse/v2/fuse"
)

// SectorSize is the unit a torn write keeps: a disk writes whole sectors.
const SectorSize = 512

// blockSize is the granularity of the dirty-range bookkeeping.
const blockSize = 4096

// Options tune Mount; the zero value (or nil) drops unsynced writes whole.
type Options struct {
	// Torn makes each cut keep a random sector prefix of every file's last
	// unsynced write, instead of dropping it.
	Torn bool
	// Rand picks the torn prefixes. Default: seeded from the clock.
	Rand *rand.Rand
}

// FS is one mounted lazy filesystem.
type FS struct {
	backing, mountpoint string
	torn                bool
	rng                 *rand.Rand

	mu      sync.Mutex // guards every node and the maps below
	server  *fuse.Server
	files   map[*fileNode]bool // every file node of this mount, linked or not
	owners  map[string]any     // durable path (relative to backing) -> its node
	nextIno uint64
	cuts    int
	fault   func(Op) bool // see SetFault
	failed  bool          // the fault fired: every later write and fsync fails
}

// Op is a write or an fsync, as SetFault's hook sees it.
type Op int

// The operations a fault can stop.
const (
	OpWrite    Op = iota // a write (or truncate) of a file
	OpFsync              // an fsync or fdatasync of a file
	OpFsyncDir           // an fsync of a directory
)

func (o Op) String() string { return [...]string{"write", "fsync", "fsync of a directory"}[o] }

// SetFault installs a hook called before each write, truncate and fsync
// (it must not touch the mount). When it returns true the power fails at
// that point: the operation and every later write and fsync fail with EIO
// and change nothing, until PowerOff. A test uses it to cut the power in
// the middle of a process's writes: its hook kills the process and returns
// true, and the process dies in that call without seeing the error. nil
// removes the hook; PowerOff removes it too.
func (f *FS) SetFault(hook func(Op) bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.fault, f.failed = hook, false
}

// stopped reports whether op must fail: the fault fired now or before.
// Called under mu.
func (f *FS) stopped(op Op) bool {
	if !f.failed && f.fault != nil && f.fault(op) {
		f.failed = true
	}
	return f.failed
}

// Mount mounts a lazy view of backing (an existing directory) at
// mountpoint (an existing empty directory).
func Mount(backing, mountpoint string, o *Options) (*FS, error) {
	if o == nil {
		o = &Options{}
	}
	rng := o.Rand
	if rng == nil {
		rng = rand.New(rand.NewPCG(uint64(time.Now().UnixNano()), 26))
	}
	for _, d := range []string{backing, mountpoint} {
		st, err := os.Stat(d)
		if err != nil {
			return nil, fmt.Errorf("lazyfs: %w", err)
		}
		if !st.IsDir() {
			return nil, fmt.Errorf("lazyfs: %s is not a directory", d)
		}
	}
	f := &FS{backing: backing, mountpoint: mountpoint, torn: o.Torn, rng: rng}
	if err := f.mount(); err != nil {
		return nil, err
	}
	return f, nil
}

// ErrNoDevice is wrapped by Mount's error when /dev/fuse is missing.
var ErrNoDevice = errors.New("no /dev/fuse")

// fuseDevice is the device Mount needs (a test points it elsewhere).
var fuseDevice = "/dev/fuse"

func (f *FS) mount() error {
	if _, err := os.Stat(fuseDevice); err != nil {
		return fmt.Errorf("lazyfs: %w (%v)", ErrNoDevice, err)
	}
	f.files = map[*fileNode]bool{}
	f.owners = map[string]any{}
	root := &dirNode{lfs: f, mode: 0o755, backing: map[string]bool{".": true}, root: true}
	f.owners["."] = root
	// The kernel's own caches are kept short: the data of this mount
	// changes only through it, but a cut replaces the mount's contents.
	sec := time.Second
	srv, err := gofs.Mount(f.mountpoint, root, &gofs.Options{
		EntryTimeout: &sec, AttrTimeout: &sec,
		MountOptions: fuse.MountOptions{FsName: "lazyfs:" + f.backing, Name: "lazyfs", DirectMount: true, DisableXAttrs: true},
	})
	if err != nil {
		return fmt.Errorf("lazyfs: mount %s at %s refused: %w", f.backing, f.mountpoint, err)
	}
	f.server = srv
	return nil
}

// Dir is the mount point.
func (f *FS) Dir() string { return f.mountpoint }

// Cuts is how many cuts this FS has had.
func (f *FS) Cuts() int { return f.cuts }

// TornWrite describes what a cut kept of a file's last unsynced write.
type TornWrite struct {
	Path      string // durable path, relative to the backing directory
	Off, Len  int64  // the write
	Kept      int64  // bytes of it kept, from its start
	Sectors   int    // sectors the write touched
	KeptWhole int    // of which kept
}

// CutReport says what a cut dropped.
type CutReport struct {
	Unsynced int         // files with writes that were not fsynced
	Torn     []TornWrite // with Options.Torn: what was kept of last writes
}

// Cut simulates a power cut and the power coming back: PowerOff, then
// PowerOn.
func (f *FS) Cut() (CutReport, error) {
	rep, err := f.PowerOff()
	if err != nil {
		return rep, err
	}
	return rep, f.PowerOn()
}

// PowerOff unmounts (no process may hold a file of the mount open) and
// drops every write and directory change not made durable, keeping torn
// prefixes with Options.Torn. Until PowerOn, the backing directory holds
// exactly what survived, and may be read directly.
//
// The process that serves the mount must not read it through mmap: a page
// fault on the mount blocks its thread in the kernel until this process
// answers, and the Go runtime cannot stop that thread for a garbage
// collection, so the process can deadlock. Read the backing directory
// while the power is off instead, or use another process.
func (f *FS) PowerOff() (CutReport, error) {
	if err := f.unmount(); err != nil {
		return CutReport{}, err
	}
	f.mu.Lock()
	rep, err := f.tear()
	f.fault, f.failed = nil, false
	f.mu.Unlock()
	if err != nil {
		return rep, err
	}
	f.cuts++
	return rep, nil
}

// PowerOn mounts the backing directory again at the same place.
func (f *FS) PowerOn() error {
	if f.server != nil {
		return fmt.Errorf("lazyfs: %s is mounted: PowerOn without PowerOff", f.mountpoint)
	}
	return f.mount()
}

// Backing is the backing directory.
func (f *FS) Backing() string { return f.backing }

// Unmount unmounts without a cut's tearing; what was not fsynced is lost,
// as after a cut.
func (f *FS) Unmount() error { return f.unmount() }

func (f *FS) unmount() error {
	if f.server == nil {
		return nil
	}
	var err error
	// A process that just died may hold the mount for a moment while the
	// kernel closes its files: retry a busy unmount a bounded number of times.
	for i := 0; i < 200; i++ {
		if err = f.server.Unmount(); err == nil {
			f.server.Wait()
			f.server = nil
			return nil
		}
		if !errors.Is(err, syscall.EBUSY) {
			break
		}
		time.Sleep(10 * time.Millisecond)
	}
	return fmt.Errorf("lazyfs: unmount %s: %w", f.mountpoint, err)
}

// tear applies the torn prefixes of last unsynced writes to the backing
// files.
func (f *FS) tear() (CutReport, error) {
	var rep CutReport
	var files []*fileNode
	for n := range f.files {
		if n.last != nil || len(n.dirty) > 0 || n.sizeDirty {
			rep.Unsynced++
		}
		if f.torn && n.last != nil && len(n.backing) > 0 {
			files = append(files, n)
		}
	}
	// A stable order, so that a seeded Rand tears the same way.
	slices.SortFunc(files, func(a, b *fileNode) int { return strings.Compare(a.firstPath(), b.firstPath()) })
	for _, n := range files {
		w := n.last
		first := w.off / SectorSize
		end := w.off + int64(len(w.buf))
		sectors := int((end+SectorSize-1)/SectorSize - first)
		k := f.rng.IntN(sectors + 1)
		keptEnd := min(end, (first+int64(k))*SectorSize)
		kept := max(0, keptEnd-w.off)
		tw := TornWrite{Path: n.firstPath(), Off: w.off, Len: int64(len(w.buf)), Kept: kept, Sectors: sectors, KeptWhole: k}
		rep.Torn = append(rep.Torn, tw)
		if kept == 0 {
			continue
		}
		for p := range n.backing {
			if err := f.writeAt(p, w.buf[:kept], w.off, n.mode); err != nil {
				return rep, err
			}
		}
	}
	return rep, nil
}

func (f *FS) writeAt(rel string, b []byte, off int64, mode uint32) error {
	h, err := os.OpenFile(filepath.Join(f.backing, rel), os.O_WRONLY|os.O_CREATE, fs.FileMode(mode&0o7777))
	if err != nil {
		return fmt.Errorf("lazyfs: backing %s: %w", rel, err)
	}
	_, err = h.WriteAt(b, off)
	if cerr := h.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("lazyfs: backing %s: %w", rel, err)
	}
	return nil
}

func (f *FS) ino() uint64 {
	f.nextIno++
	return f.nextIno + 1 // 1 is the root
}

// write is one write call, kept for tearing.
type write struct {
	off int64
	buf []byte
}

// fileNode is a regular file: its current content and the content as of
// its last fsync.
type fileNode struct {
	gofs.Inode
	lfs       *FS
	mode      uint32 // permission bits
	uid, gid  uint32
	mtime     time.Time
	data      []byte          // what reads see
	synced    []byte          // as of the last fsync (or the mount)
	dirty     map[int64]bool  // blocks of data written since the last fsync
	sizeDirty bool            // truncated or grown since the last fsync
	last      *write          // the last write since the last fsync
	backing   map[string]bool // durable paths holding synced
}

// dirNode is a directory: its children are the current entries; synced
// are the entries as of its last fsync (or the mount).
type dirNode struct {
	gofs.Inode
	lfs      *FS
	mode     uint32
	uid, gid uint32
	mtime    time.Time
	synced   map[string]any // name -> *fileNode or *dirNode
	backing  map[string]bool
	root     bool // the mount's root, which loads the backing tree
}

func (n *fileNode) firstPath() string {
	var ps []string
	for p := range n.backing {
		ps = append(ps, p)
	}
	slices.Sort(ps)
	if len(ps) == 0 {
		return ""
	}
	return ps[0]
}

// handle is an open file: it remembers O_APPEND.
type handle struct{ append bool }

var (
	_ gofs.NodeOnAdder   = (*dirNode)(nil)
	_ gofs.NodeGetattrer = (*dirNode)(nil)
	_ gofs.NodeSetattrer = (*dirNode)(nil)
	_ gofs.NodeCreater   = (*dirNode)(nil)
	_ gofs.NodeMkdirer   = (*dirNode)(nil)
	_ gofs.NodeUnlinker  = (*dirNode)(nil)
	_ gofs.NodeRmdirer   = (*dirNode)(nil)
	_ gofs.NodeRenamer   = (*dirNode)(nil)
	_ gofs.NodeFsyncer   = (*dirNode)(nil)
	_ gofs.NodeGetattrer = (*fileNode)(nil)
	_ gofs.NodeSetattrer = (*fileNode)(nil)
	_ gofs.NodeOpener    = (*fileNode)(nil)
	_ gofs.NodeReader    = (*fileNode)(nil)
	_ gofs.NodeWriter    = (*fileNode)(nil)
	_ gofs.NodeFsyncer   = (*fileNode)(nil)
	_ gofs.NodeFlusher   = (*fileNode)(nil)
	_ gofs.NodeReleaser  = (*fileNode)(nil)
	_ gofs.NodeAllocater = (*fileNode)(nil)
	_ gofs.NodeStatfser  = (*dirNode)(nil)
	_ gofs.InodeEmbedder = (*fileNode)(nil)
	_ gofs.InodeEmbedder = (*dirNode)(nil)
	_ gofs.FileHandle    = (*handle)(nil)
	_ gofs.NodeAccesser  = (*dirNode)(nil)
	_ gofs.NodeAccesser  = (*fileNode)(nil)
	_ gofs.NodeLinker    = (*dirNode)(nil)
	_ gofs.NodeSymlinker = (*dirNode)(nil)
	_ gofs.NodeMknoder   = (*dirNode)(nil)
)

// OnAdd loads the backing directory as the root's tree.
func (d *dirNode) OnAdd(ctx context.Context) {
	if !d.root {
		return // a directory made by load or Mkdir, called under mu
	}
	d.lfs.mu.Lock()
	defer d.lfs.mu.Unlock()
	if err := d.load(ctx, "."); err != nil {
		// The mount is already up; an unreadable backing tree shows as an
		// empty directory, and the error is kept for the next call.
		fmt.Fprintf(os.Stderr, "lazyfs: loading %s: %v\n", d.lfs.backing, err)
	}
}

func (d *dirNode) load(ctx context.Context, rel string) error {
	f := d.lfs
	d.synced = map[string]any{}
	if st, err := os.Stat(filepath.Join(f.backing, rel)); err == nil {
		d.mode = uint32(st.Mode().Perm())
		d.mtime = st.ModTime()
		if sys, ok := st.Sys().(*syscall.Stat_t); ok {
			d.uid, d.gid = sys.Uid, sys.Gid
		}
	}
	entries, err := os.ReadDir(filepath.Join(f.backing, rel))
	if err != nil {
		return err
	}
	for _, e := range entries {
		p := filepath.Join(rel, e.Name())
		info, err := e.Info()
		if err != nil {
			return err
		}
		var uid, gid uint32
		if sys, ok := info.Sys().(*syscall.Stat_t); ok {
			uid, gid = sys.Uid, sys.Gid
		}
		switch {
		case e.IsDir():
			c := &dirNode{lfs: f, mode: uint32(info.Mode().Perm()), uid: uid, gid: gid, mtime: info.ModTime(), backing: map[string]bool{p: true}}
			f.owners[p] = c
			d.synced[e.Name()] = c
			d.AddChild(e.Name(), d.NewPersistentInode(ctx, c, gofs.StableAttr{Mode: syscall.S_IFDIR, Ino: f.ino()}), true)
			if err := c.load(ctx, p); err != nil {
				return err
			}
		case info.Mode().IsRegular():
			b, err := os.ReadFile(filepath.Join(f.backing, p))
			if err != nil {
				return err
			}
			c := &fileNode{lfs: f, mode: uint32(info.Mode().Perm()), uid: uid, gid: gid, mtime: info.ModTime(),
				data: b, synced: slices.Clone(b), dirty: map[int64]bool{}, backing: map[string]bool{p: true}}
			f.owners[p] = c
			f.files[c] = true
			d.synced[e.Name()] = c
			d.AddChild(e.Name(), d.NewPersistentInode(ctx, c, gofs.StableAttr{Mode: syscall.S_IFREG, Ino: f.ino()}), true)
		default:
			return fmt.Errorf("%s: only regular files and directories are supported", p)
		}
	}
	return nil
}

func fillAttr(out *fuse.Attr, kind uint32, mode, uid, gid uint32, size uint64, mtime time.Time, nlink uint32) {
	out.Mode = kind | mode
	out.Size = size
	out.Blocks = (size + 511) / 512
	out.Blksize = blockSize
	out.Nlink = nlink
	out.Owner = fuse.Owner{Uid: uid, Gid: gid}
	out.SetTimes(nil, &mtime, &mtime)
}

func caller(ctx context.Context) (uint32, uint32) {
	if c, ok := fuse.FromContext(ctx); ok {
		return c.Uid, c.Gid
	}
	return 0, 0
}

// Getattr of a directory.
func (d *dirNode) Getattr(ctx context.Context, _ gofs.FileHandle, out *fuse.AttrOut) syscall.Errno {
	d.lfs.mu.Lock()
	defer d.lfs.mu.Unlock()
	fillAttr(&out.Attr, syscall.S_IFDIR, d.mode, d.uid, d.gid, blockSize, d.mtime, 2)
	return 0
}

// Setattr of a directory: mode, owner and times, kept in the cache.
func (d *dirNode) Setattr(ctx context.Context, _ gofs.FileHandle, in *fuse.SetAttrIn, out *fuse.AttrOut) syscall.Errno {
	d.lfs.mu.Lock()
	defer d.lfs.mu.Unlock()
	if m, ok := in.GetMode(); ok {
		d.mode = m & 0o7777
	}
	if u, ok := in.GetUID(); ok {
		d.uid = u
	}
	if g, ok := in.GetGID(); ok {
		d.gid = g
	}
	if t, ok := in.GetMTime(); ok {
		d.mtime = t
	}
	fillAttr(&out.Attr, syscall.S_IFDIR, d.mode, d.uid, d.gid, blockSize, d.mtime, 2)
	return 0
}

// Access lets the kernel's permission checks decide.
func (d *dirNode) Access(ctx context.Context, mask uint32) syscall.Errno { return 0 }

// Access lets the kernel's permission checks decide.
func (n *fileNode) Access(ctx context.Context, mask uint32) syscall.Errno { return 0 }

// Statfs reports a large, empty filesystem: space is the backing one's.
func (d *dirNode) Statfs(ctx context.Context, out *fuse.StatfsOut) syscall.Errno {
	var st syscall.Statfs_t
	if err := syscall.Statfs(d.lfs.backing, &st); err != nil {
		return gofs.ToErrno(err)
	}
	out.FromStatfsT(&st)
	return 0
}

// Create makes a new, empty file; its entry is durable only after an
// fsync of this directory.
func (d *dirNode) Create(ctx context.Context, name string, flags, mode uint32, out *fuse.EntryOut) (*gofs.Inode, gofs.FileHandle, uint32, syscall.Errno) {
	uid, gid := caller(ctx)
	c := &fileNode{lfs: d.lfs, mode: mode & 0o7777, uid: uid, gid: gid, mtime: time.Now(), dirty: map[int64]bool{}, backing: map[string]bool{}}
	d.lfs.mu.Lock()
	d.lfs.files[c] = true
	d.mtime = c.mtime
	d.lfs.mu.Unlock()
	fillAttr(&out.Attr, syscall.S_IFREG, c.mode, uid, gid, 0, c.mtime, 1)
	// go-fuse's own locks are never taken under mu.
	in := d.NewPersistentInode(ctx, c, gofs.StableAttr{Mode: syscall.S_IFREG, Ino: d.lfs.ino()})
	return in, &handle{append: flags&syscall.O_APPEND != 0}, 0, 0
}

// Mkdir makes a new, empty directory; durable only after an fsync of this
// directory.
func (d *dirNode) Mkdir(ctx context.Context, name string, mode uint32, out *fuse.EntryOut) (*gofs.Inode, syscall.Errno) {
	uid, gid := caller(ctx)
	c := &dirNode{lfs: d.lfs, mode: mode & 0o7777, uid: uid, gid: gid, mtime: time.Now(), synced: map[string]any{}, backing: map[string]bool{}}
	d.lfs.mu.Lock()
	d.mtime = c.mtime
	d.lfs.mu.Unlock()
	fillAttr(&out.Attr, syscall.S_IFDIR, c.mode, uid, gid, blockSize, c.mtime, 2)
	return d.NewPersistentInode(ctx, c, gofs.StableAttr{Mode: syscall.S_IFDIR, Ino: d.lfs.ino()}), 0
}

// Unlink removes a file's entry (the bridge drops the child).
func (d *dirNode) Unlink(ctx context.Context, name string) syscall.Errno {
	if d.GetChild(name) == nil {
		return syscall.ENOENT
	}
	return 0
}

// Rmdir removes an empty directory's entry.
func (d *dirNode) Rmdir(ctx context.Context, name string) syscall.Errno {
	ch := d.GetChild(name)
	if ch == nil {
		return syscall.ENOENT
	}
	if len(ch.Children()) > 0 {
		return syscall.ENOTEMPTY
	}
	return 0
}

// Rename moves an entry (the bridge moves the child, replacing a target).
func (d *dirNode) Rename(ctx context.Context, name string, newParent gofs.InodeEmbedder, newName string, flags uint32) syscall.Errno {
	if flags != 0 {
		return syscall.EINVAL // RENAME_EXCHANGE and RENAME_NOREPLACE are not modelled
	}
	src := d.GetChild(name)
	if src == nil {
		return syscall.ENOENT
	}
	if dst := newParent.EmbeddedInode().GetChild(newName); dst != nil {
		if dst.IsDir() != src.IsDir() {
			if dst.IsDir() {
				return syscall.EISDIR
			}
			return syscall.ENOTDIR
		}
		if dst.IsDir() && len(dst.Children()) > 0 {
			return syscall.ENOTEMPTY
		}
	}
	return 0
}

// Link is refused: hard links are not modelled.
func (d *dirNode) Link(ctx context.Context, target gofs.InodeEmbedder, name string, out *fuse.EntryOut) (*gofs.Inode, syscall.Errno) {
	return nil, syscall.EPERM
}

// Symlink is refused: symbolic links are not modelled.
func (d *dirNode) Symlink(ctx context.Context, target, name string, out *fuse.EntryOut) (*gofs.Inode, syscall.Errno) {
	return nil, syscall.EPERM
}

// Mknod is refused: only regular files and directories are modelled.
func (d *dirNode) Mknod(ctx context.Context, name string, mode, dev uint32, out *fuse.EntryOut) (*gofs.Inode, syscall.Errno) {
	return nil, syscall.EPERM
}

// Fsync of a directory makes its current entries durable: each file with
// its content as of its own last fsync, each subdirectory with its entries
// as of its own last fsync.
func (d *dirNode) Fsync(ctx context.Context, _ gofs.FileHandle, flags uint32) syscall.Errno {
	f := d.lfs
	synced := map[string]any{}
	for name, ch := range d.Children() { // before mu: go-fuse's locks are never taken under it
		synced[name] = ch.Operations()
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.stopped(OpFsyncDir) {
		return syscall.EIO
	}
	d.synced = synced
	for _, p := range sortedKeys(d.backing) {
		if err := f.render(d, p); err != nil {
			fmt.Fprintf(os.Stderr, "lazyfs: fsync of directory %s: %v\n", p, err)
			return syscall.EIO
		}
	}
	return 0
}

func sortedKeys(m map[string]bool) []string {
	var ks []string
	for k := range m {
		ks = append(ks, k)
	}
	slices.Sort(ks)
	return ks
}

// render makes the backing directory rel hold d's synced entries.
func (f *FS) render(d *dirNode, rel string) error {
	abs := filepath.Join(f.backing, rel)
	entries, err := os.ReadDir(abs)
	if err != nil {
		return err
	}
	for _, e := range entries {
		p := filepath.Join(rel, e.Name())
		if want, ok := d.synced[e.Name()]; !ok || f.owners[p] != want {
			if err := f.forget(p); err != nil {
				return err
			}
		}
	}
	for _, name := range sortedNames(d.synced) {
		p := filepath.Join(rel, name)
		switch c := d.synced[name].(type) {
		case *fileNode:
			if c.backing[p] {
				continue
			}
			if err := os.WriteFile(filepath.Join(f.backing, p), c.synced, fs.FileMode(c.mode&0o777)); err != nil {
				return err
			}
			c.backing[p] = true
			f.owners[p] = c
		case *dirNode:
			if c.backing[p] {
				continue
			}
			if err := os.Mkdir(filepath.Join(f.backing, p), fs.FileMode(c.mode&0o777)); err != nil {
				return err
			}
			c.backing[p] = true
			f.owners[p] = c
			if err := f.render(c, p); err != nil {
				return err
			}
		}
	}
	return nil
}

func sortedNames(m map[string]any) []string {
	var ks []string
	for k := range m {
		ks = append(ks, k)
	}
	slices.Sort(ks)
	return ks
}

// forget removes the durable path p (and all under it) from the backing
// directory and from its nodes.
func (f *FS) forget(p string) error {
	for q, n := range f.owners {
		if q == p || strings.HasPrefix(q, p+"/") {
			switch c := n.(type) {
			case *fileNode:
				delete(c.backing, q)
			case *dirNode:
				delete(c.backing, q)
			}
			delete(f.owners, q)
		}
	}
	return os.RemoveAll(filepath.Join(f.backing, p))
}

// Getattr of a file: its current size.
func (n *fileNode) Getattr(ctx context.Context, _ gofs.FileHandle, out *fuse.AttrOut) syscall.Errno {
	n.lfs.mu.Lock()
	defer n.lfs.mu.Unlock()
	fillAttr(&out.Attr, syscall.S_IFREG, n.mode, n.uid, n.gid, uint64(len(n.data)), n.mtime, 1)
	return 0
}

// Setattr of a file: truncate (kept in the cache until fsync), mode,
// owner and times.
func (n *fileNode) Setattr(ctx context.Context, _ gofs.FileHandle, in *fuse.SetAttrIn, out *fuse.AttrOut) syscall.Errno {
	n.lfs.mu.Lock()
	defer n.lfs.mu.Unlock()
	if sz, ok := in.GetSize(); ok {
		if n.lfs.stopped(OpWrite) {
			return syscall.EIO
		}
		n.resize(int64(sz))
		n.mtime = time.Now()
	}
	if m, ok := in.GetMode(); ok {
		n.mode = m & 0o7777
	}
	if u, ok := in.GetUID(); ok {
		n.uid = u
	}
	if g, ok := in.GetGID(); ok {
		n.gid = g
	}
	if t, ok := in.GetMTime(); ok {
		n.mtime = t
	}
	fillAttr(&out.Attr, syscall.S_IFREG, n.mode, n.uid, n.gid, uint64(len(n.data)), n.mtime, 1)
	return 0
}

// resize changes the cached size; the bytes between the old and new size
// are dirty (cut away, or zeros).
func (n *fileNode) resize(sz int64) {
	old := int64(len(n.data))
	if sz == old {
		return
	}
	if sz < old {
		n.data = n.data[:sz]
	} else {
		n.data = append(n.data, make([]byte, sz-old)...)
	}
	n.markDirty(min(old, sz), max(old, sz))
	n.sizeDirty = true
}

func (n *fileNode) markDirty(from, to int64) {
	for b := from / blockSize; b*blockSize < to; b++ {
		n.dirty[b] = true
	}
}

// Open returns a handle that remembers O_APPEND; the kernel's page cache
// is used (no direct I/O), so that MAP_SHARED mappings work, and dropped
// at each open (no FOPEN_KEEP_CACHE).
func (n *fileNode) Open(ctx context.Context, flags uint32) (gofs.FileHandle, uint32, syscall.Errno) {
	return &handle{append: flags&syscall.O_APPEND != 0}, 0, 0
}

// Read serves the cached content.
func (n *fileNode) Read(ctx context.Context, _ gofs.FileHandle, dest []byte, off int64) (fuse.ReadResult, syscall.Errno) {
	n.lfs.mu.Lock()
	defer n.lfs.mu.Unlock()
	if off >= int64(len(n.data)) {
		return fuse.ReadResultData(nil), 0
	}
	k := copy(dest, n.data[off:])
	return fuse.ReadResultData(dest[:k]), 0
}

// Write goes to the cache only.
func (n *fileNode) Write(ctx context.Context, fh gofs.FileHandle, data []byte, off int64) (uint32, syscall.Errno) {
	n.lfs.mu.Lock()
	defer n.lfs.mu.Unlock()
	if n.lfs.stopped(OpWrite) {
		return 0, syscall.EIO
	}
	if h, ok := fh.(*handle); ok && h.append {
		off = int64(len(n.data))
	}
	if off < 0 {
		return 0, syscall.EINVAL
	}
	end := off + int64(len(data))
	if end > int64(len(n.data)) {
		n.resize(end)
	}
	copy(n.data[off:], data)
	n.markDirty(off, end)
	n.last = &write{off: off, buf: slices.Clone(data)}
	n.mtime = time.Now()
	return uint32(len(data)), 0
}

// Allocate grows the file (mode 0 only), in the cache.
func (n *fileNode) Allocate(ctx context.Context, _ gofs.FileHandle, off, size uint64, mode uint32) syscall.Errno {
	if mode != 0 {
		return syscall.EOPNOTSUPP
	}
	n.lfs.mu.Lock()
	defer n.lfs.mu.Unlock()
	if n.lfs.stopped(OpWrite) {
		return syscall.EIO
	}
	if end := int64(off + size); end > int64(len(n.data)) {
		n.resize(end)
	}
	return 0
}

// Fsync (and fdatasync) makes the file's content durable at every durable
// path it has, and as the content a later directory fsync will give it.
func (n *fileNode) Fsync(ctx context.Context, _ gofs.FileHandle, flags uint32) syscall.Errno {
	f := n.lfs
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.stopped(OpFsync) {
		return syscall.EIO
	}
	if err := n.sync(); err != nil {
		fmt.Fprintf(os.Stderr, "lazyfs: fsync of %s: %v\n", n.firstPath(), err)
		return syscall.EIO
	}
	return 0
}

func (n *fileNode) sync() error {
	size := int64(len(n.data))
	blocks := make([]int64, 0, len(n.dirty))
	for b := range n.dirty {
		blocks = append(blocks, b)
	}
	slices.Sort(blocks)
	for _, p := range sortedKeys(n.backing) {
		h, err := os.OpenFile(filepath.Join(n.lfs.backing, p), os.O_WRONLY, 0)
		if err != nil {
			return err
		}
		for _, b := range blocks {
			from, to := b*blockSize, min((b+1)*blockSize, size)
			if from >= to {
				continue
			}
			if _, err := h.WriteAt(n.data[from:to], from); err != nil {
				h.Close()
				return err
			}
		}
		err = h.Truncate(size)
		if cerr := h.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			return err
		}
		if err := os.Chmod(filepath.Join(n.lfs.backing, p), fs.FileMode(n.mode&0o777)); err != nil {
			return err
		}
	}
	n.synced = slices.Clone(n.data)
	n.dirty = map[int64]bool{}
	n.sizeDirty = false
	n.last = nil
	return nil
}

// Flush has nothing to do: close(2) does not make data durable.
func (n *fileNode) Flush(ctx context.Context, _ gofs.FileHandle) syscall.Errno { return 0 }

// Release has nothing to do either.
func (n *fileNode) Release(ctx context.Context, _ gofs.FileHandle) syscall.Errno { return 0 }
