package campaign

import (
	"fmt"
	"slices"
	"strings"
	"text/tabwriter"
	"time"
)

// progress reports one target's totals so far (el and execs both over
// every slice it had). On a terminal it is a live line at go fuzz's own
// pace, with go fuzz's current rate; in a log the reporter prints a line
// every progressEvery with counts and rates over that interval. live is
// the running turn's CPU time by phase so far (zero when its target does
// not count its runs), so that the share covers the turn in progress too.
func (c *campaign) progress(target string, el time.Duration, execs int64, rate, newInt int, deadline time.Time, live cpuPhases) {
	cpu := c.cpu
	cpu.add(live)
	if c.terminal {
		fmt.Fprintf(c.stdout, "\r%-34s %8s  execs %-10d %6d/s  new %-5d failures %-3d  %s  (%v left)\x1b[K",
			target, el.Round(time.Second), execs, rate, newInt, len(c.fails), shareSoFar(cpu), time.Until(deadline).Round(time.Second))
		return
	}
	if c.report == nil {
		return
	}
	if line, ok := c.report.observe(target, execs, newInt, len(c.fails)); ok {
		fmt.Fprintf(c.stdout, "%s; %s  (%v left)\n", line, shareSoFar(cpu), time.Until(deadline).Round(time.Second))
	}
}

