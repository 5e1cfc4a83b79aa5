package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/sealgate/sealgate/internal/peers"
	"github.com/sealgate/sealgate/internal/trial"
)

const peersUsage = `usage:
  sealfuzz peers [flags]
      put every peer (the tool-call idioms of the official SDKs and the agent frameworks,
      in Go and in JavaScript, and the project's gate as the control) under the corpus, N rapid-machine streams, and generated streams (gofuzz
      decoding and machine bitstreams drawn from the seed) for the -for budget; reduce each
      distinct violation to a minimal vendor body; write OUT/README.md, OUT/peers.png and,
      per violation, the replay inputs BODIES/PEER-INVARIANT.sse and .scn; the idioms outside
      this module run in peer processes: Go's are built from the tree, JavaScript's need
      node and "npm ci" in internal/peers/js (without them the run says so; with CI=true it fails)
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
	only := fs.String("peers", "go,js", "comma-separated groups (go: the Go SDKs and frameworks; js: the JavaScript SDKs) or peer names")
	replay := fs.String("replay", "", "replay one stored .sse body")
	list := fs.Bool("list", false, "list the peers")
	if done, code := parseFlags(fs, args, stdout, stderr); done {
		return code
	}
	if *replay != "" {
		if p, ok := peers.Lookup(storedPeer(*replay)); ok {
			// a body of an in-process peer needs no peer process
			return peers.ReplayFile(*replay, &peers.Set{Peers: []*peers.Peer{p}}, stdout, stderr)
		}
	}
	set, code := openPeers(*only, stderr)
	if set == nil {
		return code
	}
	defer set.Close()
	if *list {
		for _, p := range set.Peers {
			fmt.Fprintf(stdout, "%-34s %s %s\n    %s\n", p.Name, p.Module, p.Version(), p.Idiom)
		}
		return 0
	}
	if *replay != "" {
		return peers.ReplayFile(*replay, set, stdout, stderr)
	}
	chosen, code := choosePeers(set, *only, stderr)
	if chosen == nil {
		return code
	}
	return peers.Campaign{Peers: chosen, Corpus: *corpus, Seed: *seed, Machine: *machineN, Budget: *budget,
		Tries: *tries, Report: *out, Bodies: *bodies}.Run(stdout, stderr)
}

// openPeers starts the peer groups -peers names (every group when it names
// only peers), saying in one line what could not start; with CI=true that
// fails the run instead.
func openPeers(only string, stderr io.Writer) (*peers.Set, int) {
	var groups []string
	inProcess := true // every name is a peer of this process: no peer process to start
	for _, n := range strings.Split(only, ",") {
		n = strings.TrimSpace(n)
		if slices.Contains(peers.Groups, n) {
			groups = append(groups, n)
		} else if _, ok := peers.Lookup(n); !ok && n != "" {
			inProcess = false
		}
	}
	if len(groups) == 0 {
		if inProcess {
			return &peers.Set{Peers: peers.All()}, 0
		}
		groups = peers.Groups
	}
	root, err := peers.RepoRoot(".")
	if err != nil {
		fmt.Fprintf(stderr, "sealfuzz peers: %v\n", err)
		return nil, 2
	}
	tmp, err := os.MkdirTemp("", "sealfuzz-peers-")
	if err != nil {
		fmt.Fprintf(stderr, "sealfuzz peers: %v\n", err)
		return nil, 1
	}
	strict := os.Getenv("CI") == "true"
	set, err := peers.Open(root, groups, tmp, strict)
	if err != nil {
		fmt.Fprintf(stderr, "sealfuzz peers: %v\n", err)
		return nil, 1
	}
	for _, why := range set.Skipped {
		fmt.Fprintf(stderr, "sealfuzz peers: skipped: %s\n", firstLineOf(why))
	}
	return set, 0
}

// choosePeers is every peer of the groups -peers names, plus the peers it
// names one by one.
func choosePeers(set *peers.Set, only string, stderr io.Writer) ([]*peers.Peer, int) {
	var chosen []*peers.Peer
	byName := false
	for _, n := range strings.Split(only, ",") {
		if n = strings.TrimSpace(n); n == "" || slices.Contains(peers.Groups, n) {
			continue
		}
		byName = true
		p, ok := set.Lookup(n)
		if !ok {
			fmt.Fprintf(stderr, "sealfuzz peers: no peer %q (see -list)\n", n)
			return nil, 2
		}
		chosen = append(chosen, p)
	}
	if !byName {
		return set.Peers, 0
	}
	return chosen, 0
}

func firstLineOf(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i]
	}
	return s
}

// storedPeer is the peer a stored body's header names, or "".
func storedPeer(path string) string {
	src, err := os.ReadFile(path)
	if err != nil {
		return "" // ReplayFile says what is wrong with the file
	}
	h, _ := peers.ParseStored(src)
	return h.Peer
}
