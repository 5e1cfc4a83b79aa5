package guard_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/sealgate/sealgate"
	"github.com/sealgate/sealgate/gate"
	"github.com/sealgate/sealgate/guard"
	"github.com/sealgate/sealgate/wire"
)

const chatPath = "/v1/chat/completions"

func TestDetectProtocol(t *testing.T) {
	for path, p := range map[string]wire.Protocol{
		"/v1/chat/completions":        wire.OpenAIChat,
		"/openai/v1/chat/completions": wire.OpenAIChat,
		"/v1/responses":               wire.OpenAIResponses,
		"/v1/messages":                wire.Anthropic,
		"/v1beta/models/gemini-2.0-flash:streamGenerateContent": wire.Gemini,
		"/v1/messages/count_tokens":                             "",
		"/v1/responses/resp_123":                                "",
		"/v1/models/gemini:generateContent":                     "",
		"/v1/embeddings":                                        "",
	} {
		got, ok := guard.DetectProtocol(path)
		if got != p || ok != (p != "") {
			t.Errorf("DetectProtocol(%q) = %q, %v; want %q", path, got, ok, p)
		}
	}
}

func TestNewRefusesWhatCannotWork(t *testing.T) {
	on := func(context.Context, sealgate.Decision) {}
	if _, err := guard.New(nil, nil, guard.Options{OnDecision: on}); err == nil {
		t.Error("nil gate accepted")
	}
	g, err := gate.New(sealgate.Config{Limits: sealgate.DefaultLimits()}, gate.NewMemoryLedger())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := guard.New(nil, g, guard.Options{}); err == nil || !strings.Contains(err.Error(), "OnDecision") {
		t.Errorf("nil OnDecision: err = %v", err)
	}
	if _, err := guard.New(nil, g, guard.Options{Protocol: "cohere", OnDecision: on}); err == nil || !strings.Contains(err.Error(), "cohere") {
		t.Errorf("unknown protocol: err = %v", err)
	}
}

// A response the guard does not gate is returned as it came: the same
// body, read by no one else.
func TestPassThroughUntouched(t *testing.T) {
	body := fixture(t, "openai-chat/single-tool-call-strict.sse")
	cases := []struct {
		name, path, ctype string
		status            int
		proto             wire.Protocol
	}{
		{"path matches no protocol", "/v1/embeddings", "text/event-stream", 200, ""},
		{"not an event stream", chatPath, "application/json", 200, ""},
		{"error status", chatPath, "text/event-stream", 500, ""},
		{"no content type", chatPath, "", 200, ""},
		{"chosen protocol, not a stream", "/anything", "application/json", 200, wire.OpenAIChat},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			orig := io.NopCloser(bytes.NewReader(body))
			next := roundTrip(func(r *http.Request) (*http.Response, error) {
				return &http.Response{StatusCode: c.status, Header: http.Header{"Content-Type": {c.ctype}}, Body: orig}, nil
			})
			gd, rec := newGuard(t, next, guard.Options{Protocol: c.proto})
			resp, err := gd.RoundTrip(post(t, context.Background(), "", c.path))
			if err != nil {
				t.Fatal(err)
			}
			if resp.Body != orig {
				t.Fatal("the body was wrapped")
			}
			got, _ := io.ReadAll(resp.Body)
			if !bytes.Equal(got, body) || len(rec.decisions()) != 0 {
				t.Fatalf("%d bytes, %d decisions", len(got), len(rec.decisions()))
			}
		})
	}
}

// A protocol chosen for the guard gates a path that detection would not.
func TestChosenProtocol(t *testing.T) {
	gd, rec := newGuard(t, serve(staticBody(fixture(t, "openai-chat/single-tool-call-strict.sse"))), guard.Options{Protocol: wire.OpenAIChat})
	if _, err := readAll(t, gd, post(t, context.Background(), "t1", "/proxy/llm")); err != nil {
		t.Fatal(err)
	}
	if len(rec.of(sealgate.Release)) != 1 {
		t.Fatalf("decisions %v", rec.lines())
	}
}

