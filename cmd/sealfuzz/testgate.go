package main

import (
	"fmt"
	"io"
	"os"
	"runtime"
	"runtime/pprof"
	"strings"
	"time"

	"github.com/sealgate/sealgate/internal/trial"
	"github.com/sealgate/sealgate/stdiogate"
)

const testUsage = `usage: sealfuzz test -gate 'CMD ARGS' [flags]
       sealfuzz test [flags] -- CMD ARGS...

Runs a gate process that speaks the stdio protocol (docs/protocol.md)
through the corpus (built into sealfuzz, or -corpus DIR), the rapid state
machine and a time budget of generated streams, with every check that
applies to the capabilities it claims. Each distinct failing check is
reduced to a .scn and printed with what the gate said; a process that
crashes, hangs or breaks the protocol is reported as that (check SUBJECT),
with the event. The corpus and the generated streams are checked -workers
at a time, each on a gate process of its own; the streams and the report
are the same for any number of workers. The summary ends with each phase's streams and time, and
the CPU time of sealfuzz and of the gate processes. Exits 1 when it found
a violation.
`

func testMain(args []string, stdout, stderr io.Writer) int {
	fs := newFlagSet("test", testUsage, stderr)
	gateCmd := fs.String("gate", "", "the gate command and its arguments, split at spaces (or give them after --)")
	budget := fs.Duration("for", 30*time.Second, "time for generated streams, after the corpus and the machine")
	timeout := fs.Duration("timeout", stdiogate.DefaultTimeout, "how long the gate may take to answer one event")
	corpusDir := fs.String("corpus", trial.Embedded, "scenario folder to run first (\""+trial.Embedded+"\": the corpus built into sealfuzz; \"\" for none)")
	checks := fs.Int("checks", 20, "runs of the rapid state machine")
	machineFor := fs.Duration("machine-for", 2*time.Minute, "time for the state machine's runs: the run in progress when it is gone is the last (0: no bound)")
	seed := fs.Int64("seed", 1, "seed of the machine and of the generated streams")
	tries := fs.Int("reduce-tries", 2000, "candidate scenarios the reducer may check per failure")
	streams := fs.Int("streams", 0, "also end the generated phase after this many streams (0: only -for ends it)")
	workers := fs.Int("workers", runtime.GOMAXPROCS(0), "streams checked at once, each on its own gate process")
	out := fs.String("o", "", "also write each reduced failure to this folder as CHECK.scn")
	cpuProfile := fs.String("cpuprofile", "", "write sealfuzz's CPU profile of the whole test to this file (go tool pprof reads it)")
	if done, code := parseFlags(fs, args, stdout, stderr); done {
		return code
	}
	argv := strings.Fields(*gateCmd)
	if fs.NArg() > 0 {
		if len(argv) > 0 {
			fmt.Fprintln(stderr, "sealfuzz test: give the gate with -gate or after --, not both")
			return 2
		}
		argv = fs.Args()
	}
	if len(argv) == 0 {
		fmt.Fprintln(stderr, "sealfuzz test: no gate command (-gate 'CMD ARGS')")
		fs.Usage()
		return 2
	}
	if *budget < 0 || *checks < 0 || *machineFor < 0 || *streams < 0 || *timeout <= 0 || *workers <= 0 {
		fmt.Fprintln(stderr, "sealfuzz test: -for, -checks, -machine-for and -streams must not be negative, -timeout and -workers must be positive")
		return 2
	}
	if *cpuProfile != "" {
		stop, err := startCPUProfile(*cpuProfile)
		if err != nil {
			fmt.Fprintf(stderr, "sealfuzz test: %v\n", err)
			return 1
		}
		defer stop()
	}
	code, err := trial.GateTest{Argv: argv, Timeout: *timeout, Corpus: *corpusDir, Checks: *checks, MachineFor: *machineFor, Seed: *seed,
		Budget: *budget, Streams: *streams, Workers: *workers, Tries: *tries, Out: *out}.Run(stdout)
	if err != nil {
		fmt.Fprintf(stderr, "sealfuzz test: %v\n", err)
		return 1
	}
	return code
}

// startCPUProfile profiles this process's CPU into path until stop, so
// that where a test's time goes can be read with go tool pprof.
func startCPUProfile(path string) (stop func(), err error) {
	f, err := os.Create(path)
	if err != nil {
		return nil, fmt.Errorf("-cpuprofile: %w", err)
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		f.Close()
		return nil, fmt.Errorf("-cpuprofile: %w", err)
	}
	return func() {
		pprof.StopCPUProfile()
		f.Close()
	}, nil
}
