package main

import (
	"fmt"
	"hash/fnv"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/sealgate/sealgate/check"
	"github.com/sealgate/sealgate/internal/fuzzkit"
	"github.com/sealgate/sealgate/internal/gen"
	"github.com/sealgate/sealgate/internal/machine"
	"github.com/sealgate/sealgate/internal/peers"
	"github.com/sealgate/sealgate/scn"
)

const peersUsage = `usage:
  sealfuzz peers [flags]
      put every peer (the official SDKs' tool-call idioms, and the project's gate as the
      control) under the corpus, N rapid-machine streams, and generated streams (gofuzz
      decoding and machine bitstreams drawn from the seed) for the -for budget; reduce each
      distinct violation to a minimal vendor body; write DIR/README.md, DIR/peers.png and,
      per violation, DIR/PEER-INVARIANT.sse and .scn
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
	corpus := fs.String("corpus", "corpus", "scenario folder (\"\" for none)")
	out := fs.String("out", filepath.Join("docs", "peers"), "where the report goes (\"\" for none)")
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
		return peersReplay(*replay, stdout, stderr)
	}
	all := peers.All()
	if *only != "" {
		all = nil
		for _, n := range strings.Split(*only, ",") {
			p, ok := peers.Lookup(strings.TrimSpace(n))
			if !ok {
				fmt.Fprintf(stderr, "sealfuzz peers: no peer %q (see -list)\n", n)
				return 2
			}
			all = append(all, p)
		}
	}
	r := peers.NewRunner()
	defer r.Close()
	h := peers.NewHunt(r, all)
	start := time.Now()

	if *corpus != "" {
		files, err := scn.Files(*corpus)
		if err != nil {
			fmt.Fprintf(stderr, "sealfuzz peers: %v\n", err)
			return 2
		}
		h.Start("corpus")
		for _, f := range files {
			s, err := scn.ParseFile(f)
			if err != nil {
				fmt.Fprintf(stderr, "sealfuzz peers: %v\n", err)
				return 2
			}
			for _, fault := range []peers.Fault{{}, faultFor(f)} {
				h.Try(peers.Input{Source: "corpus", Name: f, Events: s.Events, Fault: fault})
			}
		}
		fmt.Fprintf(stdout, "corpus: %d files, %s\n", len(files), time.Since(start).Round(time.Millisecond))
	}

	rng := rand.New(rand.NewPCG(*seed, 0x5ea19a7e))
	h.Start("machine")
	t := time.Now()
	for i := 0; i < *machineN; i++ {
		tryMachine(h, rng, "machine", i)
	}
	fmt.Fprintf(stdout, "machine: %d streams, %s\n", *machineN, time.Since(t).Round(time.Millisecond))

	h.Start("generated")
	t = time.Now()
	deadline := t.Add(*budget)
	n := 0
	for ; time.Now().Before(deadline); n++ {
		if n%2 == 0 {
			data := make([]byte, rng.IntN(512))
			for j := range data {
				data[j] = byte(rng.Uint32())
			}
			_, evs := gen.FromBytes(data)
			h.Try(peers.Input{Source: "generated", Name: fmt.Sprintf("gofuzz seed=%d #%d", *seed, n), Events: evs, Fault: drawFault(rng)})
		} else {
			tryMachine(h, rng, "generated", n)
		}
	}
	fmt.Fprintf(stdout, "generated: %d streams, %s\n", n, time.Since(t).Round(time.Millisecond))

	t = time.Now()
	if err := h.Reduce(*tries); err != nil {
		fmt.Fprintf(stderr, "sealfuzz peers: reduce: %v\n", err)
	}
	fmt.Fprintf(stdout, "reduced %d violations, %s\n", len(h.Findings), time.Since(t).Round(time.Millisecond))
	for _, f := range h.Failures {
		fmt.Fprintf(stderr, "sealfuzz peers: %v\n", f)
	}
	rep := &peersReport{h: h, seed: *seed, budget: *budget, machine: *machineN, elapsed: time.Since(start)}
	for _, f := range h.Sorted() {
		fmt.Fprintf(stdout, "%-34s %-5s %6d  %s\n", f.Peer.Name, f.ID, f.Count, firstLine(f.Err.Error()))
	}
	if *out != "" {
		if err := rep.write(*out); err != nil {
			fmt.Fprintf(stderr, "sealfuzz peers: %v\n", err)
			return 1
		}
		fmt.Fprintf(stdout, "wrote %s\n", *out)
	}
	v, c, p, control := h.Violations()
	fmt.Fprintf(stdout, "peers: %d violations in %d idioms of %d peers; control: %d\n", v, c, p, control)
	if control > 0 || len(h.Failures) > 0 {
		return 1
	}
	return 0
}

// tryMachine runs one rapid-machine stream drawn from rng against every
// peer: the machine's events (whatever its own checks said about them),
// with a drawn fault.
func tryMachine(h *peers.Hunt, rng *rand.Rand, source string, i int) {
	bits := make([]byte, 64+rng.IntN(fuzzkit.MachineSeedBytes/8))
	for j := range bits {
		bits[j] = byte(rng.Uint32())
	}
	f, err := machine.Replay(check.Default, bits)
	if err != nil || f == nil {
		return
	}
	h.Try(peers.Input{Source: source, Name: fmt.Sprintf("machine #%d", i), Events: f.Events, Fault: drawFault(rng)})
}

// drawFault picks no fault half the time, else one of each kind.
func drawFault(rng *rand.Rand) peers.Fault {
	if rng.IntN(2) == 0 {
		return peers.Fault{}
	}
	return peers.Fault{Kind: peers.FaultKind(1 + rng.IntN(int(peers.FaultKinds)-1)), At: rng.IntN(64)}
}

// faultFor is the fault a corpus file is tried with besides none, fixed by
// its name so that runs compare.
func faultFor(name string) peers.Fault {
	h := fnv.New64a()
	h.Write([]byte(name))
	x := h.Sum64()
	return peers.Fault{Kind: peers.FaultKind(1 + x%uint64(peers.FaultKinds-1)), At: int(x >> 8 % 64)}
}

// peersReplay serves a stored body to the peer its header names.
func peersReplay(path string, stdout, stderr io.Writer) int {
	src, err := os.ReadFile(path)
	if err != nil {
		fmt.Fprintf(stderr, "sealfuzz peers: %v\n", err)
		return 2
	}
	hdr, body := peers.ParseStored(src)
	p, ok := peers.Lookup(hdr.Peer)
	if !ok {
		fmt.Fprintf(stderr, "sealfuzz peers: %s: header names no known peer (%q); see -list\n", path, hdr.Peer)
		return 2
	}
	r := peers.NewRunner()
	defer r.Close()
	b := peers.Body{Protocol: p.Protocol, Events: peers.SplitEvents(body), Reset: hdr.Reset}
	out, err := r.Run(p, b)
	if err != nil {
		fmt.Fprintf(stderr, "sealfuzz peers: %v\n", err)
		return 1
	}
	fmt.Fprintf(stdout, "# %s (%s %s): %s\n", p.Name, p.Module, p.Version(), p.Idiom)
	for _, e := range out.Meaning.Events {
		fmt.Fprintln(stdout, e)
	}
	fmt.Fprintln(stdout, scn.Separator)
	stdout.Write(scn.FormatDecisions(out.Releases))
	v := peers.Judge(out)
	switch {
	case v == nil:
		fmt.Fprintf(stdout, "no violation\n")
	default:
		fmt.Fprintf(stdout, "violation: %v\n", v)
	}
	if hdr.Violation == "" {
		if v != nil {
			return 1
		}
		return 0
	}
	if v != nil && peers.Class(v) == hdr.Violation {
		fmt.Fprintf(stdout, "reproduced %s\n", hdr.Violation)
		return 0
	}
	fmt.Fprintf(stderr, "sealfuzz peers: %s: stored violation %s did not reproduce\n", path, hdr.Violation)
	return 1
}
