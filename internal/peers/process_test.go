package peers

import (
	"context"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/sealgate/sealgate/check"
	"github.com/sealgate/sealgate/scn"
	"github.com/sealgate/sealgate/wire"
)

// childEnv makes the test binary a Go peer process (see TestMain).
const childEnv = "SEALGATE_PEERS_TEST_CHILD"

// childPeers are what the test binary serves as a peer process: the SDK
// idioms, and idioms that fail in each way a peer can.
func childPeers() []*Peer {
	readAll := func(ctx context.Context, c Conn) error {
		req, err := http.NewRequestWithContext(ctx, http.MethodPost, c.BaseURL+"/v1/chat/completions", strings.NewReader("{}"))
		if err != nil {
			return err
		}
		resp, err := c.HTTP.Do(req)
		if err != nil {
			return err
		}
		defer resp.Body.Close()
		_, err = io.Copy(io.Discard, resp.Body)
		return err
	}
	return append(SDKPeers(),
		&Peer{Name: "test/panic", Protocol: wire.OpenAIChat, Drive: func(ctx context.Context, c Conn, emit func(Release)) error {
			readAll(ctx, c)
			panic("the idiom broke")
		}},
		&Peer{Name: "test/exit", Protocol: wire.OpenAIChat, Drive: func(ctx context.Context, c Conn, emit func(Release)) error {
			readAll(ctx, c)
			os.Stderr.WriteString("leaving now\n")
			os.Exit(3)
			return nil
		}},
		&Peer{Name: "test/hang", Protocol: wire.OpenAIChat, Drive: func(ctx context.Context, c Conn, emit func(Release)) error {
			readAll(ctx, c)
			select {} // ignores its context: only the harness's limit ends it
		}},
		&Peer{Name: "test/error", Protocol: wire.OpenAIChat, Drive: func(ctx context.Context, c Conn, emit func(Release)) error {
			return readAllThenFail(readAll(ctx, c))
		}},
	)
}

func readAllThenFail(err error) error {
	if err != nil {
		return err
	}
	return io.ErrUnexpectedEOF
}

func startChild(t *testing.T) *Process {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	t.Setenv(childEnv, "1")
	pr, err := StartProcess("test", ".", exe)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { pr.Close() })
	return pr
}

func childPeer(t *testing.T, pr *Process, name string) *Peer {
	t.Helper()
	for _, p := range pr.Peers() {
		if p.Name == name {
			return p
		}
	}
	t.Fatalf("the peer process has no %s", name)
	return nil
}

// TestProcessIsInProcess: an idiom run in a peer process releases the same
// calls at the same events, and is judged the same, as in this process, for
// corpus scenarios with and without faults: the protocol adds nothing.
func TestProcessIsInProcess(t *testing.T) {
	pr := startChild(t)
	files, err := scn.Files(filepath.Join("..", "..", "corpus"))
	if err != nil {
		t.Fatal(err)
	}
	runs, findings := 0, 0
	for i, f := range files {
		if i%4 != 0 {
			continue
		}
		s, err := scn.ParseFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, local := range SDKPeers() {
			b, ok := Build(local.Protocol, s.Events, Fault{Kind: FaultKind(i % int(FaultKinds)), At: i})
			if !ok {
				continue
			}
			here := run(t, local, b)
			there := run(t, childPeer(t, pr, local.Name), b)
			runs++
			if err := check.Compare("in process", here.Releases, "peer process", there.Releases); err != nil {
				t.Errorf("%s, %s: %v", f, local.Name, err)
			}
			vh, vt := Judge(here), Judge(there)
			if (vh == nil) != (vt == nil) || vh != nil && Class(vh) != Class(vt) {
				t.Errorf("%s, %s: judged %v in process, %v in the peer process", f, local.Name, vh, vt)
			}
			if vh != nil {
				findings++
			}
		}
	}
	if runs < 50 || findings == 0 {
		t.Fatalf("%d runs, %d with a finding: too few to compare", runs, findings)
	}
}

// TestProcessFailuresAreSubject: a panic, an exit and a hang of the peer are
// SUBJECT findings of that peer, and the next run works.
func TestProcessFailuresAreSubject(t *testing.T) {
	defer func(rt, g time.Duration) { runTimeout, replyGrace = rt, g }(runTimeout, replyGrace)
	runTimeout, replyGrace = 500*time.Millisecond, 2*time.Second
	pr := startChild(t)
	body := build(t, wire.OpenAIChat, oneCall(`{"city":`, `"Paris"}`), Fault{})
	for _, c := range []struct{ peer, class, says string }{
		{"test/panic", "SUBJECT-crash", "the idiom broke"},
		{"test/exit", "SUBJECT-crash", "leaving now"},
		{"test/hang", "SUBJECT-hang", "hung at event"},
		{"test/error", "SUBJECT-error", "unexpected EOF"},
	} {
		out := run(t, childPeer(t, pr, c.peer), body)
		v := Judge(out)
		if v == nil || Class(v) != c.class || !strings.Contains(v.Error(), c.says) {
			t.Errorf("%s: judged %v, want %s saying %q", c.peer, v, c.class, c.says)
		}
		after := run(t, childPeer(t, pr, "openai-chat/careful"), body)
		if len(after.Releases) != 1 || Judge(after) != nil {
			t.Errorf("after %s: the next run released %v (%v), want the one call", c.peer, after.Releases, Judge(after))
		}
	}
	cut := build(t, wire.OpenAIChat, oneCall(`{"city":`, `"Paris"}`), Fault{Kind: CutInside, At: 3})
	if v := Judge(run(t, childPeer(t, pr, "test/error"), cut)); v != nil {
		t.Errorf("an error on a cut body is the SDK doing its job, judged %v", v)
	}
}

// TestGateReadsIsTheControl: the raw control's reads, gated in the parent,
// release what the in-process control releases, at the same events.
func TestGateReadsIsTheControl(t *testing.T) {
	files, err := scn.Files(filepath.Join("..", "..", "corpus"))
	if err != nil {
		t.Fatal(err)
	}
	runs := 0
	for i, f := range files {
		s, err := scn.ParseFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range Controls() {
			b, ok := Build(c.Protocol, s.Events, Fault{Kind: FaultKind(i % int(FaultKinds)), At: i})
			if !ok {
				continue
			}
			want := run(t, c, b)
			var reads []rawRead
			for k, ev := range b.Events {
				reads = append(reads, rawRead{Bytes: ev, Delivered: k + 1})
			}
			m := b.Decode()
			got := place(m, b, Record{Releases: gateReads(c.Protocol, wire.ToolsConfig(m.Events), reads), EOF: true, Delivered: len(b.Events)})
			runs++
			if err := check.Compare("in process", want.Releases, "gated reads", got.Releases); err != nil {
				t.Errorf("%s, %s: %v", f, c.Name, err)
			}
		}
	}
	if runs < len(files) {
		t.Fatalf("only %d runs", runs)
	}
}
