package campaign

import (
	"bufio"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"
)

// fuzzCache is where go test keeps a package's generated corpus, so that a
// campaign builds on earlier ones (and `go clean -fuzzcache` clears it).
func fuzzCache(dir string) (string, error) {
	out, err := exec.Command("go", "env", "GOCACHE").Output()
	if err != nil {
		return "", fmt.Errorf("go env GOCACHE: %v", err)
	}
	return fuzzCacheIn(strings.TrimSpace(string(out)), dir)
}

// fuzzCacheIn names a package's fuzz cache under gocache: a folder per
// checkout, keyed by a hash of the module root's absolute path (two
// checkouts in folders of the same name must not share a cache), then the
// package's path inside the module.
func fuzzCacheIn(gocache, dir string) (string, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", err
	}
	root, err := ModuleRoot(abs)
	if err != nil {
		return "", err
	}
	rel, err := filepath.Rel(root, abs)
	if err != nil {
		return "", err
	}
	sum := sha256.Sum256([]byte(root))
	key := filepath.Base(root) + "-" + hex.EncodeToString(sum[:8])
	return filepath.Join(gocache, "fuzz", "sealfuzz", key, rel), nil
}

// RunFuzzer runs a fuzzing test binary in dir, with extra environment
// (later entries win), handing each line of its output to onLine, and
// returns how it exited: the state carries its CPU time, which includes the
// go fuzz workers it waited for.
func RunFuzzer(ctx context.Context, bin, dir string, env, args []string, onLine func(string)) (*os.ProcessState, error) {
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.Dir = dir
	// Ended early, go fuzz is interrupted as a terminal would, so that it
	// stops its workers itself; a kill would leave them running.
	cmd.Cancel = func() error { return cmd.Process.Signal(os.Interrupt) }
	cmd.WaitDelay = 10 * time.Second
	if env != nil {
		cmd.Env = append(os.Environ(), env...)
	}
	pipe, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	cmd.Stderr = cmd.Stdout
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	sc := bufio.NewScanner(pipe)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		onLine(sc.Text())
	}
	err = cmd.Wait()
	return cmd.ProcessState, err
}

// withGodebug adds a setting to a GODEBUG value.
func withGodebug(cur, setting string) string {
	if cur == "" {
		return setting
	}
	return cur + "," + setting
}

// ModuleRoot is the folder of the go.mod at or above dir (absolute).
func ModuleRoot(dir string) (string, error) {
	root, err := filepath.Abs(dir)
	if err != nil {
		return "", err
	}
	for {
		if _, err := os.Stat(filepath.Join(root, "go.mod")); err == nil {
			return root, nil
		}
		up := filepath.Dir(root)
		if up == root {
			return "", fmt.Errorf("%s is not inside a Go module (no go.mod above it)", dir)
		}
		root = up
	}
}
