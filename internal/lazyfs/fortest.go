package lazyfs

import (
	"os"
	"strings"
	"testing"
)

// ForTest mounts a lazy filesystem over a fresh backing directory for a
// test and unmounts it when the test ends. Where FUSE is missing (no
// /dev/fuse) or the mount is refused, it says so in one line naming the
// cause, and fails the test when CI=true (the run must not pass without
// the power-cut tests) or skips it elsewhere.
func ForTest(t testing.TB, o *Options) (f *FS, backing string) {
	t.Helper()
	backing, mnt := t.TempDir(), t.TempDir()
	f, err := Mount(backing, mnt, o)
	if err != nil {
		unavailable(t, err)
		return nil, ""
	}
	t.Cleanup(func() {
		if err := f.Unmount(); err != nil {
			t.Error(err)
		}
	})
	return f, backing
}

// unavailable says in one line that FUSE is missing and why, failing the
// test under CI=true and skipping it elsewhere.
func unavailable(t testing.TB, err error) {
	t.Helper()
	// One line, even when fusermount's own output has several.
	msg := "FUSE unavailable, power-cut test not run: " + strings.Join(strings.Fields(err.Error()), " ")
	if os.Getenv("CI") == "true" {
		t.Fatal(msg)
		return
	}
	t.Skip(msg)
}
