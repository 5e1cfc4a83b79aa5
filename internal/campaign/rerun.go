package campaign

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"time"
)

// After each slice the campaign replays the corpus entries go fuzz added
// during it with every check (SEALGATE_CHECKS=full): a check made cheaper
// while fuzzing still judges every input that added coverage.

// ChecksEnv is the variable the target bodies read to run every check in
// full (the contract with the bodies: they may make checks cheaper while
// fuzzing, never under ChecksEnv=full).
const ChecksEnv = "SEALGATE_CHECKS"

// rerunPrefix names the copies of new entries the re-run puts in the
// package's testdata/fuzz/TARGET, where go test runs them as seeds; a
// prefix of its own selects them and nothing else (-test.run TARGET/^prefix).
const rerunPrefix = "sealfuzz-rerun-"

// cacheEntries lists the files of a target's fuzz cache folder. go fuzz
// names each entry it keeps by the first 16 hex digits of its content's
// SHA-256 (internal/fuzz writeToCorpus), so a name once seen never names
// another input: entries new in a slice are the names absent before it.
func cacheEntries(dir string) (map[string]bool, error) {
	ents, err := os.ReadDir(dir)
	if os.IsNotExist(err) {
		return map[string]bool{}, nil
	}
	if err != nil {
		return nil, err
	}
	names := make(map[string]bool, len(ents))
	for _, e := range ents {
		if e.Type().IsRegular() {
			names[e.Name()] = true
		}
	}
	return names, nil
}

// newEntries is the names in after and not in before, sorted.
func newEntries(before, after map[string]bool) []string {
	var out []string
	for n := range after {
		if !before[n] {
			out = append(out, n)
		}
	}
	sort.Strings(out)
	return out
}

// rerunStats counts the re-runs of a campaign.
type rerunStats struct {
	entries int
	runs    int
	wall    time.Duration
	cpu     time.Duration
	fails   int
}

var rerunFailRE = regexp.MustCompile(`--- FAIL: \S+/(` + regexp.QuoteMeta(rerunPrefix) + `\S+)`)

// rerunNew replays the named entries of target's cache folder through the
// target's body, in the test binary without fuzzing and with ChecksEnv=full.
// Each failing entry becomes a failure of the campaign, reduced like any
// other. It returns the CPU time the replay took.
func (c *campaign) rerunNew(ctx context.Context, target string, names []string) (time.Duration, error) {
	if len(names) == 0 {
		return 0, nil
	}
	p := c.where[target]
	name := target[strings.LastIndex(target, "/")+1:]
	src := filepath.Join(p.cache, name)
	seeds := filepath.Join(p.dir, "testdata", "fuzz", name)
	cleanup, err := copyAsSeeds(src, seeds, names)
	defer cleanup()
	if err != nil {
		return 0, err
	}
	args := []string{"-test.run=^" + name + "$/^" + rerunPrefix, "-test.count=1"}
	failed := map[string]bool{}
	var out []string
	start := time.Now()
	state, runErr := RunFuzzer(ctx, p.bin, p.dir, []string{ChecksEnv + "=full"}, args, func(l string) {
		if m := rerunFailRE.FindStringSubmatch(l); m != nil {
			failed[m[1]] = true
		}
		if len(out) < 200 {
			out = append(out, l)
		}
	})
	var cpu time.Duration
	if state != nil {
		cpu = state.UserTime() + state.SystemTime()
	}
	c.rerun.entries += len(names)
	c.rerun.runs++
	c.rerun.wall += time.Since(start)
	c.rerun.cpu += cpu
	if ctx.Err() != nil {
		return cpu, nil
	}
	if runErr != nil && len(failed) == 0 {
		return cpu, fmt.Errorf("re-run of %d new entries with %s=full failed without naming an entry (%v):\n%s",
			len(names), ChecksEnv, runErr, strings.Join(out, "\n"))
	}
	c.collectRerun(target, p.dir, src, seeds, failed, strings.Join(out, "\n"))
	return cpu, nil
}

// copyAsSeeds copies the named entries of the cache folder src into the
// package's seed folder seeds (PKG/testdata/fuzz/TARGET), under
// rerunPrefix, where go test runs them as seeds. cleanup removes the copies
// (a failing one was moved away already) and the folders left empty; it is
// valid even when copyAsSeeds fails.
func copyAsSeeds(src, seeds string, names []string) (cleanup func(), err error) {
	var copies []string
	cleanup = func() {
		for _, f := range copies {
			os.Remove(f)
		}
		// Leave no empty folders behind in the package.
		os.Remove(seeds)
		os.Remove(filepath.Dir(seeds))
		os.Remove(filepath.Dir(filepath.Dir(seeds)))
	}
	if err := os.MkdirAll(seeds, 0o755); err != nil {
		return func() {}, err
	}
	for _, n := range names {
		b, err := os.ReadFile(filepath.Join(src, n))
		if err != nil {
			return cleanup, fmt.Errorf("re-run: %v", err)
		}
		dst := filepath.Join(seeds, rerunPrefix+n)
		if err := os.WriteFile(dst, b, 0o644); err != nil {
			return cleanup, fmt.Errorf("re-run: %v", err)
		}
		copies = append(copies, dst)
	}
	return cleanup, nil
}

// collectRerun makes each entry that failed the re-run a failure of the
// campaign, in name order.
func (c *campaign) collectRerun(target, pkgDir, src, seeds string, failed map[string]bool, message string) {
	fails := make([]string, 0, len(failed))
	for f := range failed {
		fails = append(fails, f)
	}
	sort.Strings(fails)
	for _, f := range fails {
		c.rerun.fails++
		c.stats[target].fails++
		c.collect(target, pkgDir, filepath.Join(seeds, f), message,
			fmt.Sprintf("found by the re-run with %s=full of an entry go fuzz added (%s)", ChecksEnv, filepath.Join(src, strings.TrimPrefix(f, rerunPrefix))))
	}
}
