package main

import (
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/sealgate/sealgate/internal/peers"
)

// TestPeersCommand runs a short `sealfuzz peers` (no corpus, a few machine
// streams, one second of generated streams), then replays every body it
// wrote: each must reproduce its violation, and the last line is the
// summary in its exact form.
func TestPeersCommand(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the SDKs for a few seconds")
	}
	dir, bodiesDir := t.TempDir(), t.TempDir()
	var out, errb bytes.Buffer
	// the peers of this process: the peer processes have their own tests
	var names []string
	for _, p := range peers.All() {
		names = append(names, p.Name)
	}
	code := run([]string{"peers", "-peers", strings.Join(names, ","), "-for", "1s", "-machine", "20", "-corpus", "", "-tries", "300", "-out", dir, "-bodies", bodiesDir}, &out, &errb)
	if code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, out.String(), errb.String())
	}
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	last := lines[len(lines)-1]
	if !strings.HasPrefix(last, "peers: ") || !strings.HasSuffix(last, "; control: 0") || !strings.Contains(last, " violations in ") {
		t.Fatalf("last line %q", last)
	}
	for _, f := range []string{"README.md", "peers.png"} {
		if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
			t.Fatal(err)
		}
	}
	bodies, _ := filepath.Glob(filepath.Join(bodiesDir, "*.sse"))
	if len(bodies) == 0 {
		t.Fatalf("no violation body written:\n%s", out.String())
	}
	for _, b := range bodies {
		var o, e bytes.Buffer
		if code := run([]string{"peers", "-replay", b}, &o, &e); code != 0 {
			t.Errorf("replay %s: exit %d\n%s%s", b, code, o.String(), e.String())
		}
		if _, err := os.Stat(strings.TrimSuffix(b, ".sse") + ".scn"); err != nil {
			t.Error(err)
		}
	}
	// The report links each body where it was written.
	readme, err := os.ReadFile(filepath.Join(dir, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	links := regexp.MustCompile(`\]\(([^)]+\.sse)\)`).FindAllSubmatch(readme, -1)
	if len(links) != len(bodies) {
		t.Fatalf("the report links %d bodies, %d were written", len(links), len(bodies))
	}
	for _, l := range links {
		if _, err := os.Stat(filepath.Join(dir, filepath.FromSlash(string(l[1])))); err != nil {
			t.Errorf("the report's link %s: %v", l[1], err)
		}
	}
}

// TestPeersReplayStale: a body whose stored violation does not reproduce
// fails its replay, so a stale report is noticed.
func TestPeersReplayStale(t *testing.T) {
	f := filepath.Join(t.TempDir(), "x.sse")
	body := ": peer=anthropic/careful\n: violation=I2\n" +
		"event: message_start\ndata: {\"type\":\"message_start\",\"message\":{\"id\":\"r1\",\"type\":\"message\",\"role\":\"assistant\",\"content\":[],\"stop_reason\":null,\"stop_sequence\":null}}\n\n" +
		"event: message_delta\ndata: {\"type\":\"message_delta\",\"delta\":{\"stop_reason\":\"end_turn\",\"stop_sequence\":null},\"usage\":{\"output_tokens\":1}}\n\n" +
		"event: message_stop\ndata: {\"type\":\"message_stop\"}\n\n"
	if err := os.WriteFile(f, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	var o, e bytes.Buffer
	if code := run([]string{"peers", "-replay", f}, &o, &e); code != 1 || !strings.Contains(e.String(), "did not reproduce") {
		t.Fatalf("exit %d\n%s%s", code, o.String(), e.String())
	}
	if code := run([]string{"peers", "-h"}, &o, &e); code != 0 {
		t.Fatalf("-h: exit %d", code)
	}
}

// TestStoredPeerBodiesReplay: every body committed under corpus/peers for
// an in-process peer reproduces its violation on this checkout through the
// command; the bodies of peer processes are replayed by their own tests
// (internal/peers's TestJSStoredBodiesReproduce, the nested modules').
func TestStoredPeerBodiesReplay(t *testing.T) {
	bodies, _ := filepath.Glob(filepath.Join("..", "..", "corpus", "peers", "*.sse"))
	n := 0
	defer func() {
		if n < 10 {
			t.Errorf("only %d stored bodies of in-process peers", n)
		}
	}()
	for _, b := range bodies {
		src, err := os.ReadFile(b)
		if err != nil {
			t.Fatal(err)
		}
		if h, _ := peers.ParseStored(src); !inProcess(h.Peer) {
			continue
		}
		n++
		var o, e bytes.Buffer
		if code := run([]string{"peers", "-replay", b}, &o, &e); code != 0 {
			t.Errorf("replay %s: exit %d\n%s%s", b, code, o.String(), e.String())
		}
	}
}

func inProcess(name string) bool {
	_, ok := peers.Lookup(name)
	return ok
}
