// Command sealfuzz is the suite's front door. With no arguments it runs the
// main job, a fuzzing campaign over every fuzz target; `sealfuzz replay`
// replays scenario files through the gate and the reference model, and
// `sealfuzz reduce` shrinks a failure to a readable scenario.
package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
)

const usage = `usage:
  sealfuzz [-for 10m] [-targets FuzzA,wire/FuzzB] [-slice D] [-workers N] [-stop] [-dir PKG]
                                   the fuzzing campaign (the main job); failures are
                                   reduced into corpus/regress/CHECK.scn
  sealfuzz replay [flags] PATH...  replay .scn files (folders are searched for *.scn)
  sealfuzz reduce [-o OUT] FILE    reduce a failing .scn or testdata/fuzz input
  sealfuzz power [-seeds 10] [-fuzz-seeds N] [-checks 100] [-fuzz-cap 60s] [-fuzz-minimize 0]
                 [-techniques rapid,gofuzz,corpus] [-bugs a,b] [-note TEXT] [-out DIR]
                                   measure how fast each technique finds each zoo bug;
                                   writes docs/power/power.md and power.png
  sealfuzz peers [-for 20s] [-replay FILE.sse] [-list] (see sealfuzz peers -h)
                                   the official SDKs' tool-call idioms under the suite;
                                   writes docs/peers/

replay flags:
  -print    print only the gate's decision lines, in the SPEC format
  -model    with -print: print the model's decisions instead
  -update   rewrite each file's expected part, only where gate and model agree
  -wire P   decode FILE as a vendor body (P: openai-responses, openai-chat, anthropic,
            gemini; .jsonl files are one payload per line) and print it as a .scn:
            configuration, decoded events, ----, the gate's decisions
  -config F with -wire: take the configuration lines of the .scn file F; without it
            every tool in the stream is declared {"type":"object"} with no rule
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
	case "peers":
		return peersMain(args[1:], stdout, stderr)
	case "help":
		fmt.Fprint(stdout, usage)
		return 0
	}
	if isHelp(args[0]) {
		fmt.Fprint(stdout, usage)
		return 0
	}
	fmt.Fprintf(stderr, "sealfuzz: unknown command %q\n%s", args[0], usage)
	return 2
}

func isHelp(a string) bool { return a == "-h" || a == "-help" || a == "--help" }

func newFlagSet(name string, stderr io.Writer) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() { fmt.Fprint(stderr, usage) }
	return fs
}