// shareSoFar is the progress lines' account of the CPU time so far: the
// share fuzzing new inputs and the baseline's, or, before any fuzzing time
// is known (a target that does not count its runs, in its first turn),
// that the share comes at the turn's end rather than a misleading 0%.
func shareSoFar(cpu cpuPhases) string {
	if cpu[phaseFuzz] == 0 && cpu[phaseBaseline] == 0 {
		return "CPU share fuzzing new inputs: known when the turn ends"
	}
	return fmt.Sprintf("CPU so far: %.0f%% fuzzing new inputs, %.0f%% baseline", cpu.share(phaseFuzz), cpu.share(phaseBaseline))
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

// summary prints, per target, its turns, time, target-side execs (over
// every phase, and per CPU-second while fuzzing new inputs), CPU time, new
// inputs and failures; then the one share of CPU time that fuzzed new
// inputs with every other phase beside it, the full-check re-runs, the
// failures with their violations, and, with a planted bug, whether it was
// found. An interrupted campaign says so first.
func (c *campaign) summary() {
	if c.interrupted {
		fmt.Fprintf(c.stdout, "\ninterrupted after %v; the totals so far:\n", time.Since(c.start).Round(time.Second))
	} else {
		fmt.Fprintf(c.stdout, "\nsummary after %v (building %v):\n", time.Since(c.start).Round(time.Second), c.built.Round(time.Second))
	}
	w := tabwriter.NewWriter(c.stdout, 0, 0, 2, ' ', 0)
	fmt.Fprintln(w, "target\tturns\ttime\texecs\texecs/CPU-s fuzzing\tCPU\tnew inputs\tfailures\t")
	var sum targetStats
	uncounted := false
	for _, t := range c.targets {
		st := c.stats[t]
		if st == nil {
			if slices.Contains(c.unreached, t) {
				continue
			}
			st = &targetStats{}
		}
		n, counted := st.shownExecs()
		execs, fuzzRate := fmt.Sprint(n), rate(st.fuzzExecs, st.cpu[phaseFuzz])
		if !counted {
			execs, uncounted = execs+"*", true
		}
		fmt.Fprintf(w, "%s\t%d\t%v\t%s\t%s\t%v\t%d\t%d\t\n", t, st.slices, st.elapsed.Round(time.Second), execs, fuzzRate,
			st.cpu.total().Round(time.Second), st.newEntries, st.fails)
		sum.elapsed += st.elapsed
		sum.slices += st.slices
		sum.bodyExecs += n
		sum.fuzzExecs += st.fuzzExecs
		sum.newEntries += st.newEntries
		sum.fails += st.fails
		sum.cpu.add(st.cpu)
	}
	total := fmt.Sprint(sum.bodyExecs)
	if uncounted {
		total += "*"
	}
	fmt.Fprintf(w, "total\t%d\t%v\t%s\t%s\t%v\t%d\t%d\t\n", sum.slices, sum.elapsed.Round(time.Second), total,
		rate(sum.fuzzExecs, sum.cpu[phaseFuzz]), sum.cpu.total().Round(time.Second), sum.newEntries, sum.fails)
	w.Flush()
	if uncounted {
		fmt.Fprintln(c.stdout, "* go fuzz's count: that target's body does not count its own runs (fuzzkit.NewCounter)")
	}
	fmt.Fprintln(c.stdout, c.cpu.line())
	fmt.Fprintf(c.stdout, "re-run with %s=full: %s in %s, %v (CPU %v), %s\n",
		ChecksEnv, count(c.rerun.entries, "new input"), count(c.rerun.runs, "run"), c.rerun.wall.Round(100*time.Millisecond),
		c.rerun.cpu.Round(100*time.Millisecond), count(c.rerun.fails, "failure"))
	if len(c.unreached) > 0 {
		fmt.Fprintf(c.stdout, "not fuzzed, the time left no longer held their first turn: %s\n", strings.Join(c.unreached, ", "))
	}
	c.failures()
	if c.planted != "" {
		fmt.Fprintln(c.stdout, c.plantedLine(sum.elapsed))
	}
}

// failures lists the failures, each with its violation beside the
// reduced file.
func (c *campaign) failures() {
	if len(c.fails) == 0 {
		fmt.Fprintln(c.stdout, "no failures")
		return
	}
	if len(c.fails) == 1 {
		fmt.Fprintln(c.stdout, "1 failure:")
	} else {
		fmt.Fprintf(c.stdout, "%d failures:\n", len(c.fails))
	}
	for _, f := range c.fails {
		fmt.Fprintf(c.stdout, "  %s: %s (after %v)\n", f.target, f.check, f.at.Round(time.Second))
		if f.violation != "" {
			fmt.Fprintf(c.stdout, "    violation: %s\n", f.violation)
		}
		if f.regress != "" {
			fmt.Fprintf(c.stdout, "    reduced:   %s\n", f.regress)
		}
		if f.input != "" {
			fmt.Fprintf(c.stdout, "    input:     %s\n", f.input)
		}
		if f.note != "" {
			fmt.Fprintf(c.stdout, "    %s\n", f.note)
		}
	}
}

// plantedLine says whether the planted bug was found: by which check and
// when (the campaign's wall time, building included), or in how much
// fuzzing of which targets it was not.
func (c *campaign) plantedLine(fuzzed time.Duration) string {
	if len(c.fails) > 0 {
		f := c.fails[0]
		return fmt.Sprintf("planted bug %s: found by %s after %v (building %v, then fuzzing %s)", c.planted, f.check,
			f.at.Round(time.Second), c.built.Round(time.Second), f.target)
	}
	ran := slices.DeleteFunc(slices.Clone(c.targets), func(t string) bool { return slices.Contains(c.unreached, t) })
	line := fmt.Sprintf("planted bug %s: not found in %v of %s", c.planted, fuzzed.Round(time.Second), strings.Join(ran, ", "))
	if c.interrupted {
		line += " (interrupted)"
	}
	return line
}

// shownExecs is the target's executions: its body's own count, or, for a
// body that does not count its runs, go fuzz's counter, which lags the
// workers (counted false).
func (st *targetStats) shownExecs() (n int64, counted bool) {
	if st.bodyExecs == 0 && st.execs > 0 {
		return st.execs, false
	}
	return st.bodyExecs, true
}

// rate is the summary's execs per CPU-second fuzzing: "-" when there is
// no count of them (a target that does not count its runs).
func rate(n int64, d time.Duration) string {
	if n <= 0 || d <= 0 {
		return "-"
	}
	return fmt.Sprintf("%.0f", perSecond(n, d))
}

// perSecond is n per second of d, or 0 without time.
func perSecond(n int64, d time.Duration) float64 {
	if d <= 0 {
		return 0
	}
	return float64(n) / d.Seconds()
}

// count writes n with its noun, plural unless n is 1, so that a summary
// reads as a sentence.
func count(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}
