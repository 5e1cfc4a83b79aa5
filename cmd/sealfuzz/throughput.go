package main

import (
	"flag"
	"fmt"
	"io"
	"path/filepath"

	"github.com/sealgate/sealgate/internal/campaign"
	"github.com/sealgate/sealgate/internal/fuzzkit"
	"github.com/sealgate/sealgate/internal/throughput"
)

var throughputCmd = &command{
	name:  "throughput",
	usage: "throughput [flags]",
	short: "execs per CPU-second of the fuzz bodies, and where\none exec's checking time goes",
	long: `Measures execs per CPU-second of FuzzGateVsModel per reading (text, gofuzz,
machine) and of FuzzChunking, counted by the bodies themselves, on one fixed
input set each (the target's seeds plus -n generated inputs, seeded), run
outside go fuzz with a go fuzz worker's checker (SEALGATE_CHECKS=full: every
check); then splits one exec's checking time into check.All's steps. The
machine reading runs as the libFuzzer harness replays it (rapid.MakeFuzz, go
fuzz's way, runs only under go test), which costs more per exec. With
-zoo, also what sampling the costliest checks loses on each zoo bug. Prints
markdown tables; docs/research/fuzzing.md reads them.
`,
	flags: throughputFlags,
}

func throughputFlags(fs *flag.FlagSet) func(args []string, stdout, stderr io.Writer) int {
	var o throughput.Options
	fs.IntVar(&o.Inputs, "n", 10000, "generated inputs per set, beside the seeds")
	fs.StringVar(&o.Corpus, "corpus", "", "scenario folder, the text reading's seeds (default: corpus/ of the module)")
	fs.BoolVar(&o.Zoo, "zoo", false, "also measure, per zoo bug, how many scenarios fail every check and how many the sampled checks")
	return func(args []string, stdout, stderr io.Writer) int {
		if len(args) > 0 {
			fmt.Fprintf(stderr, "sealfuzz throughput: unexpected argument %q\n", args[0])
			return 2
		}
		if o.Inputs < 0 {
			fmt.Fprintf(stderr, "sealfuzz throughput: -n %d: want a count of inputs\n", o.Inputs)
			return 2
		}
		if o.Corpus == "" {
			root, err := campaign.ModuleRoot(".")
			if err != nil {
				fmt.Fprintf(stderr, "sealfuzz throughput: %v\n", err)
				return 2
			}
			o.Corpus = filepath.Join(root, "corpus")
		}
		seed, err := fuzzkit.SeedFromEnv()
		if err != nil {
			fmt.Fprintf(stderr, "sealfuzz throughput: %v\n", err)
			return 2
		}
		o.Seed = seed
		if err := throughput.Run(o, stdout); err != nil {
			fmt.Fprintf(stderr, "sealfuzz throughput: %v\n", err)
			return 1
		}
		return 0
	}
}
