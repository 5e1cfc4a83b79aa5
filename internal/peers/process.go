package peers

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os/exec"
	"strings"
	"sync"
	"time"

	"github.com/sealgate/sealgate"
	"github.com/sealgate/sealgate/gate"
	"github.com/sealgate/sealgate/wire"
)

// Process is a running peer process (child.go has the protocol): the
// idioms it said hello with, run one at a time. A child that dies or stops
// answering is a failure of the peer it was running, and is started again
// for the next run.
type Process struct {
	Name    string
	Runtime string // what the child runs on, e.g. "go1.26.8" or "node v20.20.2"
	argv    []string
	dir     string
	peers   []*Peer

	cmd    *exec.Cmd
	stdin  io.WriteCloser
	lines  chan []byte // the child's stdout, a line at a time; closed when it ends
	stderr *tailWriter
	runs   int // requests sent, which numbers them
}

// replyGrace is how much longer than the run's own limit the parent waits
// for an answer before it takes the child for hung and kills it.
var replyGrace = 10 * time.Second

// StartProcess starts argv in dir and reads its hello.
func StartProcess(name, dir string, argv ...string) (*Process, error) {
	pr := &Process{Name: name, argv: argv, dir: dir}
	h, err := pr.start()
	if err != nil {
		return nil, err
	}
	pr.Runtime = h.Runtime
	for _, ph := range h.Peers {
		proto, err := wire.ParseProtocol(ph.Protocol)
		if err != nil {
			pr.Close()
			return nil, fmt.Errorf("peer process %s: peer %q: %w", name, ph.Name, err)
		}
		if ph.Name == "" {
			pr.Close()
			return nil, fmt.Errorf("peer process %s: a peer with no name", name)
		}
		pr.peers = append(pr.peers, &Peer{Name: ph.Name, Module: ph.Module, Idiom: ph.Idiom, Docs: ph.Docs,
			Protocol: proto, Control: ph.Control, process: pr, version: ph.Version})
	}
	if len(pr.peers) == 0 {
		pr.Close()
		return nil, fmt.Errorf("peer process %s: its hello names no peer", name)
	}
	return pr, nil
}

// Peers are the idioms the process runs.
func (pr *Process) Peers() []*Peer { return pr.peers }

// Close ends the child: its input closes, and it is killed if it lingers.
func (pr *Process) Close() error {
	if pr.cmd == nil {
		return nil
	}
	pr.stdin.Close()
	done := make(chan error, 1)
	go func() { done <- pr.cmd.Wait() }()
	var err error
	select {
	case err = <-done:
	case <-time.After(5 * time.Second):
		pr.cmd.Process.Kill()
		err = <-done
	}
	pr.cmd = nil
	return err
}

func (pr *Process) start() (hello, error) {
	cmd := exec.Command(pr.argv[0], pr.argv[1:]...)
	cmd.Dir = pr.dir
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return hello{}, err
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return hello{}, err
	}
	pr.stderr = &tailWriter{max: 4096}
	cmd.Stderr = pr.stderr
	if err := cmd.Start(); err != nil {
		return hello{}, fmt.Errorf("peer process %s: %w", pr.Name, err)
	}
	pr.cmd, pr.stdin, pr.lines = cmd, stdin, make(chan []byte)
	go readLines(stdout, pr.lines)
	line, ok := <-pr.lines
	var h helloLine
	if !ok || json.Unmarshal(line, &h) != nil || h.Hello == nil {
		pr.Close()
		return hello{}, fmt.Errorf("peer process %s: no hello line (first output %q); stderr: %s", pr.Name, firstLines(string(line), 3), pr.stderr.String())
	}
	return *h.Hello, nil
}

// readLines sends the child's stdout a line at a time; a line longer than
// maxLine ends the stream, as does the child's end.
func readLines(r io.Reader, lines chan<- []byte) {
	defer close(lines)
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64<<10), maxLine)
	for sc.Scan() {
		lines <- append([]byte(nil), sc.Bytes()...)
	}
	io.Copy(io.Discard, r)
}

