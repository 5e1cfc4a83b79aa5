package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/sealgate/sealgate/internal/power"
	"github.com/sealgate/sealgate/internal/zoo"
)

func powerMain(args []string, stdout, stderr io.Writer) int {
	fs := newFlagSet("power", `usage: sealfuzz power [flags]

Measures how fast each technique (rapid, go fuzz, the corpus) finds each zoo
bug, over seeds, and writes power.md and power.png into -out.

The zoo's bugs (for -bugs, and for SEALGATE_FAULTS elsewhere):
`+wrapList(zoo.Names(), "  ", 80)+`
`, stderr)
	var o power.Options
	fs.IntVar(&o.Seeds, "seeds", 10, "runs per bug and randomized technique")
	fs.IntVar(&o.Checks, "checks", 100, "rapid runs per seed (rapid's default count)")
	fs.DurationVar(&o.FuzzCap, "fuzz-cap", 60*time.Second, "time cap of one go fuzz run")
	fs.DurationVar(&o.FuzzMin, "fuzz-minimize", 0, "go fuzz's -fuzzminimizetime (0: off; its minimizing of every new input would eat a short run, and the reducer does the shrinking)")
	fs.IntVar(&o.FuzzSeeds, "fuzz-seeds", 0, "go fuzz runs per bug (default: -seeds); run i sets SEALGATE_FUZZ_SEED=i, which picks the generic seed inputs")
	techs := fs.String("techniques", "rapid,gofuzz,corpus", "techniques to measure")
	bugs := fs.String("bugs", "", "comma-separated zoo bugs (default: all)")
	fs.StringVar(&o.Out, "out", filepath.Join("docs", "research", "power"), "folder for power.md and power.png")
	fs.StringVar(&o.Note, "note", "", "a line to print under the table (the machine, its load)")
	if done, code := parseFlags(fs, args, stdout, stderr); done {
		return code
	}
	for _, t := range strings.Split(*techs, ",") {
		if t = strings.TrimSpace(t); !slices.Contains(power.Techniques, t) {
			fmt.Fprintf(stderr, "sealfuzz power: unknown technique %q\n", t)
			return 2
		}
		o.Techniques = append(o.Techniques, t)
	}
	if *bugs != "" {
		for _, n := range strings.Split(*bugs, ",") {
			b, ok := zoo.ByName(strings.TrimSpace(n))
			if !ok {
				fmt.Fprintf(stderr, "sealfuzz power: no zoo bug %q (have %s)\n", n, strings.Join(zoo.Names(), ", "))
				return 2
			}
			o.Bugs = append(o.Bugs, b)
		}
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	if err := power.Run(ctx, o, stdout, stderr); err != nil {
		fmt.Fprintf(stderr, "sealfuzz power: %v\n", err)
		return 1
	}
	return 0
}
