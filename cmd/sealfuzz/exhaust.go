package main

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/sealgate/sealgate/internal/exhaust"
	"github.com/sealgate/sealgate/internal/reduce"
	"github.com/sealgate/sealgate/internal/zoo"
)

// defaultExhaustEvents is the bound of `sealfuzz exhaust`, chosen so that
// the run over every setup takes under 10 minutes on 2 cores
// (docs/exhaust.md has the measurement).
const defaultExhaustEvents = 6

func exhaustMain(args []string, stdout, stderr io.Writer) int {
	fs := newFlagSet("exhaust", `usage: sealfuzz exhaust [flags]

Small-scope exhaustive checking: every event sequence of at most -events
events over a small abstract alphabet (2 attempts, 2 turns, 2 items, 2 call
ids, 2 tools, 4 fragment shapes, every close status, acks of every key
written, restart, peek), under each of a few small configurations, checked
with check.All, the suite's own checker. Ids are renamed into first-use
order, and a prefix that reaches a state already reached is not extended
(docs/exhaust.md says why that is sound). A violation is printed as a .scn
file and exits 1. SEALGATE_FAULTS=BUG checks the gate with that zoo bug
planted; with -zoo, the enumeration runs against every zoo bug in turn and
says which it finds.

setups:`+setupNames()+`
`, stderr)
	events := fs.Int("events", defaultExhaustEvents, "the bound N: sequences of 1..N events")
	only := fs.String("setup", "", "run only this setup (default: all of them)")
	withZoo := fs.Bool("zoo", false, "run against each zoo bug instead of the real gate, and report per bug whether it is found and the length of the first counterexample")
	bugs := fs.String("bugs", "", "with -zoo: comma-separated zoo bugs (default: all)")
	workers := fs.Int("workers", 0, "sequences checked at once (0: GOMAXPROCS)")
	noPrune := fs.Bool("no-prune", false, "extend every sequence, merging no states (the whole tree of canonical sequences; much slower)")
	tries := fs.Int("reduce", 2000, "reducer tries for a counterexample before it is printed (0: print it as found)")
	if done, code := parseFlags(fs, args, stdout, stderr); done {
		return code
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "sealfuzz exhaust: unexpected argument %q\n", fs.Arg(0))
		return 2
	}
	if *events < 1 {
		fmt.Fprintf(stderr, "sealfuzz exhaust: -events %d: want at least 1\n", *events)
		return 2
	}
	setups := exhaust.Setups()
	if *only != "" {
		var names []string
		var picked []exhaust.Setup
		for _, s := range setups {
			names = append(names, s.Name)
			if s.Name == *only {
				picked = append(picked, s)
			}
		}
		if len(picked) == 0 {
			fmt.Fprintf(stderr, "sealfuzz exhaust: -setup %q: no such setup (have %s)\n", *only, strings.Join(names, ", "))
			return 2
		}
		setups = picked
	}
	o := exhaust.Options{Events: *events, Workers: *workers, NoPrune: *noPrune}
	if *withZoo {
		var picked []zoo.Bug
		for _, name := range strings.Split(*bugs, ",") {
			if name == "" {
				continue
			}
			b, ok := zoo.ByName(name)
			if !ok {
				fmt.Fprintf(stderr, "sealfuzz exhaust: -bugs: no zoo bug %q\n", name)
				return 2
			}
			picked = append(picked, b)
		}
		if len(picked) == 0 {
			picked = zoo.All
		}
		return exhaustZoo(setups, picked, o, stdout)
	}
	chk, err := zoo.FromEnv()
	if err != nil {
		fmt.Fprintf(stderr, "sealfuzz exhaust: %v\n", err)
		return 2
	}
	o.Check = chk.All
	start := time.Now()
	reps := exhaust.ExploreAll(setups, o)
	printExhaust(stdout, reps, time.Since(start))
	for _, r := range reps {
		if f := r.Failure; f != nil {
			fmt.Fprintf(stdout, "\nviolation in setup %s, a sequence of %d events: %v\n\n", r.Setup, len(f.Events), f.Err)
			stdout.Write(f.Scenario(chk.All, *tries))
			return 1
		}
	}
	under := fmt.Sprintf("any of these %d setups", len(setups))
	if len(setups) == 1 {
		under = "setup " + setups[0].Name
	}
	fmt.Fprintf(stdout, "\nno violation in any sequence of at most %d events over this alphabet, under %s.\n", *events, under)
	return 0
}

// setupNames lists the setups with what each is for, for -h.
func setupNames() string {
	var b strings.Builder
	for _, s := range exhaust.Setups() {
		fmt.Fprintf(&b, "\n  %-11s %s", s.Name, s.What)
	}
	return b.String()
}

// printExhaust writes one line per setup and a total.
func printExhaust(w io.Writer, reps []exhaust.Report, took time.Duration) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "setup\tsequences\tdistinct states\ttime\tclosed at\t")
	seqs, states := 0, 0
	for _, r := range reps {
		closed := "-"
		if r.Closed > 0 {
			closed = fmt.Sprint(r.Closed)
		}
		fmt.Fprintf(tw, "%s\t%d\t%d\t%v\t%s\t\n", r.Setup, r.Sequences, r.States, r.Elapsed.Round(time.Millisecond), closed)
		seqs += r.Sequences
		states += r.States
	}
	fmt.Fprintf(tw, "total\t%d\t%d\t%v\t\t\n", seqs, states, took.Round(time.Millisecond))
	tw.Flush()
}

// exhaustZoo runs the enumeration against every zoo bug and prints a
// markdown table: found or not, the first counterexample's length, setup
// and failing check.
func exhaustZoo(setups []exhaust.Setup, bugs []zoo.Bug, o exhaust.Options, stdout io.Writer) int {
	fmt.Fprintf(stdout, "| bug | found at N=%d | events | setup | check | sequences | time |\n|---|---|---|---|---|---|---|\n", o.Events)
	for _, b := range bugs {
		o.Check = b.Checker().All
		start := time.Now()
		reps := exhaust.ExploreAll(setups, o)
		seqs := 0
		var found *exhaust.Report
		for i := range reps {
			seqs += reps[i].Sequences
			if reps[i].Failure != nil {
				found = &reps[i]
			}
		}
		took := time.Since(start).Round(time.Millisecond)
		if found == nil {
			fmt.Fprintf(stdout, "| %s | no | - | - | - | %d | %v |\n", b.Name, seqs, took)
			continue
		}
		fmt.Fprintf(stdout, "| %s | yes | %d | %s | %s | %d | %v |\n", b.Name, len(found.Failure.Events), found.Setup,
			reduce.ID(found.Failure.Err), seqs, took)
	}
	return 0
}
