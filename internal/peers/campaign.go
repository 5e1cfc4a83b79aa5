package peers

import (
	"fmt"
	"hash/fnv"
	"io"
	"math/rand/v2"
	"strings"
	"time"

	"github.com/sealgate/sealgate/check"
	"github.com/sealgate/sealgate/internal/fuzzkit"
	"github.com/sealgate/sealgate/internal/gen"
	"github.com/sealgate/sealgate/internal/trial"
)

// Campaign is one `sealfuzz peers`: every peer put through the trial
// pipeline (the corpus, rapid-machine streams, then generated streams for
// a budget), each distinct violation reduced to a minimal vendor body.
type Campaign struct {
	Peers   []*Peer       // nil: All
	Corpus  string        // trial.LoadCorpus: trial.Embedded, a folder, or "" for none
	Seed    uint64        // of the machine and generated streams and of the faults
	Machine int           // rapid-machine streams
	Budget  time.Duration // for generated streams
	Tries   int           // reducer candidates per violation
	Report  string        // folder for README.md and peers.png, or ""
	Bodies  string        // folder for the replay inputs (PEER-INVARIANT.sse and .scn), or ""
}

// Run runs the campaign, prints its progress and findings to stdout and
// its troubles to stderr, writes the report, and returns the exit code:
// 1 when the control broke something or a run failed, 2 for a corpus
// that does not load.
func (c Campaign) Run(stdout, stderr io.Writer) int {
	all := c.Peers
	if all == nil {
		all = All()
	}
	corpus, err := trial.LoadCorpus(c.Corpus)
	if err != nil {
		fmt.Fprintf(stderr, "sealfuzz peers: %v\n", err)
		return 2
	}
	r := NewRunner()
	defer r.Close()
	h := NewHunt(r, all)
	start := time.Now()
	rng := rand.New(rand.NewPCG(c.Seed, 0x5ea19a7e))
	plan := trial.Plan{
		Corpus:   corpus,
		Machines: c.Machine,
		Machine: func(i int) (trial.Stream, bool) {
			s, ok := trial.Replay(check.Default, machineBits(rng))
			s.Source = fmt.Sprintf("machine #%d", i)
			return s, ok
		},
		Generate: func(n int) (trial.Stream, bool) {
			if n%2 == 1 {
				s, ok := trial.Replay(check.Default, machineBits(rng))
				s.Phase, s.Source = trial.PhaseGenerated, fmt.Sprintf("machine #%d", n)
				return s, ok
			}
			_, evs := gen.FromBytes(gofuzzBytes(rng))
			return trial.Stream{Phase: trial.PhaseGenerated, Source: fmt.Sprintf("gofuzz seed=%d #%d", c.Seed, n), Events: evs}, true
		},
		Budget: c.Budget,
		Begin:  h.Start,
		End: func(phase string, n int, took time.Duration) {
			unit := "streams"
			if phase == trial.PhaseCorpus {
				unit, took = "files", time.Since(start)
			}
			fmt.Fprintf(stdout, "%s: %d %s, %s\n", phase, n, unit, took.Round(time.Millisecond))
		},
	}
	plan.Run(func(s trial.Stream) bool {
		if s.Phase == trial.PhaseCorpus {
			for _, fault := range []Fault{{}, faultFor(s.Scenario.Name)} {
				h.Try(Input{Source: s.Phase, Name: s.Scenario.Name, Events: s.Events, Fault: fault})
			}
			return false
		}
		h.Try(Input{Source: s.Phase, Name: s.Source, Events: s.Events, Fault: drawFault(rng)})
		return false
	})
	return c.finish(h, stdout, stderr, time.Since(start))
}

// finish reduces the findings, prints them, writes the report and
// returns the exit code.
func (c Campaign) finish(h *Hunt, stdout, stderr io.Writer, elapsed time.Duration) int {
	t := time.Now()
	if err := h.Reduce(c.Tries); err != nil {
		fmt.Fprintf(stderr, "sealfuzz peers: reduce: %v\n", err)
	}
	fmt.Fprintf(stdout, "reduced %d violations, %s\n", len(h.Findings), time.Since(t).Round(time.Millisecond))
	for _, f := range h.Failures {
		fmt.Fprintf(stderr, "sealfuzz peers: %v\n", f)
	}
	for _, f := range h.Sorted() {
		fmt.Fprintf(stdout, "%-34s %-5s %6d  %s\n", f.Peer.Name, f.ID, f.Count, firstLine(f.Err.Error()))
	}
	rep := &report{h: h, seed: c.Seed, budget: c.Budget, machine: c.Machine, elapsed: elapsed}
	if err := rep.write(c.Report, c.Bodies); err != nil {
		fmt.Fprintf(stderr, "sealfuzz peers: %v\n", err)
		return 1
	}
	for _, dir := range []string{c.Report, c.Bodies} {
		if dir != "" {
			fmt.Fprintf(stdout, "wrote %s\n", dir)
		}
	}
	v, idioms, sdks, control := h.Violations()
	fmt.Fprintf(stdout, "peers: %d violations in %d idioms of %d peers; control: %d\n", v, idioms, sdks, control)
	if control > 0 || len(h.Failures) > 0 {
		return 1
	}
	return 0
}

// machineBits draws a rapid-machine bitstream.
func machineBits(rng *rand.Rand) []byte {
	bits := make([]byte, 64+rng.IntN(fuzzkit.MachineSeedBytes/8))
	for j := range bits {
		bits[j] = byte(rng.Uint32())
	}
	return bits
}

// gofuzzBytes draws the input of one gofuzz-decoded stream.
func gofuzzBytes(rng *rand.Rand) []byte {
	data := make([]byte, rng.IntN(512))
	for j := range data {
		data[j] = byte(rng.Uint32())
	}
	return data
}

// drawFault picks no fault half the time, else one of each kind.
func drawFault(rng *rand.Rand) Fault {
	if rng.IntN(2) == 0 {
		return Fault{}
	}
	return Fault{Kind: FaultKind(1 + rng.IntN(int(FaultKinds)-1)), At: rng.IntN(64)}
}

// faultFor is the fault a corpus file is tried with besides none, fixed by
// its name so that runs compare.
func faultFor(name string) Fault {
	h := fnv.New64a()
	h.Write([]byte(name))
	x := h.Sum64()
	return Fault{Kind: FaultKind(1 + x%uint64(FaultKinds-1)), At: int(x >> 8 % 64)}
}

// firstLine is the first line of a message that says something.
func firstLine(s string) string {
	for _, l := range strings.Split(s, "\n") {
		if l = strings.TrimSpace(l); l != "" && !strings.HasPrefix(l, "---") {
			return l
		}
	}
	return "failed"
}