// The gated body reaches the application byte for byte, and the release
// is the gate's.
func TestBodyUnchangedAndReleased(t *testing.T) {
	body := fixture(t, "openai-chat/single-tool-call-strict.sse")
	gd, rec := newGuard(t, serve(staticBody(body)), guard.Options{})
	got, err := readAll(t, gd, post(t, context.Background(), "t1", chatPath))
	if err != nil || !bytes.Equal(got, body) {
		t.Fatalf("body changed (%d of %d bytes), err %v", len(got), len(body), err)
	}
	rel := rec.of(sealgate.Release)
	if len(rel) != 1 || len(rec.decisions()) != 1 {
		t.Fatalf("decisions %v", rec.lines())
	}
	d := rel[0]
	if d.Attempt != "r1:chatcmpl-ABfw8AOXnoa2kzy11vVTSjuQhHCQr" || d.Call != "call_c91SqDXlYFuETYv8mUHzz6pp" ||
		d.Tool != "GetWeatherArgs" || string(d.Args) != `{"city":"Edinburgh","country":"UK","units":"c"}` || d.Key == "" {
		t.Fatalf("release %v", d)
	}
}

// A retried request of the same turn is the same action: its call is not
// released again. The vendor repeats its ids (the same body is served),
// yet each response is its own attempt: no anomaly. A new turn runs.
func TestRetriedTurnDoesNotRunAgain(t *testing.T) {
	gd, rec := newGuard(t, serve(staticBody(fixture(t, "openai-chat/single-tool-call-strict.sse"))), guard.Options{})
	for _, turn := range []string{"t1", "t1", "t2"} {
		if _, err := readAll(t, gd, post(t, context.Background(), turn, chatPath)); err != nil {
			t.Fatal(err)
		}
	}
	var kinds []string
	for _, d := range rec.decisions() {
		kinds = append(kinds, fmt.Sprintf("%s %s %s", d.Kind, strings.SplitN(d.Attempt, ":", 2)[0], d.Reason))
	}
	want(t, kinds, "release r1 ", "reject r2 duplicate", "release r3 ")
	if rel := rec.of(sealgate.Release); rel[0].Key == rel[1].Key {
		t.Error("a new turn has the same key")
	}
}

// gatedBody is a body the test hands out one event at a time: Read i
// returns event i, and only once the test allowed it. A Read asked for
// more than the test allowed is the guard reading ahead of the SDK: it is
// recorded and fails the read, so that the test ends instead of hanging.
type gatedBody struct {
	events  [][]byte
	mu      sync.Mutex
	allowed int
	reads   []int // bytes each Read returned
	ahead   bool
	closed  bool
}

func (b *gatedBody) allow() {
	b.mu.Lock()
	b.allowed++
	b.mu.Unlock()
}

func (b *gatedBody) Read(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	i := len(b.reads)
	if i == len(b.events) {
		return 0, io.EOF
	}
	if i >= b.allowed {
		b.ahead = true
		return 0, fmt.Errorf("read of event %d before the reader had event %d", i, i-1)
	}
	if len(p) < len(b.events[i]) {
		return 0, fmt.Errorf("read buffer of %d bytes for an event of %d", len(p), len(b.events[i]))
	}
	n := copy(p, b.events[i])
	b.reads = append(b.reads, n)
	return n, nil
}

func (b *gatedBody) Close() error { b.closed = true; return nil }

// Each Read of the guarded body is one Read of the body underneath,
// returned as soon as that one returns: the guard never waits for the next
// event. The decisions an event causes are handed over before the Read
// that carries it returns.
func TestReadsNeverAhead(t *testing.T) {
	events := sseEvents(fixture(t, "openai-chat/single-tool-call-strict.sse"))
	under := &gatedBody{events: events}
	gd, rec := newGuard(t, serve(func() io.ReadCloser { return under }), guard.Options{})
	resp, err := gd.RoundTrip(post(t, context.Background(), "t1", chatPath))
	if err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, 64<<10)
	for i, ev := range events {
		under.allow()
		n, err := resp.Body.Read(buf)
		if err != nil || !bytes.Equal(buf[:n], ev) {
			t.Fatalf("read %d: %d bytes, err %v; want event %d (%d bytes)", i, n, err, i, len(ev))
		}
		released := len(rec.of(sealgate.Release))
		if last := i == len(events)-1; released != map[bool]int{false: 0, true: 1}[last] {
			t.Fatalf("after event %d of %d: %d releases", i, len(events), released)
		}
	}
	if n, err := resp.Body.Read(buf); n != 0 || err != io.EOF {
		t.Fatalf("end: %d, %v", n, err)
	}
	if under.ahead || len(under.reads) != len(events) {
		t.Fatalf("read ahead %v, %d reads underneath for %d events", under.ahead, len(under.reads), len(events))
	}
}

