package exhaust

import (
	"fmt"
	"io"
	"os"
	"runtime/debug"
	"runtime/pprof"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/sealgate/sealgate/internal/reduce"
	"github.com/sealgate/sealgate/internal/zoo"
)

// DefaultEvents is the bound of sealfuzz exhaust, run on demand: about 8
// minutes of CPU over every setup, some 4.5 minutes on 2 idle cores
// (docs/research/exhaust.md has the measurement; CI runs a smaller bound).
const DefaultEvents = 8

// Command is one run of sealfuzz exhaust: its flags.
type Command struct {
	Events  int    // the bound: sequences of 1..Events events
	Setup   string // run only this setup ("": all)
	Zoo     bool   // run against each zoo bug instead of the real gate
	Bugs    string // with Zoo: comma-separated zoo bugs ("": all)
	Workers int    // sequences checked at once (0: GOMAXPROCS)
	NoPrune bool   // extend every sequence, merging no states
	Tries   int    // reducer tries for a counterexample (0: print it as found)
	// CPUProfile, when set, is the file a CPU profile of the run is
	// written to: the cost per sequence is what bounds the default bound.
	CPUProfile string
}

// Run enumerates and prints what it found, and returns the exit code: 0
// with no violation (or after the -zoo table), 1 with one, printed as a
// .scn file, 2 for a usage error.
func (c Command) Run(stdout, stderr io.Writer) int {
	if c.Events < 1 {
		fmt.Fprintf(stderr, "sealfuzz exhaust: -events %d: want at least 1\n", c.Events)
		return 2
	}
	setups, err := pickSetups(c.Setup)
	if err != nil {
		fmt.Fprintf(stderr, "sealfuzz exhaust: %v\n", err)
		return 2
	}
	if c.CPUProfile != "" {
		f, err := os.Create(c.CPUProfile)
		if err != nil {
			fmt.Fprintf(stderr, "sealfuzz exhaust: -cpuprofile: %v\n", err)
			return 2
		}
		defer f.Close()
		if err := pprof.StartCPUProfile(f); err != nil {
			fmt.Fprintf(stderr, "sealfuzz exhaust: -cpuprofile %s: %v\n", c.CPUProfile, err)
			return 2
		}
		defer pprof.StopCPUProfile()
	}
	if os.Getenv("GOGC") == "" {
		// Each check allocates a few short-lived gates; collecting less
		// often saves a third of the CPU for a heap that stays small.
		defer debug.SetGCPercent(debug.SetGCPercent(400))
	}
	o := Options{Events: c.Events, Workers: c.Workers, NoPrune: c.NoPrune}
	if c.Zoo {
		bugs, err := pickBugs(c.Bugs)
		if err != nil {
			fmt.Fprintf(stderr, "sealfuzz exhaust: %v\n", err)
			return 2
		}
		zooTable(setups, bugs, o, stdout)
		return 0
	}
	chk, err := zoo.FromEnv()
	if err != nil {
		fmt.Fprintf(stderr, "sealfuzz exhaust: %v\n", err)
		return 2
	}
	o.Check = chk.All
	start := time.Now()
	reps := ExploreAll(setups, o)
	report(stdout, reps, time.Since(start))
	for _, r := range reps {
		if f := r.Failure; f != nil {
			fmt.Fprintf(stdout, "\nviolation in setup %s, a sequence of %d events: %v\n\n", r.Setup, len(f.Events), f.Err)
			stdout.Write(f.Scenario(chk.All, c.Tries))
			return 1
		}
	}
	under := fmt.Sprintf("any of these %d setups", len(setups))
	if len(setups) == 1 {
		under = "setup " + setups[0].Name
	}
	fmt.Fprintf(stdout, "\nno violation in any sequence of at most %d events over this alphabet, under %s.\n", c.Events, under)
	return 0
}

// pickSetups is the setup named only, or every setup when only is "".
func pickSetups(only string) ([]Setup, error) {
	setups := Setups()
	if only == "" {
		return setups, nil
	}
	var names []string
	var picked []Setup
	for _, s := range setups {
		names = append(names, s.Name)
		if s.Name == only {
			picked = append(picked, s)
		}
	}
	if len(picked) > 0 {
		return picked, nil
	}
	return nil, fmt.Errorf("-setup %q: no such setup (have %s)", only, strings.Join(names, ", "))
}

// pickBugs is the comma-separated zoo bugs named, or every bug for "".
func pickBugs(names string) ([]zoo.Bug, error) {
	var picked []zoo.Bug
	for _, name := range strings.Split(names, ",") {
		if name == "" {
			continue
		}
		b, ok := zoo.ByName(name)
		if !ok {
			return nil, fmt.Errorf("-bugs: no zoo bug %q", name)
		}
		picked = append(picked, b)
	}
	if len(picked) == 0 {
		return zoo.All, nil
	}
	return picked, nil
}

// SetupNames lists the setups with what each is for, for -h.
func SetupNames() string {
	var b strings.Builder
	for _, s := range Setups() {
		fmt.Fprintf(&b, "\n  %-11s %s", s.Name, s.What)
	}
	return b.String()
}

// report writes one line per setup and a total.
func report(w io.Writer, reps []Report, took time.Duration) {
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
	fmt.Fprint(w, "per length (sequences checked / new states kept):")
	for i := range reps[0].PerLength {
		s, n := 0, 0
		for _, r := range reps {
			if i < len(r.PerLength) {
				s += r.PerLength[i].Sequences
				n += r.PerLength[i].NewStates
			}
		}
		fmt.Fprintf(w, " %d: %d/%d", i+1, s, n)
	}
	fmt.Fprintln(w)
}

// zooTable runs the enumeration against every zoo bug and prints a
// markdown table: found or not, the first counterexample's length, setup
// and failing check.
func zooTable(setups []Setup, bugs []zoo.Bug, o Options, stdout io.Writer) {
	fmt.Fprintf(stdout, "| bug | found at N=%d | events | setup | check | sequences | time |\n|---|---|---|---|---|---|---|\n", o.Events)
	for _, b := range bugs {
		o.Check = b.Checker().All
		start := time.Now()
		reps := ExploreAll(setups, o)
		seqs := 0
		var found *Report
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
}
