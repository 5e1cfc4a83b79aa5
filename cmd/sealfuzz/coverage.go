package main

import (
	"fmt"
	"io"
	"math/rand"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/sealgate/sealgate"
	"github.com/sealgate/sealgate/check"
	"github.com/sealgate/sealgate/internal/coverage"
	"github.com/sealgate/sealgate/internal/fuzztarget"
	"github.com/sealgate/sealgate/internal/gen"
	"github.com/sealgate/sealgate/internal/machine"
	"github.com/sealgate/sealgate/model"
	"github.com/sealgate/sealgate/scn"
)

// sealfuzz coverage: generator coverage, measured (issue 17, item 3). At a
// fixed budget it collects the scenarios each layer produces (the rapid
// machine, the gofuzz reading of FuzzGateVsModel, the corpus), extracts the
// features each reached with the model's decisions (package coverage), and
// prints the share of the reachable feature pairs each layer reached, the
// pairs never reached, and the pairs the SPEC makes unreachable.

type coverageBudget struct {
	seeds, runs int   // rapid: seeds 1..seeds, runs per seed
	gofuzz      int   // gofuzz-reading inputs
	gofuzzSeed  int64 // their math/rand seed
	corpus      string
}

func coverageMain(args []string, stdout, stderr io.Writer) int {
	fs := newFlagSet("coverage", `usage: sealfuzz coverage [flags]

Measures which pairs of SPEC features the generators reach: the rapid machine
(seeds 1..-seeds, -runs runs each), -gofuzz inputs of FuzzGateVsModel's gofuzz
reading (pseudo-random bytes shaped like its generic seeds, decoded by gen.Input
as the fuzz body decodes them) and the corpus. Prints the share of reachable
pairs each layer reached, every reachable pair the generated layers (rapid and
gofuzz) never reached, and the table of pairs the SPEC makes unreachable, each
with its sentence. docs/coverage.md explains the features and the pairs.
`, stderr)
	b := coverageBudget{}
	fs.IntVar(&b.seeds, "seeds", 10, "rapid seeds (1..N)")
	fs.IntVar(&b.runs, "runs", 100, "rapid runs per seed (rapid's default count)")
	fs.IntVar(&b.gofuzz, "gofuzz", 10000, "gofuzz-reading inputs")
	fs.Int64Var(&b.gofuzzSeed, "gofuzz-seed", 1, "math/rand seed of the gofuzz-reading inputs")
	fs.StringVar(&b.corpus, "corpus", "", "scenario folder (default: corpus/ of the module)")
	min := fs.Float64("min", 0, "exit 1 when the generated layers reach less than this percentage of the reachable pairs")
	list := fs.Bool("list", true, "list the reachable pairs the generated layers never reached")
	if done, code := parseFlags(fs, args, stdout, stderr); done {
		return code
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "sealfuzz coverage: unexpected arguments %q\n", fs.Args())
		return 2
	}
	if b.corpus == "" {
		root, err := moduleRoot(".")
		if err != nil {
			fmt.Fprintf(stderr, "sealfuzz coverage: %v\n", err)
			return 2
		}
		b.corpus = filepath.Join(root, "corpus")
	}
	start := time.Now()
	layers, err := measureCoverage(b)
	if err != nil {
		fmt.Fprintf(stderr, "sealfuzz coverage: %v\n", err)
		return 1
	}
	generated := coverage.Merge("generated", layers[0], layers[1])
	all := coverage.Merge("all", layers[0], layers[1], layers[2])
	printCoverage(stdout, b, append(layers, generated, all), generated, layers[2], *list, time.Since(start))
	code := 0
	if bad := all.Contradictions(); len(bad) > 0 {
		for _, e := range bad {
			fmt.Fprintf(stderr, "sealfuzz coverage: %v\n", e)
		}
		code = 1
	}
	if r, of := generated.Share(); coverage.Percent(r, of) < *min {
		fmt.Fprintf(stderr, "sealfuzz coverage: the generated layers reach %.1f%% of the reachable pairs, below -min %.1f\n", coverage.Percent(r, of), *min)
		code = 1
	}
	return code
}

// measureCoverage tallies the three layers: rapid, gofuzz, corpus.
func measureCoverage(b coverageBudget) ([]*coverage.Tally, error) {
	count := func(t *coverage.Tally) func(sealgate.Config, []sealgate.Event) {
		return func(cfg sealgate.Config, evs []sealgate.Event) {
			ds := model.Run(cfg, evs)
			t.Add(coverage.Extract(cfg, evs, ds), coverage.Refused(ds))
		}
	}
	rapidT := coverage.NewTally("rapid")
	for seed := 1; seed <= b.seeds; seed++ {
		if err := machine.Observe(check.Default, uint64(seed), b.runs, count(rapidT)); err != nil {
			return nil, fmt.Errorf("rapid seed %d: a run failed its checks: %v", seed, err)
		}
	}
	gofuzzT := coverage.NewTally("gofuzz")
	r := rand.New(rand.NewSource(b.gofuzzSeed))
	see := count(gofuzzT)
	for i := 0; i < b.gofuzz; i++ {
		data := gofuzzInput(r)
		cfg, evs, ok := gen.Input(data)
		if !ok || len(evs) > fuzztarget.MaxEvents {
			continue // the fuzz body skips these too
		}
		see(cfg, evs)
	}
	corpusT := coverage.NewTally("corpus")
	files, err := scn.Files(b.corpus)
	if err != nil {
		return nil, err
	}
	for _, f := range files {
		s, err := scn.ParseFile(f)
		if err != nil {
			return nil, err
		}
		cfg, err := s.Config()
		if err != nil {
			corpusT.Add(nil, true)
			continue
		}
		count(corpusT)(cfg, s.Events)
	}
	return []*coverage.Tally{rapidT, gofuzzT, corpusT}, nil
}