func TestTransportErrorPassesThrough(t *testing.T) {
	boom := errors.New("dial tcp: connection refused")
	gd, rec := newGuard(t, roundTrip(func(*http.Request) (*http.Response, error) { return nil, boom }), guard.Options{})
	resp, err := gd.RoundTrip(post(t, context.Background(), "t1", chatPath))
	if resp != nil || err != boom {
		t.Fatalf("resp %v, err %v", resp, err)
	}
	if len(rec.decisions()) != 0 {
		t.Fatal(rec.lines())
	}
}

// errBody returns events, then fails.
type errBody struct {
	r   io.Reader
	err error
}

func (b *errBody) Read(p []byte) (int, error) {
	n, err := b.r.Read(p)
	if err == io.EOF {
		return n, b.err
	}
	return n, err
}
func (b *errBody) Close() error { return nil }

// cut returns the first n events of a body.
func cut(body []byte, n int) []byte { return bytes.Join(sseEvents(body)[:n], nil) }

// A read error mid-stream reaches the reader as it is, and the call open
// at that point is not run: the transport ended without the protocol's
// end (disconnected).
func TestReadErrorPassesThrough(t *testing.T) {
	reset := errors.New("read tcp: connection reset by peer")
	half := cut(fixture(t, "openai-chat/single-tool-call-strict.sse"), 6)
	gd, rec := newGuard(t, serve(func() io.ReadCloser { return &errBody{bytes.NewReader(half), reset} }), guard.Options{})
	got, err := readAll(t, gd, post(t, context.Background(), "t1", chatPath))
	if err != reset || !bytes.Equal(got, half) {
		t.Fatalf("err %v, %d bytes of %d", err, len(got), len(half))
	}
	want(t, rec.lines(), "reject r1:chatcmpl-ABfw8AOXnoa2kzy11vVTSjuQhHCQr item=0:0 reason=turn-disconnected")
}

func TestEOFWithoutTerminalIsDisconnected(t *testing.T) {
	body := fixture(t, "openai-chat/single-tool-call-strict.sse")
	events := sseEvents(body)
	// Everything but [DONE]: the finish chunk came, the protocol's end did not.
	gd, rec := newGuard(t, serve(staticBody(cut(body, len(events)-1))), guard.Options{})
	if _, err := readAll(t, gd, post(t, context.Background(), "t1", chatPath)); err != nil {
		t.Fatal(err)
	}
	want(t, rec.lines(), "reject r1:chatcmpl-ABfw8AOXnoa2kzy11vVTSjuQhHCQr item=0:0 reason=turn-disconnected")
}

// readEvents reads n events' bytes through the guarded body.
func readEvents(t *testing.T, r io.Reader, body []byte, n int) {
	t.Helper()
	part := cut(body, n)
	got := make([]byte, len(part))
	if _, err := io.ReadFull(r, got); err != nil || !bytes.Equal(got, part) {
		t.Fatalf("reading %d events: %v", n, err)
	}
}

func TestCloseBeforeTerminalIsCancelled(t *testing.T) {
	body := fixture(t, "openai-chat/single-tool-call-strict.sse")
	events := sseEvents(body)
	for _, n := range []int{0, 6, len(events) - 1} {
		t.Run(fmt.Sprint(n, " events"), func(t *testing.T) {
			gd, rec := newGuard(t, serve(staticBody(body)), guard.Options{})
			resp, err := gd.RoundTrip(post(t, context.Background(), "t1", chatPath))
			if err != nil {
				t.Fatal(err)
			}
			readEvents(t, resp.Body, body, n)
			if err := resp.Body.Close(); err != nil {
				t.Fatal(err)
			}
			if n == 0 {
				want(t, rec.lines()) // nothing opened, nothing to decide
				return
			}
			want(t, rec.lines(), "reject r1:chatcmpl-ABfw8AOXnoa2kzy11vVTSjuQhHCQr item=0:0 reason=turn-cancelled")
		})
	}
}

func TestCloseAfterTerminalChangesNothing(t *testing.T) {
	body := fixture(t, "openai-chat/single-tool-call-strict.sse")
	gd, rec := newGuard(t, serve(staticBody(body)), guard.Options{})
	resp, err := gd.RoundTrip(post(t, context.Background(), "t1", chatPath))
	if err != nil {
		t.Fatal(err)
	}
	readEvents(t, resp.Body, body, len(sseEvents(body))) // up to [DONE], not its EOF
	if len(rec.of(sealgate.Release)) != 1 {
		t.Fatalf("before close: %v", rec.lines())
	}
	resp.Body.Close()
	resp.Body.Close()
	if len(rec.decisions()) != 1 {
		t.Fatalf("after close: %v", rec.lines())
	}
}

