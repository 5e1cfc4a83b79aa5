package main

import (
	"flag"
	"fmt"
	"io"
	"path/filepath"

	"github.com/sealgate/sealgate/internal/campaign"
	"github.com/sealgate/sealgate/internal/coverage"
)

var coverageCmd = &command{
	name:  "coverage",
	usage: "coverage [flags]",
	short: "the share of SPEC feature pairs each generator reaches",
	long: `Measures which pairs of SPEC features the generators reach: the rapid machine
(seeds 1..-seeds, -runs runs each), -gofuzz inputs of FuzzGateVsModel's gofuzz
reading (pseudo-random bytes shaped like its generic seeds, decoded by gen.Input
as the fuzz body decodes them) and the corpus. Prints the share of reachable
pairs each layer reached, every reachable pair the generated layers (rapid and
gofuzz) never reached, and the table of pairs the SPEC makes unreachable, each
with its sentence. docs/research/coverage.md explains the features and the pairs.
`,
	flags: coverageFlags,
}

func coverageFlags(fs *flag.FlagSet) func(args []string, stdout, stderr io.Writer) int {
	var b coverage.Budget
	fs.IntVar(&b.Seeds, "seeds", 10, "rapid seeds (1..N)")
	fs.IntVar(&b.Runs, "runs", 100, "rapid runs per seed (rapid's default count)")
	fs.IntVar(&b.Gofuzz, "gofuzz", 10000, "gofuzz-reading inputs")
	fs.Int64Var(&b.GofuzzSeed, "gofuzz-seed", 1, "math/rand seed of the gofuzz-reading inputs")
	fs.StringVar(&b.Corpus, "corpus", "", "scenario folder (default: corpus/ of the module)")
	minShare := fs.Float64("min", 0, "exit 1 when the generated layers reach less than this percentage of the reachable pairs")
	list := fs.Bool("list", true, "list the reachable pairs the generated layers never reached")
	return func(args []string, stdout, stderr io.Writer) int {
		if len(args) > 0 {
			fmt.Fprintf(stderr, "sealfuzz coverage: unexpected arguments %q\n", args)
			return 2
		}
		if b.Corpus == "" {
			root, err := campaign.ModuleRoot(".")
			if err != nil {
				fmt.Fprintf(stderr, "sealfuzz coverage: %v\n", err)
				return 2
			}
			b.Corpus = filepath.Join(root, "corpus")
		}
		problems := coverage.Run(b, *minShare, *list, stdout)
		for _, err := range problems {
			fmt.Fprintf(stderr, "sealfuzz coverage: %v\n", err)
		}
		if len(problems) > 0 {
			return 1
		}
		return 0
	}
}
