package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"time"

	"github.com/sealgate/sealgate/internal/campaign"
	"github.com/sealgate/sealgate/internal/fuzzkit"
	"github.com/sealgate/sealgate/internal/zoo"
)

var campaignCmd = &command{
	usage: "[flags]",
	short: "the fuzzing campaign (the main job); failures are\nreduced into corpus/regress/CHECK.scn",
	long: `The fuzzing campaign: builds one instrumented test binary per package with fuzz
targets, rotates the targets through time slices until -for (building
included) is up, and reduces each new failure into -regress/CHECK.scn. Every
target it runs gets at least one whole slice; with too little time for all of
them it says so and runs fewer. Interrupted (Ctrl-C), it prints the totals so
far and exits 130.

SEALGATE_FAULTS=BUG plants a zoo bug in the gate under test: the campaign then
fuzzes only the targets that judge the gate (unless -targets names others),
without the corpus seeds that would catch the bug and from an empty fuzz cache
(unless -cache), writes reductions under .sealfuzz/regress, and ends with
"planted bug BUG: found by CHECK after T" or "planted bug BUG: not found in T
of TARGETS". The bugs:
` + wrapList(zoo.Names(), "  ", 80) + `
`,
	flags: campaignFlags,
}

func campaignFlags(fs *flag.FlagSet) func(args []string, stdout, stderr io.Writer) int {
	var o campaign.Options
	fs.DurationVar(&o.Total, "for", 10*time.Minute, "how long the whole campaign runs (e.g. 8h overnight)")
	fs.DurationVar(&o.Slice, "slice", 0, "time per target per turn (default: -for / (2 x targets), between 10s and 5m)")
	targets := fs.String("targets", "", "comma-separated fuzz targets (default: every Fuzz* target)")
	fs.IntVar(&o.Workers, "workers", 0, "fuzzing workers (default: GOMAXPROCS)")
	fs.StringVar(&o.Dir, "dir", "", "fuzz only the package in this folder (default: every package of the module with fuzz targets)")
	fs.DurationVar(&o.Minimize, "minimize", 0, "time go fuzz may spend minimizing each new input (and a failing one); 0, the default, turns it off: minimizing took about half of a campaign's CPU time (docs/research/campaign.md), and sealfuzz reduces failures itself")
	fs.StringVar(&o.Regress, "regress", "", "folder for reduced failures (default: corpus/regress, or "+plantedRegress+" with SEALGATE_FAULTS set)")
	fs.BoolVar(&o.Stop, "stop", false, "stop at the first failure")
	fs.BoolVar(&o.Fixed, "fixed", false, "keep every turn -slice long; by default a target's later turns grow so that go fuzz's baseline (re-running its cached corpus) stays under a tenth of the turn")
	fs.StringVar(&o.CacheRoot, "cache", "", "keep the fuzz cache (go fuzz's generated corpus) in this folder, one subfolder per package (default: under $GOCACHE/fuzz/sealfuzz, keyed by the module root)")
	return func(args []string, stdout, stderr io.Writer) int {
		if len(args) > 0 {
			fmt.Fprintf(stderr, "sealfuzz: unexpected argument %q\n%s", args[0], usage())
			return 2
		}
		if *targets != "" {
			o.Targets = strings.Split(*targets, ",")
		}
		o.Stdout, o.Stderr = stdout, stderr
		return runCampaign(o)
	}
}

// plantedRegress is where a planted-bug campaign writes its reductions:
// they are failures of a broken gate, not regressions of the real one, so
// they stay out of corpus/ (.sealfuzz is ignored by git).
var plantedRegress = filepath.Join(".sealfuzz", "regress")

// exitInterrupted is the exit status of a campaign ended by an interrupt,
// a shell's 128 + SIGINT.
const exitInterrupted = 130

// runCampaign refuses what would fail only after the build (a bad -for,
// SEALGATE_FUZZ_SEED or SEALGATE_FAULTS), then runs the campaign until it
// is over or interrupted.
func runCampaign(o campaign.Options) int {
	if o.Total <= 0 {
		fmt.Fprintln(o.Stderr, "sealfuzz: -for must be positive")
		return 2
	}
	seed, err := fuzzkit.SeedFromEnv()
	if err != nil {
		fmt.Fprintf(o.Stderr, "sealfuzz: %v\n", err)
		return 2
	}
	o.Seed = seed
	// The fuzz workers and the reducer read SEALGATE_FAULTS themselves; a
	// name they do not know is refused here, before anything is built.
	if _, err := zoo.FromEnv(); err != nil {
		fmt.Fprintf(o.Stderr, "sealfuzz: %v\n", err)
		return 2
	}
	o.Planted = os.Getenv(zoo.FaultsEnv)
	if o.Regress == "" {
		o.Regress = filepath.Join("corpus", "regress")
		if o.Planted != "" {
			o.Regress = plantedRegress
		}
	} else if o.Planted != "" && underCorpus(o.Regress) {
		fmt.Fprintf(o.Stderr, "sealfuzz: -regress %s is under corpus/: a planted bug's reductions are failures of a broken gate, not regressions of the real one; leave -regress out (%s) or name a folder outside corpus/\n", o.Regress, plantedRegress)
		return 2
	}
	if !sharedNotice(o.Stdout, o.Stderr) {
		return 2
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	failures, err := campaign.Run(ctx, o)
	if errors.Is(err, campaign.ErrInterrupted) {
		return exitInterrupted
	}
	if err != nil {
		fmt.Fprintf(o.Stderr, "sealfuzz: %v\n", err)
		return 1
	}
	if failures > 0 {
		return 1
	}
	return 0
}

// underCorpus says whether dir is the module's corpus/ folder or inside it.
func underCorpus(dir string) bool {
	root, err := campaign.ModuleRoot(".")
	if err != nil {
		return false
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return false
	}
	rel, err := filepath.Rel(filepath.Join(root, "corpus"), abs)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator))
}