// blockingBody delivers its bytes, then blocks until its context is done
// and fails with the context's error, as a transport does.
type blockingBody struct {
	ctx context.Context
	r   io.Reader
}

func (b *blockingBody) Read(p []byte) (int, error) {
	if n, _ := b.r.Read(p); n > 0 {
		return n, nil
	}
	<-b.ctx.Done()
	return 0, b.ctx.Err()
}
func (b *blockingBody) Close() error { return nil }

// A context cancelled while the reader waits in Read: the reader gets the
// context's error, the open call is rejected turn-cancelled.
func TestContextCancelWhileReading(t *testing.T) {
	half := cut(fixture(t, "openai-chat/single-tool-call-strict.sse"), 6)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	gd, rec := newGuard(t, serve(func() io.ReadCloser { return &blockingBody{ctx, bytes.NewReader(half)} }), guard.Options{})
	resp, err := gd.RoundTrip(post(t, ctx, "t1", chatPath))
	if err != nil {
		t.Fatal(err)
	}
	readEvents(t, resp.Body, half, 6)
	rec.onCall = nil
	go func() {
		time.Sleep(10 * time.Millisecond) // let the reader block first; either order gives the same result
		cancel()
	}()
	if _, err := resp.Body.Read(make([]byte, 512)); !errors.Is(err, context.Canceled) {
		t.Fatalf("err %v", err)
	}
	want(t, rec.lines(), "reject r1:chatcmpl-ABfw8AOXnoa2kzy11vVTSjuQhHCQr item=0:0 reason=turn-cancelled")
}

// A context cancelled while no one reads the body: the gate hears of it
// anyway.
func TestContextCancelWhileIdle(t *testing.T) {
	body := fixture(t, "openai-chat/single-tool-call-strict.sse")
	ctx, cancel := context.WithCancel(context.Background())
	gd, rec := newGuard(t, serve(staticBody(body)), guard.Options{})
	decided := make(chan struct{})
	rec.onCall = func(sealgate.Decision) { close(decided) }
	resp, err := gd.RoundTrip(post(t, ctx, "t1", chatPath))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	readEvents(t, resp.Body, body, 6)
	cancel()
	select {
	case <-decided:
	case <-time.After(time.Minute): // a hang detector, not a speed goal
		t.Fatal("no decision after the cancel")
	}
	want(t, rec.lines(), "reject r1:chatcmpl-ABfw8AOXnoa2kzy11vVTSjuQhHCQr item=0:0 reason=turn-cancelled")
}

// A cancel after the protocol's end changes nothing.
func TestContextCancelAfterTerminal(t *testing.T) {
	body := fixture(t, "openai-chat/single-tool-call-strict.sse")
	ctx, cancel := context.WithCancel(context.Background())
	gd, rec := newGuard(t, serve(staticBody(body)), guard.Options{})
	resp, err := gd.RoundTrip(post(t, ctx, "t1", chatPath))
	if err != nil {
		t.Fatal(err)
	}
	readEvents(t, resp.Body, body, len(sseEvents(body)))
	cancel()
	resp.Body.Close()
	if len(rec.decisions()) != 1 || len(rec.of(sealgate.Release)) != 1 {
		t.Fatal(rec.lines())
	}
}

func TestNoTurnIsAnError(t *testing.T) {
	closed := false
	under := serve(staticBody(nil))
	next := roundTrip(func(r *http.Request) (*http.Response, error) {
		resp, _ := under.RoundTrip(r)
		resp.Body = closeFunc{resp.Body, func() { closed = true }}
		return resp, nil
	})
	gd, _ := newGuard(t, next, guard.Options{})
	resp, err := gd.RoundTrip(post(t, context.Background(), "", chatPath))
	if resp != nil || err == nil || !strings.Contains(err.Error(), "guard.WithTurn") || !closed {
		t.Fatalf("resp %v, err %v, body closed %v", resp, err, closed)
	}
	resp, err = gd.RoundTrip(post(t, context.Background(), "my turn", chatPath))
	if resp != nil || err == nil || !strings.Contains(err.Error(), "turn") {
		t.Fatalf("turn with a blank: resp %v, err %v", resp, err)
	}
}

type closeFunc struct {
	io.Reader
	f func()
}