// run sends one body to the child and waits for its answer. A child that
// dies is a crash of the peer, one that does not answer is a hang; either
// way the next run starts a new child.
func (pr *Process) run(p *Peer, body Body, cfg sealgate.Config, followUp []byte) (Record, error) {
	if pr.cmd == nil {
		if _, err := pr.start(); err != nil {
			return Record{}, err
		}
	}
	pr.runs++
	req := request{Run: pr.runs, Peer: p.Name, Events: body.Events, Reset: body.Reset, FollowUp: followUp,
		TimeoutMs: int(runTimeout / time.Millisecond)}
	for _, t := range cfg.Tools {
		req.Tools = append(req.Tools, t.Name)
	}
	line, err := json.Marshal(req)
	if err != nil {
		return Record{}, err
	}
	if _, err := pr.stdin.Write(append(line, '\n')); err != nil {
		return pr.lost(fmt.Sprintf("the peer process took no input: %v", err)), nil
	}
	timer := time.NewTimer(runTimeout + replyGrace)
	defer timer.Stop()
	for {
		select {
		case line, ok := <-pr.lines:
			if !ok {
				return pr.lost("the peer process exited"), nil
			}
			var rp reply
			if err := json.Unmarshal(line, &rp); err != nil {
				return pr.lost(fmt.Sprintf("the peer process wrote a line that is not JSON: %q", firstLines(string(line), 1))), nil
			}
			if rp.Run != pr.runs {
				continue // an answer to an earlier run that was given up
			}
			rec := fromReply(rp)
			if p.Control {
				rec.Releases = gateReads(p.Protocol, cfg, rec.Reads)
			}
			return rec, nil
		case <-timer.C:
			pr.kill()
			return Record{Hung: true}, nil
		}
	}
}

// lost records a crash of the child with what it last wrote to stderr.
func (pr *Process) lost(what string) Record {
	pr.kill()
	return Record{Crash: fmt.Sprintf("%s; its stderr ends: %s", what, pr.stderr.String())}
}

func (pr *Process) kill() {
	if pr.cmd != nil {
		pr.cmd.Process.Kill()
		pr.Close()
	}
}

// gateReads is the raw control: the bytes the peer process read, decoded
// by wire and gated by the project's gate, each release stamped with the
// read that produced it. It must judge exactly as the Go control does, or
// the process's way of serving the body invents violations.
func gateReads(p wire.Protocol, cfg sealgate.Config, reads []rawRead) []Stamped {
	g, err := gate.New(cfg, gate.NewMemoryLedger())
	if err != nil {
		return nil
	}
	rr := &readsReader{reads: reads}
	var out []Stamped
	wire.DecodeFunc(p, rr, wire.Options{Turn: Turn}, func(ev sealgate.Event) error {
		ds, err := g.Feed(ev)
		for _, d := range ds {
			if d.Kind == sealgate.Release {
				out = append(out, Stamped{Release: Release{Attempt: d.Attempt, Item: d.Item, Call: d.Call, Tool: d.Tool,
					Args: d.Args, Key: d.Key}, Delivered: rr.delivered, EOF: rr.eof})
			}
		}
		return err
	})
	return out
}

// readsReader hands wire the raw reads one at a time, remembering the
// stamp of the read in progress.
type readsReader struct {
	reads     []rawRead
	rest      []byte
	delivered int
	eof       bool
}

func (r *readsReader) Read(p []byte) (int, error) {
	for len(r.rest) == 0 {
		if len(r.reads) == 0 {
			r.eof = true
			return 0, io.EOF
		}
		rd := r.reads[0]
		r.reads = r.reads[1:]
		r.rest, r.delivered, r.eof = rd.Bytes, rd.Delivered, rd.EOF
	}
	n := copy(p, r.rest)
	r.rest = r.rest[n:]
	return n, nil
}

// tailWriter keeps the last max bytes written to it.
type tailWriter struct {
	mu  sync.Mutex
	max int
	buf []byte
}

func (t *tailWriter) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.buf = append(t.buf, p...)
	if len(t.buf) > t.max {
		t.buf = t.buf[len(t.buf)-t.max:]
	}
	return len(p), nil
}

func (t *tailWriter) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	s := strings.TrimSpace(string(bytes.ToValidUTF8(t.buf, []byte("?"))))
	if s == "" {
		return "(nothing)"
	}
	return s
}
