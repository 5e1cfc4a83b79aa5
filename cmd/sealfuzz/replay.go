package main

import (
	"flag"
	"io"

	"github.com/sealgate/sealgate/internal/replay"
)

var replayCmd = &command{
	name:  "replay",
	usage: "replay [flags] PATH...",
	short: "replay .scn files (folders are searched for *.scn)",
	long: `Replays .scn files (folders are searched for *.scn) through the gate and the
reference model, and checks both against each file's expected decisions.
SEALGATE_FAULTS=BUG replays against the gate with that zoo bug planted.
`,
	flags: replayFlags,
}

func replayFlags(fs *flag.FlagSet) func(args []string, stdout, stderr io.Writer) int {
	var c replay.Command
	fs.BoolVar(&c.Print, "print", false, "print only the gate's decision lines, in the SPEC format")
	fs.BoolVar(&c.Model, "model", false, "with -print: print the model's decisions instead")
	fs.BoolVar(&c.Update, "update", false, "rewrite each file's expected part, only where gate and model agree")
	fs.StringVar(&c.Wire, "wire", "", "decode FILE as a vendor body (openai-responses, openai-chat, anthropic or\ngemini; .jsonl files are one payload per line) and print it as a .scn:\nconfiguration, decoded events, ----, the gate's decisions")
	fs.StringVar(&c.Config, "config", "", "with -wire: take the configuration lines of this .scn file; without it every\ntool in the stream is declared {\"type\":\"object\"} with no rule")
	return func(args []string, stdout, stderr io.Writer) int {
		c.Paths, c.Usage = args, usage()
		return c.Run(stdout, stderr)
	}
}