func (c closeFunc) Close() error { c.f(); return nil }

// A body that breaks its protocol is reported, its open call is rejected,
// and the reader still gets every byte.
func TestDecodeErrorReported(t *testing.T) {
	body := cut(fixture(t, "openai-chat/single-tool-call-strict.sse"), 6)
	body = append(body, "data: {not json}\n\n"...)
	body = append(body, cut(fixture(t, "openai-chat/single-tool-call-strict.sse"), 9)...)
	gd, rec := newGuard(t, serve(staticBody(body)), guard.Options{})
	got, err := readAll(t, gd, post(t, context.Background(), "t1", chatPath))
	if err != nil || !bytes.Equal(got, body) {
		t.Fatalf("err %v, %d of %d bytes", err, len(got), len(body))
	}
	want(t, rec.lines(), "reject r1:chatcmpl-ABfw8AOXnoa2kzy11vVTSjuQhHCQr item=0:0 reason=turn-failed")
	if errs := rec.errors(); len(errs) != 1 || !strings.Contains(errs[0].Error(), "line 13") {
		t.Fatalf("errors %v", errs)
	}
}

// The application may ack from inside OnDecision: the callbacks run
// outside the gate's lock.
func TestAckFromCallback(t *testing.T) {
	gd, rec := newGuard(t, serve(staticBody(fixture(t, "openai-chat/single-tool-call-strict.sse"))), guard.Options{})
	var acks [][]sealgate.Decision
	rec.onCall = func(d sealgate.Decision) {
		if d.Kind == sealgate.Release {
			ds, err := gd.Ack(d.Key, true)
			if err != nil {
				t.Error(err)
			}
			again, _ := gd.Ack(d.Key, true)
			acks = append(acks, ds, again)
		}
	}
	if _, err := readAll(t, gd, post(t, context.Background(), "t1", chatPath)); err != nil {
		t.Fatal(err)
	}
	if len(acks) != 2 || len(acks[0]) != 0 || len(acks[1]) != 1 || acks[1][0].Anomaly != sealgate.UnknownAck {
		t.Fatalf("acks %v", acks)
	}
}

// Many responses at once, one gate: every turn's call is released. (Two
// live attempts of one turn would supersede each other, as the SPEC says.)
func TestConcurrentResponses(t *testing.T) {
	body := fixture(t, "anthropic/text-then-tool-use.sse")
	gd, rec := newGuard(t, serve(staticBody(body)), guard.Options{})
	var wg sync.WaitGroup
	for i := range 16 {
		wg.Go(func() {
			if _, err := readAll(t, gd, post(t, context.Background(), fmt.Sprint("t", i), "/v1/messages")); err != nil {
				t.Error(err)
			}
		})
	}
	wg.Wait()
	if rel := len(rec.of(sealgate.Release)); rel != 16 || len(rec.decisions()) != 16 {
		t.Fatalf("%d releases: %v", rel, rec.lines())
	}
}

// Gemini is detected from its path; its captures gate like the others.
func TestGemini(t *testing.T) {
	body := fixture(t, "gemini/function-call-then-stop-chunk-gemini3.sse") // CRLF line ends
	gd, rec := newGuard(t, serve(staticBody(body)), guard.Options{})
	if _, err := readAll(t, gd, post(t, context.Background(), "t1", "/v1beta/models/gemini-3-pro-preview:streamGenerateContent")); err != nil {
		t.Fatal(err)
	}
	rel := rec.of(sealgate.Release)
	if len(rel) != 1 || len(rec.decisions()) != 1 {
		t.Fatal(rec.lines())
	}
	// The body cut before its STOP chunk is disconnected.
	gd, rec = newGuard(t, serve(staticBody(cut(body, len(sseEvents(body))-1))), guard.Options{})
	if _, err := readAll(t, gd, post(t, context.Background(), "t1", "/v1beta/models/gemini-3-pro-preview:streamGenerateContent")); err != nil {
		t.Fatal(err)
	}
	if len(rec.of(sealgate.Reject)) != 1 || rec.of(sealgate.Reject)[0].Reason != sealgate.TurnDisconnected {
		t.Fatal(rec.lines())
	}
}

// closeWhileReading serves its bytes, then blocks the next Read until
// Close, which fails that Read and returns only once the reader has its
// error back: the end reaches the guard through Read, not Close.
type closeWhileReading struct {
	r            io.Reader
	reading      chan struct{} // the blocked Read began
	unblock      chan struct{}
	readReturned chan struct{}
}

