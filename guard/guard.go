// Package guard puts the gate under an SDK. It is an http.RoundTripper that
// wraps the one an SDK client uses: every streamed response body the SDK
// reads is also read, byte for byte and as it arrives, by the wire decoder
// of its vendor protocol, whose events feed one gate.Gate. The application
// keeps its SDK for everything else, and executes only the releases the
// guard hands it.
//
//	g, _ := gate.New(cfg, gate.NewMemoryLedger())
//	tr, _ := guard.New(http.DefaultTransport, g, guard.Options{
//		OnDecision: func(ctx context.Context, d sealgate.Decision) {
//			if d.Kind == sealgate.Release {
//				run(d.Tool, d.Args) // then tr.Ack(d.Key, ok)
//			}
//		},
//	})
//	client := openai.NewClient(option.WithHTTPClient(&http.Client{Transport: tr}))
//	stream := client.Chat.Completions.NewStreaming(guard.WithTurn(ctx, "t1"), params)
//
// The turn of a request comes from its context (WithTurn): a retry of the
// same turn is the same action (its calls are rejected duplicate), a new
// turn a new one. The guard never changes the bytes the SDK reads, never
// reads ahead of it, and passes every error through. How the body ends
// decides the attempt's close, as the wire decoder reads it: the protocol's
// terminal event, or at the end of the body close disconnected (EOF, a read
// error); a context cancel, or a Close by the application before the
// terminal event, is close cancelled. A Close after it changes nothing.
//
// See docs/guard.md.
package guard

import (
	"context"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"strconv"
	"strings"
	"sync"

	"github.com/sealgate/sealgate"
	"github.com/sealgate/sealgate/gate"
	"github.com/sealgate/sealgate/wire"
)

// Options configure a Guard.
type Options struct {
	// Protocol is the vendor protocol of every guarded response. Empty:
	// each request's protocol is detected from its path (DetectProtocol),
	// and a request whose path matches none passes through unguarded.
	Protocol wire.Protocol

	// OnDecision receives every decision the gate makes on the events of
	// guarded bodies, in the gate's order, one call at a time, with the
	// context of the request whose body caused it. It runs inside the
	// Read (or Close, or context cancel) that delivered the event, so the
	// SDK sees that event only after its decisions were handed over; a
	// slow callback slows that stream and every other one of the guard.
	// Required.
	OnDecision func(ctx context.Context, d sealgate.Decision)

	// OnError receives what stopped the gating of one body: the body broke
	// its protocol (the wire decoder's error; its attempt was closed
	// failed, so nothing of it is released), or the gate's ledger failed
	// (the gate is closed: nothing is released any more). The SDK still
	// reads the body unchanged. Optional; called like OnDecision.
	OnError func(ctx context.Context, err error)

	// Wire sets the decoder's limits. Its Turn and Framing are ignored:
	// the turn is the request's (WithTurn), the framing the response's
	// (SSE, or the JSON array of Gemini's streamGenerateContent).
	Wire wire.Options
}

// Guard is the RoundTripper. It owns its gate: from New on, feed the gate
// only through the guard (Ack). It is safe for concurrent use by many
// requests.
type Guard struct {
	next http.RoundTripper
	o    Options

	mu        sync.Mutex // guards the gate, the ticket count and responses
	g         *gate.Gate
	tickets   int // decision batches handed out, in gate order
	responses int // guarded responses so far: the prefix of their attempt ids

	// The callbacks run outside mu (so that one may call Ack), one batch
	// at a time, in ticket order.
	cbMu    sync.Mutex
	cbTurn  sync.Cond
	serving int // the ticket whose batch is delivered next
}

