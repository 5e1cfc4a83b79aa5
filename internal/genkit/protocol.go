package main

// The peer-process protocol of `sealfuzz peers` (the parent's side is
// internal/peers/child.go): JSON lines, a hello first, then one reply per
// request. This module may not import the core (genkit's dependencies do
// not build beside it), so the line types are written out here with the
// same JSON names and types; internal/peers' tests compare them with
// child.go's field by field and run this process.

// helloLine is the process's first line.
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
	Control  bool   `json:"control"`
	Raw      bool   `json:"raw"`
}

// request is one run: the body's SSE events after the fault (the last may
// be cut inside), whether the connection then breaks, the body any later
// request of the run gets, the tools the body calls and the time limit.
type request struct {
	Run       int      `json:"run"`
	Peer      string   `json:"peer"`
	Events    [][]byte `json:"events"`
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

// execution is one tool run, stamped with how far into the body the
// framework had read when it ran the tool.
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

// rawRead is one read of the body by the raw control, stamped.
type rawRead struct {
	Bytes     []byte `json:"bytes"`
	Delivered int    `json:"delivered"`
	EOF       bool   `json:"eof"`
}

// maxLine bounds one request line, so that a broken parent cannot make
// this process allocate without limit.
const maxLine = 64 << 20
