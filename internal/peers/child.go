package peers

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"runtime"
	"time"
)

// The peer-process protocol: JSON lines between the suite (the parent) and
// a process that runs idioms whose code cannot live in the suite's module
// (Go frameworks, other SDK versions, JavaScript). The child says hello
// once, then answers one request at a time; what a run means stays with the
// parent, which decodes the body with wire and judges the releases.

// helloLine is the child's first line.
type helloLine struct {
	Hello *hello `json:"hello"`
}

type hello struct {
	Runtime string      `json:"runtime"`
	Peers   []peerHello `json:"peers"`
}

type peerHello struct {
	Name     string `json:"name"`
	Module   string `json:"module"`
	Version  string `json:"version"`
	Protocol string `json:"protocol"`
	Idiom    string `json:"idiom"`
	Docs     string `json:"docs"`
	Control  bool   `json:"control"` // it must show no violation (the project's gate behind an SDK or framework)
	Raw      bool   `json:"raw"`     // it returns the bytes it read (reads), for the parent to gate with the project's gate
}

// request is one run: the body's SSE events after the fault (the last may
// be cut inside), whether the connection then breaks, and the body any
// later request of the run gets.
type request struct {
	Run       int      `json:"run"`
	Peer      string   `json:"peer"`
	Events    [][]byte `json:"events"` // base64 in JSON
	Reset     bool     `json:"reset"`
	FollowUp  []byte   `json:"followUp"`
	Tools     []string `json:"tools"`
	TimeoutMs int      `json:"timeoutMs"`
}

// reply is what the idiom did in one run.
type reply struct {
	Run        int         `json:"run"`
	Executions []execution `json:"executions"`
	Error      string      `json:"error"`
	Crash      string      `json:"crash"`
	Hung       bool        `json:"hung"`
	Delivered  int         `json:"delivered"`
	EOF        bool        `json:"eof"`
	Reads      []rawRead   `json:"reads,omitempty"`
}

type execution struct {
	Tool      string `json:"tool"`
	Call      string `json:"call"`
	Args      string `json:"args"`
	Object    bool   `json:"object"`
	Attempt   string `json:"attempt"`
	Item      string `json:"item"`
	Delivered int    `json:"delivered"`
	EOF       bool   `json:"eof"`
}

// rawRead is one read of the body by the raw control idiom, stamped.
type rawRead struct {
	Bytes     []byte `json:"bytes"`
	Delivered int    `json:"delivered"`
	EOF       bool   `json:"eof"`
}

// maxLine bounds one protocol line, so that a broken peer cannot make the
// parent allocate without limit.
const maxLine = 64 << 20

// ServeProcess is the main loop of a Go peer process: it says hello with
// the peers, then serves each request's body on its own loopback server one
// SSE event per read and answers with what the idiom executed. It returns
// the process's exit code: 0 when the parent closed its input.
func ServeProcess(in io.Reader, out io.Writer, peers []*Peer) int {
	byName := map[string]*Peer{}
	h := hello{Runtime: runtime.Version()}
	for _, p := range peers {
		byName[p.Name] = p
		h.Peers = append(h.Peers, peerHello{Name: p.Name, Module: p.Module, Version: p.Version(),
			Protocol: string(p.Protocol), Idiom: p.Idiom, Docs: p.Docs, Control: p.Control})
	}
	enc := json.NewEncoder(out)
	if err := enc.Encode(helloLine{Hello: &h}); err != nil {
		return 1
	}
	r := NewRunner()
	defer r.Close()
	sc := bufio.NewScanner(in)
	sc.Buffer(make([]byte, 0, 64<<10), maxLine)
	for sc.Scan() {
		var req request
		if err := json.Unmarshal(sc.Bytes(), &req); err != nil {
			enc.Encode(reply{Crash: fmt.Sprintf("peer process: a request that is not JSON: %v", err)})
			continue
		}
		p, ok := byName[req.Peer]
		if !ok {
			enc.Encode(reply{Run: req.Run, Crash: fmt.Sprintf("peer process: no peer %q", req.Peer)})
			continue
		}
		if req.TimeoutMs > 0 {
			runTimeout = time.Duration(req.TimeoutMs) * time.Millisecond
		}
		body := Body{Protocol: p.Protocol, Events: req.Events, Reset: req.Reset}
		rec := r.record(p, body, toolsConfig(req.Tools), req.FollowUp)
		if err := enc.Encode(toReply(req.Run, rec)); err != nil {
			return 1
		}
	}
	if err := sc.Err(); err != nil {
		return 1
	}
	return 0
}

func toReply(run int, rec Record) reply {
	rp := reply{Run: run, Error: rec.SDKErr, Crash: rec.Crash, Hung: rec.Hung, Delivered: rec.Delivered, EOF: rec.EOF}
	for _, s := range rec.Releases {
		rp.Executions = append(rp.Executions, execution{Tool: s.Tool, Call: s.Call, Args: string(s.Args),
			Object: s.Object, Attempt: s.Attempt, Item: s.Item, Delivered: s.Delivered, EOF: s.EOF})
	}
	return rp
}

func fromReply(rp reply) Record {
	rec := Record{SDKErr: rp.Error, Crash: rp.Crash, Hung: rp.Hung, Delivered: rp.Delivered, EOF: rp.EOF, Reads: rp.Reads}
	for _, e := range rp.Executions {
		rec.Releases = append(rec.Releases, Stamped{Release: Release{Attempt: e.Attempt, Item: e.Item, Call: e.Call,
			Tool: e.Tool, Args: []byte(e.Args), Object: e.Object}, Delivered: e.Delivered, EOF: e.EOF})
	}
	return rec
}
