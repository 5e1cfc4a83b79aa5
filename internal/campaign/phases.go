package campaign

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/sealgate/sealgate/internal/fuzzkit"
)

// Where a campaign's CPU time goes. go fuzz starts every slice by re-running
// the target's whole cached corpus ("gathering baseline coverage"), then
// fuzzes new inputs, minimizing each one that adds coverage. Only the last
// finds anything new, so the campaign measures each phase and reports the
// share of CPU time that fuzzes new inputs.

// phase is one kind of CPU time of a campaign.
type phase int

const (
	phaseBuild    phase = iota // go test -c -fuzz=. (and listing targets)
	phaseBaseline              // workers re-running the cached corpus at a slice's start
	phaseMinimize              // workers minimizing new interesting inputs
	phaseFuzz                  // workers fuzzing new inputs
	phaseRerun                 // replaying new corpus entries with SEALGATE_CHECKS=full
	phaseCoord                 // go fuzz's coordinator process
	numPhases
)

var phaseNames = [numPhases]string{"building", "baseline", "minimizing", "fuzzing new inputs", "full-check re-run", "coordinator"}

// cpuPhases is CPU time by phase.
type cpuPhases [numPhases]time.Duration

func (p *cpuPhases) add(q cpuPhases) {
	for i := range p {
		p[i] += q[i]
	}
}

func (p cpuPhases) total() time.Duration {
	var t time.Duration
	for _, d := range p {
		t += d
	}
	return t
}

// share is phase ph's part of the total, in percent (0 with no time).
func (p cpuPhases) share(ph phase) float64 {
	t := p.total()
	if t <= 0 {
		return 0
	}
	return 100 * float64(p[ph]) / float64(t)
}

// line is the summary's account of the whole campaign's CPU time, building
// included: the share fuzzing new inputs, the one share that can find a
// bug, then every other phase beside it.
func (p cpuPhases) line() string {
	var b strings.Builder
	fmt.Fprintf(&b, "CPU time %v: fuzzing new inputs %.1f%% (%v); the rest:", p.total().Round(time.Second), p.share(phaseFuzz), p[phaseFuzz].Round(100*time.Millisecond))
	sep := " "
	for ph := phase(0); ph < numPhases; ph++ {
		if ph == phaseFuzz {
			continue
		}
		fmt.Fprintf(&b, "%s%s %.1f%% (%v)", sep, phaseNames[ph], p.share(ph), p[ph].Round(100*time.Millisecond))
		sep = ", "
	}
	return b.String()
}

// sliceLog follows go fuzz's output during one slice (run with
// GODEBUG=fuzzdebug=1, which adds the minimizations' times).
type sliceLog struct {
	baselineDone   bool
	baselineInputs int           // entries go fuzz re-ran for its baseline
	baselineRan    int           // of those, the ones it had re-run at its last report
	baselineWall   time.Duration // elapsed when the baseline completed
	elapsed        time.Duration // the last elapsed go fuzz printed
	workers        int           // go fuzz's workers while fuzzing
	minimized      int
	minimizeWall   time.Duration // summed "minimizing took" of the workers
}

var (
	elapsedRE   = regexp.MustCompile(`^fuzz: elapsed: (\S+?),`)
	baselineRE  = regexp.MustCompile(`^fuzz: elapsed: (\S+?), (?:gathering baseline coverage|testing seed corpus): (\d+)/(\d+) completed(, now fuzzing with (\d+) workers)?`)
	minimizedRE = regexp.MustCompile(` DEBUG input minimized, .*minimizing took: (\S+)$`)
)

// line takes one line of output and says whether it ended the baseline.
func (s *sliceLog) line(l string) (baselineEnded bool) {
	if m := minimizedRE.FindStringSubmatch(l); m != nil {
		if d, err := time.ParseDuration(m[1]); err == nil {
			s.minimized++
			s.minimizeWall += d
		}
		return false
	}
	m := elapsedRE.FindStringSubmatch(l)
	if m == nil {
		return false
	}
	if d, err := time.ParseDuration(m[1]); err == nil {
		s.elapsed = d
	}
	if b := baselineRE.FindStringSubmatch(l); b != nil && !s.baselineDone {
		s.baselineRan, _ = strconv.Atoi(b[2])
		s.baselineInputs, _ = strconv.Atoi(b[3])
		if b[4] != "" {
			s.workers, _ = strconv.Atoi(b[5])
			s.baselineDone = true
			s.baselineWall = s.elapsed
			return true
		}
	}
	return false
}

// sliceCPU splits one slice's CPU time into phases. proc is the fuzz
// process's CPU (the coordinator and the workers it waited for); atBaseline
// and atEnd are the workers' CPU from the target-side execs files when the
// baseline completed and at the end (atBaseline < 0: not known then). Without execs files (a target that does not count, such as the
// tests' fake package) the workers' time is split by go fuzz's wall clock.
func sliceCPU(s *sliceLog, proc, atBaseline, atEnd time.Duration, counted bool) cpuPhases {
	var p cpuPhases
	if !counted {
		atEnd = proc
		atBaseline = proc
		if s.baselineDone && s.elapsed > 0 {
			atBaseline = time.Duration(float64(proc) * float64(s.baselineWall) / float64(s.elapsed))
		}
	}
	if atBaseline < 0 && s.baselineDone && s.elapsed > 0 {
		// The baseline ended before a worker first wrote its file (a
		// short one): split by go fuzz's clock.
		atBaseline = time.Duration(float64(atEnd) * float64(s.baselineWall) / float64(s.elapsed))
	}
	if atBaseline < 0 || atBaseline > atEnd {
		atBaseline = atEnd // the baseline never completed
	}
	p[phaseBaseline] = atBaseline
	rest := atEnd - atBaseline
	// go fuzz reports a minimization's time as the worker's wall time; on
	// a loaded machine a worker gets only part of a core, so that wall time
	// is scaled by the part the workers had after the baseline (their CPU
	// over workers x wall time), and capped by their CPU.
	minimize := s.minimizeWall
	if fuzzWall := s.elapsed - s.baselineWall; s.baselineDone && s.workers > 0 && fuzzWall > 0 {
		if part := float64(rest) / (float64(s.workers) * float64(fuzzWall)); part < 1 {
			minimize = time.Duration(float64(minimize) * part)
		}
	}
	p[phaseMinimize] = min(minimize, rest)
	p[phaseFuzz] = rest - p[phaseMinimize]
	if c := proc - atEnd; c > 0 {
		p[phaseCoord] = c
	}
	return p
}

// workerCPU is the CPU time and target-side executions of the processes
// that ran the body of target (its go test name) in the execs folder dir.
func workerCPU(dir, name string) (cpu time.Duration, execs int64, ok bool) {
	all, err := fuzzkit.ReadExecs(dir)
	if err != nil {
		return 0, 0, false
	}
	for _, e := range all {
		if e.Target == name {
			return e.CPU, e.Execs, true
		}
	}
	return 0, 0, false
}
