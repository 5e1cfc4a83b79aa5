package peers

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"time"
)

// server is a loopback HTTP server that serves one body per session, one
// SSE event at a time: it writes and flushes an event only when the
// client's body reader asks for bytes it does not have, so the SDK holds at
// most the events it has asked for, and every release can be tied to the
// last event it had been given.
type server struct {
	ts   *httptest.Server
	mu   sync.Mutex
	sess *session
}

// session is one run: the body, the client's progress through it, and the
// follow-up body for any later request (a tool runner's next turn).
type session struct {
	body     Body
	followUp []byte
	next     chan struct{} // the client asks for the next SSE event (or the end)
	served   chan struct{} // closed when the handler of the first request returns
	mu       sync.Mutex
	got      int  // bytes of the body handed to the SDK
	eof      bool // the SDK was told the body ended
	requests int
}

func newServer() *server {
	s := &server{}
	s.ts = httptest.NewServer(http.HandlerFunc(s.handle))
	return s
}

func (s *server) close() { s.ts.Close() }

// client is an HTTP client whose first response body of the session is
// handed out event by event.
func (s *server) client() *http.Client {
	base := s.ts.Client().Transport
	return &http.Client{Transport: roundTripper(func(r *http.Request) (*http.Response, error) {
		resp, err := base.RoundTrip(r)
		if err != nil || resp.Header.Get("X-Peer-Body") != "stepped" {
			return resp, err
		}
		resp.Body = &stepReader{body: resp.Body, sess: s.current()}
		return resp, nil
	})}
}

type roundTripper func(*http.Request) (*http.Response, error)

func (f roundTripper) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

func (s *server) current() *session {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.sess
}

func (s *server) start(b Body, followUp []byte) *session {
	sess := &session{body: b, followUp: followUp, next: make(chan struct{}, 1), served: make(chan struct{})}
	s.mu.Lock()
	s.sess = sess
	s.mu.Unlock()
	return sess
}

func (s *server) handle(w http.ResponseWriter, r *http.Request) {
	io.Copy(io.Discard, r.Body)
	sess := s.current()
	sess.mu.Lock()
	sess.requests++
	first := sess.requests == 1
	sess.mu.Unlock()
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("request-id", "req_peer")
	if !first {
		w.Write(sess.followUp)
		return
	}
	w.Header().Set("X-Peer-Body", "stepped")
	defer close(sess.served)
	w.WriteHeader(http.StatusOK)
	fl := w.(http.Flusher)
	fl.Flush()
	for i := 0; i <= len(sess.body.Events); i++ {
		select {
		case <-sess.next:
		case <-r.Context().Done():
			return
		}
		if i == len(sess.body.Events) {
			break
		}
		w.Write(sess.body.Events[i])
		fl.Flush()
	}
	if sess.body.Reset {
		panic(http.ErrAbortHandler) // the connection breaks mid-body
	}
}

// position is where the SDK stands in the body: how many whole SSE events
// it has been handed, and whether it has been told the body ended.
func (sess *session) position() (delivered int, eof bool) {
	sess.mu.Lock()
	defer sess.mu.Unlock()
	n := 0
	for _, ev := range sess.body.Events {
		if n+len(ev) > sess.got {
			break
		}
		n += len(ev)
		delivered++
	}
	return delivered, sess.eof
}

// stepReader is the SDK's view of the response body: when it has handed
// out every byte the server sent, the next Read asks the server for one
// more event.
type stepReader struct {
	body  io.ReadCloser
	sess  *session
	bound int // bytes the server has been asked to send
	asked int // events asked for (len(Events)+1 asks for the end)
}

func (r *stepReader) Read(p []byte) (int, error) {
	r.sess.mu.Lock()
	got := r.sess.got
	r.sess.mu.Unlock()
	if got >= r.bound && r.asked <= len(r.sess.body.Events) {
		if r.asked < len(r.sess.body.Events) {
			r.bound += len(r.sess.body.Events[r.asked])
		}
		r.asked++
		select {
		case r.sess.next <- struct{}{}:
		case <-r.sess.served: // the server gave up (the run's time ran out): read what is left
		}
	}
	n, err := r.body.Read(p)
	r.sess.mu.Lock()
	r.sess.got += n
	if err != nil {
		r.sess.eof = true
	}
	r.sess.mu.Unlock()
	return n, err
}

func (r *stepReader) Close() error { return r.body.Close() }

// runTimeout bounds one SDK run: a run that hangs is reported, never waited
// for forever.
var runTimeout = 20 * time.Second

func runContext() (context.Context, context.CancelFunc) {
	return context.WithTimeout(context.Background(), runTimeout)
}
