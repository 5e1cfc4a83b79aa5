package campaign

import (
	"fmt"
	"text/tabwriter"
	"time"
)

// progress reports one target's totals so far (el and execs both over
// every slice it had). On a terminal it is a live line at go fuzz's own
// pace, with go fuzz's current rate; in a log the reporter prints a line
// every progressEvery with counts and rates over that interval.
func (c *campaign) progress(target string, el time.Duration, execs int64, rate, newInt int, deadline time.Time) {
	if c.terminal {
		fmt.Fprintf(c.stdout, "\r%-34s %8s  execs %-10d %6d/s  new %-5d failures %-3d  fuzzing %2.0f%% of CPU  (%v left)\x1b[K",
			target, el.Round(time.Second), execs, rate, newInt, len(c.fails), c.cpu.share(phaseFuzz), time.Until(deadline).Round(time.Second))
		return
	}
	if c.report == nil {
		return
	}
	if line, ok := c.report.observe(target, execs, newInt, len(c.fails)); ok {
		// The share covers the slices done (their CPU time is known when
		// they end) and the build.
		fmt.Fprintf(c.stdout, "%s; CPU so far %.0f%% fuzzing new inputs, %.0f%% baseline  (%v left)\n", line,
			c.cpu.share(phaseFuzz), c.cpu.share(phaseBaseline), time.Until(deadline).Round(time.Second))
	}
}

// progressEvery is how often a campaign off a terminal reports.
const progressEvery = 30 * time.Second

// reporter turns the running totals of the targets into interval lines:
// each line counts what happened since the previous one and divides by the
// time since the previous one, so counts and rates cover the same interval
// whatever the slices and their boundaries.
type reporter struct {
	every time.Duration
	now   func() time.Time
	start time.Time
	last  time.Time        // when the previous line was printed
	execs map[string]int64 // each target's total at the last observation
	news  map[string]int
	// at the previous line:
	sumExecs int64
	sumNew   int
}

// observe takes a target's totals so far and returns a line when one is due.
func (r *reporter) observe(target string, execs int64, newInputs, fails int) (string, bool) {
	if r.execs == nil {
		r.execs, r.news = map[string]int64{}, map[string]int{}
	}
	r.execs[target], r.news[target] = execs, newInputs
	now := r.now()
	span := now.Sub(r.last)
	if span < r.every {
		return "", false
	}
	var sumExecs int64
	sumNew := 0
	for t, e := range r.execs {
		sumExecs += e
		sumNew += r.news[t]
	}
	dExecs, dNew := sumExecs-r.sumExecs, sumNew-r.sumNew
	r.last, r.sumExecs, r.sumNew = now, sumExecs, sumNew
	return fmt.Sprintf("%8s  last %v: %d execs (%.0f/s), %d new inputs; total %d execs, %d new inputs, %d failures; now %s",
		now.Sub(r.start).Round(time.Second), span.Round(time.Second), dExecs, float64(dExecs)/span.Seconds(), dNew,
		sumExecs, sumNew, fails, target), true
}

// summary prints, per target, the time, the target-side execs (over every
// phase, and per CPU-second while fuzzing new inputs), and the share of its
// CPU time that fuzzed new inputs; then the campaign's CPU time by phase and
// the full-check re-runs.
func (c *campaign) summary() {
	fmt.Fprintln(c.stdout, "\nsummary:")
	w := tabwriter.NewWriter(c.stdout, 0, 0, 2, ' ', 0)
	fmt.Fprintln(w, "target\ttime\tturns\texecs\tgo fuzz execs\tfuzzing execs/CPU-s\tCPU\tfuzzing\tbaseline\tnew inputs\tnew cache entries\tfailures\t")
	var sum targetStats
	for _, t := range c.targets {
		st := c.stats[t]
		if st == nil {
			st = &targetStats{}
		}
		fmt.Fprintf(w, "%s\t%v\t%d\t%d\t%d\t%.0f\t%v\t%.1f%%\t%.1f%%\t%d\t%d\t%d\t\n", t, st.elapsed.Round(time.Second), st.slices, st.bodyExecs, st.execs,
			perSecond(st.fuzzExecs, st.cpu[phaseFuzz]), st.cpu.total().Round(time.Second), st.cpu.share(phaseFuzz), st.cpu.share(phaseBaseline),
			st.newInt, st.newEntries, st.fails)
		sum.elapsed += st.elapsed
		sum.slices += st.slices
		sum.execs += st.execs
		sum.bodyExecs += st.bodyExecs
		sum.fuzzExecs += st.fuzzExecs
		sum.newInt += st.newInt
		sum.newEntries += st.newEntries
		sum.fails += st.fails
		sum.cpu.add(st.cpu)
	}
	fmt.Fprintf(w, "total\t%v\t%d\t%d\t%d\t%.0f\t%v\t%.1f%%\t%.1f%%\t%d\t%d\t%d\t\n", sum.elapsed.Round(time.Second), sum.slices, sum.bodyExecs, sum.execs,
		perSecond(sum.fuzzExecs, sum.cpu[phaseFuzz]), sum.cpu.total().Round(time.Second), sum.cpu.share(phaseFuzz), sum.cpu.share(phaseBaseline),
		sum.newInt, sum.newEntries, sum.fails)
	w.Flush()
	fmt.Fprintln(c.stdout, c.cpu.line())
	fmt.Fprintf(c.stdout, "re-run with %s=full: %d new cache entries in %d runs, %v (CPU %v), %d failures\n",
		ChecksEnv, c.rerun.entries, c.rerun.runs, c.rerun.wall.Round(100*time.Millisecond), c.rerun.cpu.Round(100*time.Millisecond), c.rerun.fails)
	if len(c.fails) == 0 {
		fmt.Fprintln(c.stdout, "no failures")
		return
	}
	fmt.Fprintf(c.stdout, "%d failures:\n", len(c.fails))
	for _, f := range c.fails {
		fmt.Fprintf(c.stdout, "  %s: %s\n", f.target, f.check)
		if f.input != "" {
			fmt.Fprintf(c.stdout, "    input:   %s\n", f.input)
		}
		if f.regress != "" {
			fmt.Fprintf(c.stdout, "    reduced: %s\n", f.regress)
		}
		if f.note != "" {
			fmt.Fprintf(c.stdout, "    %s\n", f.note)
		}
	}
}

// perSecond is n per second of d, or 0 without time.
func perSecond(n int64, d time.Duration) float64 {
	if d <= 0 {
		return 0
	}
	return float64(n) / d.Seconds()
}