// gofuzzInput is one input of FuzzGateVsModel's gofuzz reading, shaped as
// fuzzkit.Seeds shapes that reading's generic seeds: 64 to 511 pseudo-random
// bytes, the first one 0 (the gofuzz reading).
func gofuzzInput(r *rand.Rand) []byte {
	b := make([]byte, 64+r.Intn(448))
	r.Read(b)
	b[0] = 0
	return b
}

func printCoverage(w io.Writer, b coverageBudget, tallies []*coverage.Tally, generated, corpus *coverage.Tally, list bool, took time.Duration) {
	catalog := coverage.Catalog()
	reachable := coverage.Reachable()
	unreachable := coverage.UnreachablePairs()
	fmt.Fprintf(w, "sealfuzz coverage: %d features in %d groups; %d pairs across groups, %d unreachable by the SPEC, %d reachable\n",
		len(catalog), groupCount(catalog), len(coverage.AllPairs()), len(unreachable), len(reachable))
	fmt.Fprintf(w, "budget: rapid seeds 1..%d x %d runs, %d gofuzz inputs (seed %d), corpus %s; took %s\n\n",
		b.seeds, b.runs, b.gofuzz, b.gofuzzSeed, b.corpus, took.Round(100*time.Millisecond))
	fmt.Fprintf(w, "%-10s %10s %8s %10s %16s %8s\n", "layer", "scenarios", "refused", "features", "reachable pairs", "share")
	for _, t := range tallies {
		r, of := t.Share()
		fmt.Fprintf(w, "%-10s %10d %8d %5d/%-4d %9d/%-6d %7.1f%%\n", t.Name, t.Scenarios, t.Refused,
			len(t.Features), len(catalog), r, of, coverage.Percent(r, of))
	}
	fmt.Fprintf(w, "\nthe pairs issue 17 names (x: reached):\n")
	fmt.Fprintf(w, "  %-62s %5s %6s %6s\n", "pair", "rapid", "gofuzz", "corpus")
	for _, wp := range coverage.Watched {
		mark := func(t *coverage.Tally) string {
			if t.Pairs[wp.Pair] {
				return "x"
			}
			return "-"
		}
		fmt.Fprintf(w, "  %-62s %5s %6s %6s  %s\n", wp.Pair, mark(tallies[0]), mark(tallies[1]), mark(tallies[2]), wp.Why)
	}
	var never []string
	for _, s := range catalog {
		if !generated.Features[s.Name] {
			mark := ""
			if corpus.Features[s.Name] {
				mark = " (corpus has it)"
			}
			never = append(never, "  "+string(s.Name)+mark+": "+s.Means)
		}
	}
	fmt.Fprintf(w, "\nfeatures the generated layers never reach (%d):\n%s\n", len(never), strings.Join(never, "\n"))
	missed := generated.Missed()
	both := 0
	for _, p := range missed {
		if generated.Features[p.A] && generated.Features[p.B] {
			both++
		}
	}
	fmt.Fprintf(w, "\nreachable pairs the generated layers never reach: %d (%d with a feature they never reach, %d of two features they reach apart)",
		len(missed), len(missed)-both, both)
	if list {
		// Grouped by their first feature; a pair the corpus reaches is
		// marked with *.
		fmt.Fprintln(w, " (by first feature; * the corpus reaches it)")
		byA := map[coverage.Feature][]string{}
		var as []coverage.Feature
		for _, p := range missed {
			if byA[p.A] == nil {
				as = append(as, p.A)
			}
			name := string(p.B)
			if corpus.Pairs[p] {
				name += "*"
			}
			byA[p.A] = append(byA[p.A], name)
		}
		sort.Slice(as, func(i, j int) bool { return as[i] < as[j] })
		for _, a := range as {
			fmt.Fprintf(w, "  %s × %s\n", a, strings.Join(byA[a], " "))
		}
	} else {
		fmt.Fprintln(w)
	}
	fmt.Fprintf(w, "\nunreachable pairs (%d), each with the SPEC text that makes it so:\n", len(unreachable))
	for _, u := range coverage.Unreachable {
		var ps []string
		for _, p := range u.Pairs() {
			ps = append(ps, p.String())
		}
		fmt.Fprintf(w, "  %s\n    because %s (SPEC section %s:", strings.Join(ps, "; "), u.Why, u.Section)
		for _, q := range u.Quotes {
			fmt.Fprintf(w, " %q", q)
		}
		fmt.Fprintln(w, ")")
	}
}

func groupCount(c []coverage.Spec) int {
	gs := map[coverage.Group]bool{}
	for _, s := range c {
		gs[s.Group] = true
	}
	return len(gs)
}
