package fuzzkit

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
)

// ExecsEnv names a directory where every process that runs a target body
// writes how many times each body ran. go fuzz runs its inputs in worker
// processes that the coordinator kills at the end, and go fuzz's own
// counter lags behind them (a worker reports only when a batch or a
// minimization ends), so the count must leave each worker by itself: a
// worker rewrites its file every FlushEvery, and a reader sums the files.
const ExecsEnv = "SEALGATE_EXECS_DIR"

// FlushEvery is how often a counting process rewrites its file; a worker
// killed between two writes loses at most this much of its count.
const FlushEvery = 250 * time.Millisecond

// Counter counts the executions of one target body. Add is one atomic add
// (and, once per process, the start of the writer when ExecsEnv is set).
type Counter struct {
	name string
	n    atomic.Int64
}

var (
	countersMu sync.Mutex
	counters   []*Counter
	startOnce  sync.Once
)

// NewCounter registers the counter of the target called name (the go test
// name, FuzzX). Call it from a package-level variable.
func NewCounter(name string) *Counter {
	c := &Counter{name: name}
	countersMu.Lock()
	counters = append(counters, c)
	countersMu.Unlock()
	return c
}

// Add counts one execution.
func (c *Counter) Add() {
	c.n.Add(1)
	startOnce.Do(startWriter)
}

// Load is the count of this process so far.
func (c *Counter) Load() int64 { return c.n.Load() }

// Name is the target's name.
func (c *Counter) Name() string { return c.name }

func startWriter() {
	dir := os.Getenv(ExecsEnv)
	if dir == "" {
		return
	}
	path := filepath.Join(dir, fmt.Sprintf("%d.execs", os.Getpid()))
	go func() {
		for {
			time.Sleep(FlushEvery)
			// A failed write is retried at the next tick; the count is a
			// measurement, and the target must not fail because of it.
			_ = writeCounts(path)
		}
	}()
}

// writeCounts replaces path with this process's counts, one line per
// counter: "NAME EXECS CPU_NANOS", the CPU time (user+system) of the whole
// process so far, so that a reader can give executions per CPU-second.
func writeCounts(path string) error {
	var b strings.Builder
	cpu := processCPU()
	countersMu.Lock()
	for _, c := range counters {
		if n := c.n.Load(); n > 0 {
			fmt.Fprintf(&b, "%s %d %d\n", c.name, n, cpu.Nanoseconds())
		}
	}
	countersMu.Unlock()
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, []byte(b.String()), 0o644); err != nil {
		return err
	}
	return os.Rename(tmp, path)
}

// processCPU is the user+system time this process has used.
func processCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// Execs is what ReadExecs found for one target: executions of its body
// and the CPU time of the processes that ran it, summed over processes.
type Execs struct {
	Target    string
	Execs     int64
	CPU       time.Duration
	Processes int
}

// PerCPUSecond is executions per CPU-second, or 0 without CPU time.
func (e Execs) PerCPUSecond() float64 {
	if e.CPU <= 0 {
		return 0
	}
	return float64(e.Execs) / e.CPU.Seconds()
}

// ReadExecs sums the counts that processes wrote into dir (the directory
// ExecsEnv named for them), by target, in name order. A process's CPU time
// is counted for each target it ran; a go fuzz worker runs one.
func ReadExecs(dir string) ([]Execs, error) {
	files, err := filepath.Glob(filepath.Join(dir, "*.execs"))
	if err != nil {
		return nil, err
	}
	by := map[string]*Execs{}
	for _, f := range files {
		if err := readCounts(f, by); err != nil {
			return nil, err
		}
	}
	out := make([]Execs, 0, len(by))
	for _, e := range by {
		out = append(out, *e)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Target < out[j].Target })
	return out, nil
}

func readCounts(path string, by map[string]*Execs) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for line := 1; sc.Scan(); line++ {
		fields := strings.Fields(sc.Text())
		if len(fields) != 3 {
			return fmt.Errorf("%s:%d: want NAME EXECS CPU_NANOS, have %q", path, line, sc.Text())
		}
		n, err1 := strconv.ParseInt(fields[1], 10, 64)
		cpu, err2 := strconv.ParseInt(fields[2], 10, 64)
		if err1 != nil || err2 != nil || n < 0 || cpu < 0 {
			return fmt.Errorf("%s:%d: bad count in %q", path, line, sc.Text())
		}
		e := by[fields[0]]
		if e == nil {
			e = &Execs{Target: fields[0]}
			by[fields[0]] = e
		}
		e.Execs += n
		e.CPU += time.Duration(cpu)
		e.Processes++
	}
	return sc.Err()
}

// Flush writes this process's counts now (when ExecsEnv is set), for a
// process about to end by itself rather than be killed.
func Flush() error {
	dir := os.Getenv(ExecsEnv)
	if dir == "" {
		return nil
	}
	return writeCounts(filepath.Join(dir, fmt.Sprintf("%d.execs", os.Getpid())))
}

// Count is this process's count of the target called name (the sum over
// its counters, should two bodies share the name).
func Count(name string) int64 {
	countersMu.Lock()
	defer countersMu.Unlock()
	var n int64
	for _, c := range counters {
		if c.name == name {
			n += c.n.Load()
		}
	}
	return n
}

// ProcessCPU is the user+system time this process has used so far.
func ProcessCPU() time.Duration { return processCPU() }
