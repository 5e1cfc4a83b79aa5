package peers

import (
	"fmt"
	"io"
	"os"

	"github.com/sealgate/sealgate/scn"
)

// ReplayFile serves a stored body (.sse) to the peer of set its header names and
// judges it again, printing what the peer released; it returns the exit
// code of `sealfuzz peers -replay`: 0 when the stored violation reproduces
// (or, for a body that names none, when there is no violation), 1 when it
// does not, 2 for a file that cannot be replayed.
func ReplayFile(path string, set *Set, stdout, stderr io.Writer) int {
	src, err := os.ReadFile(path)
	if err != nil {
		fmt.Fprintf(stderr, "sealfuzz peers: %v\n", err)
		return 2
	}
	hdr, body := ParseStored(src)
	p, ok := set.Lookup(hdr.Peer)
	if !ok {
		fmt.Fprintf(stderr, "sealfuzz peers: %s: header names no known peer (%q); see -list\n", path, hdr.Peer)
		return 2
	}
	r := NewRunner()
	defer r.Close()
	b := Body{Protocol: p.Protocol, Events: SplitEvents(body), Reset: hdr.Reset}
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
	v := Judge(out)
	if v == nil {
		fmt.Fprintf(stdout, "no violation\n")
	} else {
		fmt.Fprintf(stdout, "violation: %v\n", v)
	}
	if hdr.Violation == "" {
		if v != nil {
			return 1
		}
		return 0
	}
	if v != nil && Class(v) == hdr.Violation {
		fmt.Fprintf(stdout, "reproduced %s\n", hdr.Violation)
		return 0
	}
	fmt.Fprintf(stderr, "sealfuzz peers: %s: stored violation %s did not reproduce\n", path, hdr.Violation)
	return 1
}
