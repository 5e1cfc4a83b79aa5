package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"runtime"
	"runtime/debug"
	"strings"
	"sync"
	"time"
)

// conn is what an idiom gets for one run: where the body is served, a
// client that reads it one event at a time, the tools the body calls, and
// where the raw control puts what it read.
type conn struct {
	BaseURL   string
	HTTP      *http.Client
	Transport http.RoundTripper // the stepped transport, for an SDK that only takes a global one
	Tools     []string
	read      func([]byte)
}

// idiom is one way of using genkit that this process runs: run drives the
// framework over the body and calls exec for every tool execution.
type idiom struct {
	peerHello
	run func(ctx context.Context, c conn, exec func(execution)) error
}

// defaultTimeout bounds a run when the request names no limit.
const defaultTimeout = 20 * time.Second

// hangGrace is how long a run whose time ran out may take to return.
const hangGrace = 2 * time.Second

// serve is the main loop: the hello line with the idioms, then one reply
// per request line. It returns the process's exit code: 0 when the parent
// closed its input.
func serve(in io.Reader, out io.Writer, idioms []*idiom) int {
	srv, err := newServer()
	if err != nil {
		fmt.Fprintf(os.Stderr, "peer process: no loopback server: %v\n", err)
		return 1
	}
	defer srv.close()
	byName := map[string]*idiom{}
	h := hello{Runtime: runtime.Version()}
	for _, id := range idioms {
		byName[id.Name] = id
		h.Peers = append(h.Peers, id.peerHello)
	}
	enc := json.NewEncoder(out)
	if err := enc.Encode(helloLine{Hello: &h}); err != nil {
		return 1
	}
	sc := bufio.NewScanner(in)
	sc.Buffer(make([]byte, 0, 64<<10), maxLine)
	for sc.Scan() {
		if strings.TrimSpace(sc.Text()) == "" {
			continue
		}
		var req request
		if err := json.Unmarshal(sc.Bytes(), &req); err != nil {
			enc.Encode(reply{Crash: fmt.Sprintf("peer process: a request that is not JSON: %v", err)})
			continue
		}
		id, ok := byName[req.Peer]
		if !ok {
			enc.Encode(reply{Run: req.Run, Crash: fmt.Sprintf("peer process: no peer %q", req.Peer)})
			continue
		}
		if err := enc.Encode(runOne(srv, id, req)); err != nil {
			return 1
		}
	}
	if sc.Err() != nil {
		return 1
	}
	return 0
}

// runOne serves the request's body and runs the idiom over it. A panic in
// the idiom's own goroutine is a crash (one in a goroutine genkit starts
// ends the process, which the parent reports as a crash); a run that
// outlives its limit is abandoned as hung.
func runOne(srv *server, id *idiom, req request) reply {
	sess := srv.start(req.Events, req.Reset, req.FollowUp)
	var mu sync.Mutex
	rp := reply{Run: req.Run, Executions: []execution{}}
	over := false
	exec := func(x execution) {
		x.Delivered, x.EOF = sess.position()
		mu.Lock()
		defer mu.Unlock()
		if !over {
			rp.Executions = append(rp.Executions, x)
		}
	}
	read := func(b []byte) {
		d, eof := sess.position()
		mu.Lock()
		defer mu.Unlock()
		if !over {
			rp.Reads = append(rp.Reads, rawRead{Bytes: append([]byte{}, b...), Delivered: d, EOF: eof})
		}
	}
	limit := defaultTimeout
	if req.TimeoutMs > 0 {
		limit = time.Duration(req.TimeoutMs) * time.Millisecond
	}
	ctx, cancel := context.WithTimeout(context.Background(), limit)
	defer cancel()
	c := conn{BaseURL: srv.URL, HTTP: srv.client(), Transport: srv.transport(), Tools: req.Tools, read: read}
	type result struct {
		err   error
		crash string
	}
	done := make(chan result, 1)
	go func() {
		defer func() {
			if v := recover(); v != nil {
				done <- result{crash: panicText(v, string(debug.Stack()))}
			}
		}()
		done <- result{err: id.run(ctx, c, exec)}
	}()
	var res result
	select {
	case res = <-done:
	case <-ctx.Done():
		select {
		case res = <-done: // cancelled, and it returned
		case <-time.After(hangGrace):
		}
	}
	mu.Lock()
	defer mu.Unlock()
	over = true
	if res.err != nil {
		rp.Error = res.err.Error()
	}
	rp.Crash = res.crash
	rp.Hung = ctx.Err() != nil && res.crash == ""
	rp.Delivered, rp.EOF = sess.position()
	if !id.Raw {
		rp.Reads = nil
	}
	return rp
}

// panicText is a panic as the parent reports it: its value and the
// innermost frames of the framework that panicked, skipping the runtime,
// the tracing spans that re-panic on the way out, and this process.
func panicText(v any, stack string) string {
	var frames []string
	for _, line := range strings.Split(stack, "\n") {
		if line == "" || strings.HasPrefix(line, "\t") || strings.HasPrefix(line, "goroutine ") {
			continue
		}
		fn := line
		if i := strings.LastIndex(fn, "("); i > 0 {
			fn = fn[:i]
		}
		if strings.HasPrefix(fn, "runtime") || strings.HasPrefix(fn, "panic") || strings.HasPrefix(fn, "go.opentelemetry.io/") ||
			strings.HasPrefix(fn, "github.com/sealgate/") {
			continue
		}
		frames = append(frames, fn)
		if len(frames) == maxFrames {
			break
		}
	}
	return fmt.Sprintf("panic: %v\n%s", v, strings.Join(frames, "\n"))
}

// maxFrames is how many frames a crash report keeps.
const maxFrames = 8