// New wraps next (http.DefaultTransport when nil) so that the streamed
// bodies it returns feed g.
func New(next http.RoundTripper, g *gate.Gate, o Options) (*Guard, error) {
	if g == nil {
		return nil, errors.New("guard: nil gate")
	}
	if o.OnDecision == nil {
		return nil, errors.New("guard: Options.OnDecision is nil: the decisions would be lost")
	}
	if o.Protocol != "" {
		if _, err := wire.ParseProtocol(string(o.Protocol)); err != nil {
			return nil, fmt.Errorf("guard: %w", err)
		}
	}
	if next == nil {
		next = http.DefaultTransport
	}
	gd := &Guard{next: next, o: o, g: g}
	gd.cbTurn.L = &gd.cbMu
	return gd, nil
}

type turnKey struct{}

// WithTurn returns ctx carrying the turn id of the requests made with it.
// Every guarded streamed request needs one: a retry of a turn passes the
// same id, the next turn a new one.
func WithTurn(ctx context.Context, turn string) context.Context {
	return context.WithValue(ctx, turnKey{}, turn)
}

// TurnFrom returns the turn id WithTurn put on ctx.
func TurnFrom(ctx context.Context) (string, bool) {
	t, ok := ctx.Value(turnKey{}).(string)
	return t, ok
}

// DetectProtocol names the protocol of a request path, by its endpoint:
// .../chat/completions, .../responses, .../messages, or a Gemini
// ...:streamGenerateContent.
func DetectProtocol(path string) (wire.Protocol, bool) {
	switch {
	case strings.HasSuffix(path, "/chat/completions"):
		return wire.OpenAIChat, true
	case strings.HasSuffix(path, "/responses"):
		return wire.OpenAIResponses, true
	case strings.HasSuffix(path, "/messages"):
		return wire.Anthropic, true
	case strings.HasSuffix(path, ":streamGenerateContent"):
		return wire.Gemini, true
	}
	return "", false
}

// RoundTrip sends req with the wrapped transport. A 2xx streamed response
// of a guarded protocol (text/event-stream, or Gemini's JSON array stream)
// gets a body that feeds the gate as it is read; any other response, and
// every error, is returned as it came.
func (gd *Guard) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := gd.next.RoundTrip(req)
	if err != nil || resp == nil || resp.Body == nil || resp.Body == http.NoBody {
		return resp, err
	}
	p := gd.o.Protocol
	if p == "" {
		var ok bool
		if p, ok = DetectProtocol(req.URL.Path); !ok {
			return resp, nil
		}
	}
	fr, streamed := framing(p, req.URL.Path, resp.Header)
	if resp.StatusCode < 200 || resp.StatusCode > 299 || !streamed {
		return resp, nil
	}
	turn, ok := TurnFrom(req.Context())
	if !ok {
		resp.Body.Close()
		return nil, fmt.Errorf("guard: %s %s: streamed response with no turn id on the request context (use guard.WithTurn)", req.Method, req.URL.Redacted())
	}
	wo := gd.o.Wire
	wo.Turn, wo.Framing = turn, fr
	// An empty body decodes to no event, so this checks only the options
	// (the turn id above all) with the decoder's own rules.
	if err := wire.DecodeFunc(p, strings.NewReader(""), wo, nil); err != nil {
		resp.Body.Close()
		return nil, fmt.Errorf("guard: %s %s: %w", req.Method, req.URL.Redacted(), err)
	}
	gd.mu.Lock()
	gd.responses++
	prefix := "r" + strconv.Itoa(gd.responses) + ":"
	gd.mu.Unlock()
	resp.Body = newBody(gd, req.Context(), resp.Body, p, wo, prefix)
	return resp, nil
}

// framing says whether a response is a stream the guard reads, and how it
// is framed: text/event-stream for every protocol, or, for Gemini's
// streamGenerateContent (Vertex AI and the Gemini API both serve it so
// without alt=sse), an application/json body that is one JSON array of
// chunks, read element by element as it arrives.
func framing(p wire.Protocol, path string, h http.Header) (wire.Framing, bool) {
	mt, _, err := mime.ParseMediaType(h.Get("Content-Type"))
	switch {
	case err != nil:
		return 0, false
	case mt == "text/event-stream":
		return wire.SSE, true
	case mt == "application/json" && p == wire.Gemini && strings.HasSuffix(path, ":streamGenerateContent"):
		return wire.JSONArray, true
	}
	return 0, false
}

