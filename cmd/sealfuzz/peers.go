package main

import (
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"time"

	"github.com/sealgate/sealgate/internal/peers"
	"github.com/sealgate/sealgate/internal/trial"
)

const peersUsage = `usage:
  sealfuzz peers [flags]
      put every peer (the official SDKs' tool-call idioms, and the project's gate as the
      control) under the corpus, N rapid-machine streams, and generated streams (gofuzz
      decoding and machine bitstreams drawn from the seed) for the -for budget; reduce each
      distinct violation to a minimal vendor body; write OUT/README.md, OUT/peers.png and,
      per violation, the replay inputs BODIES/PEER-INVARIANT.sse and .scn
  sealfuzz peers -replay FILE.sse
      serve a stored body to the peer its header names and judge it again: exit 0 when
      the stored violation reproduces, 1 otherwise
  sealfuzz peers -list
      list the peers, their SDK versions and idioms
`

func peersMain(args []string, stdout, stderr io.Writer) int {
	fs := newFlagSet("peers", peersUsage, stderr)
	budget := fs.Duration("for", 20*time.Second, "time budget of generated streams")
	seed := fs.Uint64("seed", 1, "seed of the machine and generated streams")
	machineN := fs.Int("machine", 200, "rapid-machine streams")
	corpus := fs.String("corpus", trial.Embedded, "scenario folder (\""+trial.Embedded+"\": the corpus built into sealfuzz; \"\" for none)")
	out := fs.String("out", filepath.Join("docs", "research", "peers"), "where the report goes (\"\" for none)")
	bodies := fs.String("bodies", filepath.Join("corpus", "peers"), "where the replay inputs go (\"\" for none)")
	tries := fs.Int("tries", 5000, "reducer candidates per violation")
	only := fs.String("peers", "", "comma-separated peer names (default: all)")
	replay := fs.String("replay", "", "replay one stored .sse body")
	list := fs.Bool("list", false, "list the peers")
	if done, code := parseFlags(fs, args, stdout, stderr); done {
		return code
	}
	if *list {
		for _, p := range peers.All() {
			fmt.Fprintf(stdout, "%-34s %s %s\n    %s\n", p.Name, p.Module, p.Version(), p.Idiom)
		}
		return 0
	}
	if *replay != "" {
		return peers.ReplayFile(*replay, stdout, stderr)
	}
	var chosen []*peers.Peer
	if *only != "" {
		for _, n := range strings.Split(*only, ",") {
			p, ok := peers.Lookup(strings.TrimSpace(n))
			if !ok {
				fmt.Fprintf(stderr, "sealfuzz peers: no peer %q (see -list)\n", n)
				return 2
			}
			chosen = append(chosen, p)
		}
	}
	return peers.Campaign{Peers: chosen, Corpus: *corpus, Seed: *seed, Machine: *machineN, Budget: *budget,
		Tries: *tries, Report: *out, Bodies: *bodies}.Run(stdout, stderr)
}
