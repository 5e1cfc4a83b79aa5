// Command sealfuzz is the suite's front door. With no arguments it runs the
// main job, a fuzzing campaign over every fuzz target; `sealfuzz replay`
// replays scenario files through the gate and the reference model, and
// `sealfuzz reduce` shrinks a failure to a readable scenario.
package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
)

const usage = `usage:
  sealfuzz [flags]                 the fuzzing campaign (the main job); failures are
                                   reduced into corpus/regress/CHECK.scn
  sealfuzz replay [flags] PATH...  replay .scn files (folders are searched for *.scn)
  sealfuzz reduce [flags] FILE     reduce a failing .scn, testdata/fuzz or libFuzzer input
  sealfuzz power [flags]           measure how fast each technique finds each zoo bug;
                                   writes docs/power/power.md and power.png
  sealfuzz shared                  say which tests skip for want of ../shared
  sealfuzz test -gate 'CMD ARGS'   check a gate process that speaks the stdio protocol
                                   (docs/protocol.md) with every check that applies
  sealfuzz peers [flags]           the official SDKs' tool-call idioms under the suite;
                                   writes docs/peers/
  sealfuzz coverage [flags]        the share of SPEC feature pairs each generator reaches
  sealfuzz exhaust [flags]         check every event sequence up to -events long over a
                                   small alphabet (docs/exhaust.md); -zoo: per zoo bug

Each command's -h lists its flags with their defaults. SEALGATE_FAULTS=BUG plants a
zoo bug in the gate for the campaign, replay and reduce.
`

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

func run(args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 || strings.HasPrefix(args[0], "-") && !isHelp(args[0]) {
		return campaignMain(args, stdout, stderr)
	}
	switch args[0] {
	case "replay":
		return replayMain(args[1:], stdout, stderr)
	case "reduce":
		return reduceMain(args[1:], stdout, stderr)
	case "power":
		return powerMain(args[1:], stdout, stderr)
	case "shared":
		return sharedMain(args[1:], stdout, stderr)
	case "test":
		return testMain(args[1:], stdout, stderr)
	case "peers":
		return peersMain(args[1:], stdout, stderr)
	case "coverage":
		return coverageMain(args[1:], stdout, stderr)
	case "exhaust":
		return exhaustMain(args[1:], stdout, stderr)
	case "help":
		if len(args) > 1 && args[1] != "help" {
			return run([]string{args[1], "-h"}, stdout, stderr)
		}
		return campaignMain([]string{"-h"}, stdout, stderr)
	}
	if isHelp(args[0]) {
		return campaignMain(args[:1], stdout, stderr)
	}
	fmt.Fprintf(stderr, "sealfuzz: unknown command %q\n%s", args[0], usage)
	return 2
}

func isHelp(a string) bool { return a == "-h" || a == "-help" || a == "--help" }

// newFlagSet makes a command's flag set. Its help (-h) goes to stdout and
// exits 0; a flag error prints the same help to stderr.
func newFlagSet(name, synopsis string, stderr io.Writer) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {}
	helpText[fs] = synopsis
	return fs
}

// helpText holds each flag set's synopsis, for printHelp.
var helpText = map[*flag.FlagSet]string{}

// parseFlags parses args; done is true when the command should stop now,
// with code (0 after -h, 2 after a bad flag).
func parseFlags(fs *flag.FlagSet, args []string, stdout, stderr io.Writer) (done bool, code int) {
	err := fs.Parse(args)
	switch {
	case err == nil:
		return false, 0
	case errors.Is(err, flag.ErrHelp):
		printHelp(stdout, fs)
		return true, 0
	default:
		printHelp(stderr, fs)
		return true, 2
	}
}

// printHelp writes a command's synopsis and every one of its flags with its
// default, zero defaults included (flag.PrintDefaults leaves those out).
func printHelp(w io.Writer, fs *flag.FlagSet) {
	fmt.Fprint(w, helpText[fs])
	fmt.Fprintln(w, "\nflags:")
	fs.VisitAll(func(f *flag.Flag) {
		typ, text := flag.UnquoteUsage(f)
		def := f.DefValue
		if typ == "string" {
			def = strconv.Quote(def)
		}
		if typ == "" {
			typ = "(bool)"
		}
		text = strings.ReplaceAll(text, "\n", "\n    \t")
		if !strings.Contains(text, "(default") { // else the text says what the zero value means
			text += " (default " + def + ")"
		}
		fmt.Fprintf(w, "  -%s %s\n    \t%s\n", f.Name, typ, text)
	})
}