// Ack reports the outcome of a released call, by its key (SPEC section 4):
// ok when the tool ran, !ok when it did not or was undone. It returns the
// decisions the ack causes (an unknown-ack anomaly); OnDecision does not
// receive them.
func (gd *Guard) Ack(key string, ok bool) ([]sealgate.Decision, error) {
	gd.mu.Lock()
	defer gd.mu.Unlock()
	return gd.g.Feed(sealgate.AckEvent(key, ok))
}

// feed gives one event to the gate and its decisions to the application.
func (gd *Guard) feed(ctx context.Context, ev *sealgate.Event) error {
	gd.mu.Lock()
	var ds []sealgate.Decision
	var err error
	if ev.Kind == sealgate.Delta {
		ds, err = gd.g.FeedDelta(ev.Attempt, ev.Item, ev.Bytes)
	} else {
		ds, err = gd.g.Feed(*ev)
	}
	if len(ds) == 0 {
		gd.mu.Unlock()
		return err
	}
	t := gd.ticket()
	gd.deliver(t, func() {
		for _, d := range ds {
			gd.o.OnDecision(ctx, d)
		}
	})
	return err
}

// ticket takes the next place in the callback order; mu is held on entry
// and released on return.
func (gd *Guard) ticket() int {
	t := gd.tickets
	gd.tickets++
	gd.mu.Unlock()
	return t
}

// deliver runs the callbacks of ticket t once every earlier ticket's have
// run.
func (gd *Guard) deliver(t int, call func()) {
	gd.cbMu.Lock()
	for gd.serving != t {
		gd.cbTurn.Wait()
	}
	gd.cbMu.Unlock()
	defer func() {
		gd.cbMu.Lock()
		gd.serving++
		gd.cbTurn.Broadcast()
		gd.cbMu.Unlock()
	}()
	call()
}

func (gd *Guard) report(ctx context.Context, err error) {
	if gd.o.OnError == nil {
		return
	}
	gd.mu.Lock()
	t := gd.ticket()
	gd.deliver(t, func() { gd.o.OnError(ctx, err) })
}

// body is a guarded response body: each Read is one Read of the body
// underneath, whose bytes the decoder has taken, and acted on as far as
// they go, before Read returns.
type body struct {
	rc   io.ReadCloser
	ctx  context.Context
	stop func() bool // stops the context watch
	dec  *decoderPipe

	mu       sync.Mutex
	writing  bool // a Read is handing bytes to the decoder
	finished bool // the end was handed to the decoder, or will be once writing is over
	closed   bool // the application called Close
	cancel   bool // the end is a cancel

	// cancelled is cancel as the decoder reads it: a disconnected close
	// becomes cancelled. It is set while the decoder waits for bytes, just
	// before the end is handed to it: the pipe orders the two.
	cancelled bool
}

func newBody(gd *Guard, ctx context.Context, rc io.ReadCloser, p wire.Protocol, wo wire.Options, prefix string) *body {
	b := &body{rc: rc, ctx: ctx}
	b.dec = startDecoder(p, wo, func(ev sealgate.Event) error {
		if ev.Kind == sealgate.Close && ev.Status == sealgate.Disconnected && b.cancelled {
			ev.Status = sealgate.Cancelled
		}
		// Attempt ids are the vendor's (response, message or chunk id), and
		// a vendor may send the same again: a retry replayed from a cache,
		// a proxy, a fixture. Each response gets its own prefix, so that
		// two responses are never one attempt to the gate; within one body
		// the ids are kept as wire decided them (a splice stays a reopen).
		ev.Attempt = prefix + ev.Attempt
		return gd.feed(ctx, &ev)
	}, func(err error) { gd.report(ctx, err) })
	b.stop = context.AfterFunc(ctx, func() { b.end(true, false) })
	return b
}

