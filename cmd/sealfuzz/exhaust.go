package main

import (
	"flag"
	"fmt"
	"io"

	"github.com/sealgate/sealgate/internal/exhaust"
)

var exhaustCmd = &command{
	name:  "exhaust",
	usage: "exhaust [flags]",
	short: "check every event sequence up to -events long over a\nsmall alphabet (docs/research/exhaust.md); -zoo: per zoo bug",
	long: `Small-scope exhaustive checking: every event sequence of at most -events
events over a small abstract alphabet (2 attempts, 2 turns, 2 items, 2 call
ids, 2 tools, 4 fragment shapes plus a long number with an escaped name or
an escaped noncharacter in the setups that need them, each only as the first
bytes of a call of the tool whose release shows it, every close status,
acks of every key written, restart, peek), under each of a few small
configurations, checked with check.All, the suite's own checker. The
default bound, 8, is for on-demand runs (about 8 minutes of CPU, some
4.5 minutes on 2 idle cores); .ci/run uses 7. Ids are renamed into first-use
order, and a prefix that reaches a state already reached is not extended
(docs/research/exhaust.md says why that is sound). A violation is printed as a .scn
file and exits 1. SEALGATE_FAULTS=BUG checks the gate with that zoo bug
planted; with -zoo, the enumeration runs against every zoo bug in turn and
says which it finds.

setups:` + exhaust.SetupNames() + "\n",
	flags: exhaustFlags,
}

func exhaustFlags(fs *flag.FlagSet) func(args []string, stdout, stderr io.Writer) int {
	var c exhaust.Command
	fs.IntVar(&c.Events, "events", exhaust.DefaultEvents, "the bound N: sequences of 1..N events")
	fs.StringVar(&c.Setup, "setup", "", "run only this setup (default: all of them)")
	fs.BoolVar(&c.Zoo, "zoo", false, "run against each zoo bug instead of the real gate, and report per bug whether it is found and the length of the first counterexample")
	fs.StringVar(&c.Bugs, "bugs", "", "with -zoo: comma-separated zoo bugs (default: all)")
	fs.IntVar(&c.Workers, "workers", 0, "sequences checked at once (0: GOMAXPROCS)")
	fs.BoolVar(&c.NoPrune, "no-prune", false, "extend every sequence, merging no states (the whole tree of canonical sequences; much slower)")
	fs.StringVar(&c.CPUProfile, "cpuprofile", "", "write a CPU profile of the run to this file")
	fs.IntVar(&c.Tries, "reduce", 2000, "reducer tries for a counterexample before it is printed (0: print it as found)")
	return func(args []string, stdout, stderr io.Writer) int {
		if len(args) > 0 {
			fmt.Fprintf(stderr, "sealfuzz exhaust: unexpected argument %q\n", args[0])
			return 2
		}
		return c.Run(stdout, stderr)
	}
}