func (b *closeWhileReading) Read(p []byte) (int, error) {
	if n, _ := b.r.Read(p); n > 0 {
		return n, nil
	}
	close(b.reading)
	<-b.unblock
	return 0, errors.New("http: read on closed response body")
}

func (b *closeWhileReading) Close() error {
	close(b.unblock)
	<-b.readReturned
	return nil
}

// An application that closes the body from another goroutine while a Read
// waits: that Read's error is the close's, so the call is cancelled.
func TestCloseDuringReadIsCancelled(t *testing.T) {
	half := cut(fixture(t, "openai-chat/single-tool-call-strict.sse"), 6)
	under := &closeWhileReading{r: bytes.NewReader(half), reading: make(chan struct{}), unblock: make(chan struct{}), readReturned: make(chan struct{})}
	gd, rec := newGuard(t, serve(func() io.ReadCloser { return under }), guard.Options{})
	resp, err := gd.RoundTrip(post(t, context.Background(), "t1", chatPath))
	if err != nil {
		t.Fatal(err)
	}
	readEvents(t, resp.Body, half, 6)
	var readErr error
	go func() {
		_, readErr = resp.Body.Read(make([]byte, 512))
		close(under.readReturned)
	}()
	<-under.reading
	resp.Body.Close()
	if readErr == nil || !strings.Contains(readErr.Error(), "closed") {
		t.Fatalf("read err %v", readErr)
	}
	want(t, rec.lines(), "reject r1:chatcmpl-ABfw8AOXnoa2kzy11vVTSjuQhHCQr item=0:0 reason=turn-cancelled")
}

// Vertex without alt=sse streams one JSON array of chunks as
// application/json: the guard reads it element by element, on
// streamGenerateContent only. Whole, every call is released; cut inside a
// call's pieces, or with the array's ] missing, the attempt is
// disconnected and nothing is released.
func TestVertexJSONArray(t *testing.T) {
	lines := strings.Split(strings.TrimSpace(string(fixture(t, "gemini/vertex-partial-args-no-terminal-functioncall.jsonl"))), "\n")
	array := "[" + strings.Join(lines, "\n,\r\n") + "]"
	serveJSON := func(body string) http.RoundTripper {
		return roundTrip(func(r *http.Request) (*http.Response, error) {
			return &http.Response{StatusCode: 200, Header: http.Header{"Content-Type": {"application/json; charset=UTF-8"}},
				Body: io.NopCloser(strings.NewReader(body)), Request: r}, nil
		})
	}
	const path = "/v1/projects/p/locations/global/publishers/google/models/gemini-3-flash-preview:streamGenerateContent"
	gd, rec := newGuard(t, serveJSON(array), guard.Options{})
	if _, err := readAll(t, gd, post(t, context.Background(), "t1", path)); err != nil {
		t.Fatal(err)
	}
	want(t, rec.lines(), `release r1:3noMaojQL_2s6tkPiO26qQ4 item=0:0 call=pos:0:0 tool=writeItems key=6cf039e4d581ef54 args={"operations":[{"action":"add","description":"Fresh red apple","itemid":"apple_001","price":0.5},{"action":"add","description":"Ripe yellow banana","itemid":"banana_001","price":0.3}]}`)
	for name, body := range map[string]string{
		"cut mid-string": array[:strings.Index(array, `"Ripe yellow`)+8],
		"no ]":           strings.TrimSuffix(array, "]"),
	} {
		gd, rec = newGuard(t, serveJSON(body), guard.Options{})
		if _, err := readAll(t, gd, post(t, context.Background(), "t1", path)); err != nil {
			t.Fatal(err)
		}
		if rej := rec.of(sealgate.Reject); len(rej) != 1 || len(rec.decisions()) != 1 || rej[0].Reason != sealgate.TurnDisconnected {
			t.Errorf("%s: %v", name, rec.lines())
		}
	}
	// application/json on another endpoint is not a stream: passed through.
	gd, rec = newGuard(t, serveJSON(array), guard.Options{Protocol: "gemini"})
	if _, err := readAll(t, gd, post(t, context.Background(), "t1", strings.TrimSuffix(path, ":streamGenerateContent")+":generateContent")); err != nil {
		t.Fatal(err)
	}
	if len(rec.decisions()) != 0 || len(rec.errors()) != 0 {
		t.Errorf("generateContent was gated: %v %v", rec.lines(), rec.errors())
	}
}
