package main

import (
	"flag"
	"fmt"
	"io"
	"os"

	"github.com/sealgate/sealgate/internal/campaign"
)

var reduceCmd = &command{
	name:  "reduce",
	usage: "reduce [flags] FILE",
	short: "reduce a failing .scn, testdata/fuzz or libFuzzer input",
	long: `Shrinks a failing input (a .scn file, a go fuzz input under
testdata/fuzz/TARGET/, or a libFuzzer input: -target, or a file named
TARGET-crash-SHA1) to a short scenario that fails the same check.
SEALGATE_FAULTS=BUG reduces against the gate with that zoo bug planted.
`,
	flags: reduceFlags,
}

func reduceFlags(fs *flag.FlagSet) func(args []string, stdout, stderr io.Writer) int {
	out := fs.String("o", "", "write the reduced scenario here instead of standard output")
	target := fs.String("target", "", "FILE is an input of this target's libFuzzer binary (a crash file of .clusterfuzzlite/build.sh's FuzzGateVsModel, say)")
	return func(args []string, stdout, stderr io.Writer) int {
		if len(args) != 1 {
			fmt.Fprintf(stderr, "sealfuzz reduce: want one FILE\n%s", usage())
			return 2
		}
		text, res, err := campaign.ReduceFile(args[0], *target)
		if err != nil {
			fmt.Fprintf(stderr, "sealfuzz reduce: %v\n", err)
			return 1
		}
		fmt.Fprintf(stderr, "reduced to %d events in %d tries: %v\n", len(res.Events), res.Tries, res.Err)
		if *out == "" {
			stdout.Write(text)
			return 0
		}
		if err := os.WriteFile(*out, text, 0o644); err != nil {
			fmt.Fprintf(stderr, "sealfuzz reduce: %v\n", err)
			return 1
		}
		return 0
	}
}
