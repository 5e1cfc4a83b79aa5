package main

import (
	"flag"
	"fmt"
	"io"
	"strings"

	"github.com/sealgate/sealgate/internal/campaign"
	"github.com/sealgate/sealgate/internal/coverage/reach"
)

var reachCmd = &command{
	name:  "reach",
	usage: "reach [flags] [DIR...]",
	short: "fail when the fixed-input tests never execute an exported\nfunction of gate or wire (or of DIR...)",
	long: `Lists every exported function and method of the packages in DIR... (default gate
and wire), read from their source, that the fixed-input test layers never execute,
as file:line and name, and exits 1 when there is one. Without -profile it runs the
layers itself with go test -coverpkg over those packages (gate, wire and check
tests; the corpus replay: docs/suite.md says why these); with -profile it reads
coverage profiles made earlier instead.
`,
	flags: reachFlags,
}

func reachFlags(fs *flag.FlagSet) func(args []string, stdout, stderr io.Writer) int {
	profiles := fs.String("profile", "", "comma-separated go test coverage profiles to read instead of running the layers")
	return func(args []string, stdout, stderr io.Writer) int {
		root, err := campaign.ModuleRoot(".")
		if err != nil {
			fmt.Fprintf(stderr, "sealfuzz reach: %v\n", err)
			return 2
		}
		c := reach.Command{Root: root, Dirs: args, Layers: reach.FixedInput}
		if len(c.Dirs) == 0 {
			c.Dirs = []string{"gate", "wire"}
		}
		if *profiles != "" {
			c.Profiles = strings.Split(*profiles, ",")
		}
		n, err := c.Run(stdout, stderr)
		if err != nil {
			fmt.Fprintf(stderr, "sealfuzz reach: %v\n", err)
			return 2
		}
		if n > 0 {
			return 1
		}
		return 0
	}
}