// Read reads the body underneath once and returns what it returned, after
// the decoder has taken those bytes (and the end, on an error or EOF).
func (b *body) Read(p []byte) (int, error) {
	n, err := b.rc.Read(p)
	b.mu.Lock()
	if n > 0 && !b.finished {
		b.writing = true
		b.mu.Unlock()
		b.dec.write(p[:n])
		b.mu.Lock()
		b.writing = false
		if b.finished {
			// A Close or cancel came while the decoder had the bytes
			// (from a callback, say); its end is handed over now.
			b.mu.Unlock()
			b.finish()
			b.mu.Lock()
		}
	}
	// EOF is the server's end, whatever else happened; any other error
	// ends the stream too: a cancel if the application or the context
	// caused it, else the transport's (disconnected, as wire decides).
	cancel := err != io.EOF && (b.closed || b.ctx.Err() != nil)
	b.mu.Unlock()
	if err != nil {
		b.end(cancel, true)
	}
	return n, err
}

// Close closes the body underneath. Before the protocol's terminal event
// was read, the attempt closes cancelled; after it, nothing changes.
func (b *body) Close() error {
	b.mu.Lock()
	b.closed = true
	b.mu.Unlock()
	err := b.rc.Close()
	b.end(true, false)
	return err
}

// end hands the end of the body to the decoder, once; while a Read is
// handing it bytes, that Read hands the end over when it is done. cancel
// makes a disconnected close (the attempt was still open) cancelled.
//
// With wait, end returns only once the decisions of the end were handed
// over, even when another goroutine (a cancel, a Close) ended the body
// first. Only Read waits so: a Close or cancel may come from inside a
// callback, which cannot wait for the callbacks to be over, but a Read
// never does.
func (b *body) end(cancel, wait bool) {
	b.mu.Lock()
	if b.finished {
		b.mu.Unlock()
		if wait {
			<-b.dec.done
		}
		return
	}
	b.finished, b.cancel = true, cancel
	writing := b.writing
	b.mu.Unlock()
	if !writing {
		b.finish()
	}
}

func (b *body) finish() {
	b.mu.Lock()
	b.cancelled = b.cancel
	b.mu.Unlock()
	b.dec.end()
	b.stop()
}

// decoderPipe runs wire.DecodeFunc over the bytes handed to it, in its own
// goroutine (the decoder pulls from a reader; the SDK pushes by reading).
// write returns once the decoder has consumed the chunk and asks for more,
// so every event the chunk completes has been fed to the gate by then;
// end returns once the decoder has returned.
type decoderPipe struct {
	in   chan []byte   // the next chunk; nil is the end
	want chan struct{} // the decoder consumed the last chunk
	done chan struct{} // the decoder returned
	cur  []byte
	got  bool // a chunk was taken and its writer waits for want
}

func startDecoder(p wire.Protocol, wo wire.Options, emit func(sealgate.Event) error, fail func(error)) *decoderPipe {
	d := &decoderPipe{in: make(chan []byte), want: make(chan struct{}), done: make(chan struct{})}
	go func() {
		defer close(d.done)
		if err := wire.DecodeFunc(p, d, wo, emit); err != nil {
			fail(fmt.Errorf("guard: %w", err))
		}
	}()
	return d
}

// Read is the decoder's side.
func (d *decoderPipe) Read(p []byte) (int, error) {
	if len(d.cur) == 0 {
		if d.got {
			d.got = false
			d.want <- struct{}{}
		}
		c := <-d.in
		if c == nil {
			return 0, io.EOF
		}
		d.cur, d.got = c, true
	}
	n := copy(p, d.cur)
	d.cur = d.cur[n:]
	return n, nil
}

func (d *decoderPipe) write(c []byte) {
	select {
	case d.in <- c:
	case <-d.done:
		return
	}
	select {
	case <-d.want:
	case <-d.done:
	}
}

func (d *decoderPipe) end() {
	select {
	case d.in <- nil:
	case <-d.done:
	}
	<-d.done
}
