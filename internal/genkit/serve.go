package main

import (
	"io"
	"net"
	"net/http"
	"sync"
	"time"
)

// server is the loopback HTTP server a run's body is served from, one SSE
// event at a time: it writes and flushes an event only when the client's
// body reader asks for bytes it does not have, so the framework holds at
// most the events it has asked for and every tool execution can be tied to
// the last event it had been given. One run at a time: every request goes
// to the current session, so one base URL serves every run.
type server struct {
	srv  *http.Server
	ln   net.Listener
	URL  string
	base *http.Transport // the loopback connections, never http.DefaultTransport (an idiom swaps that)
	mu   sync.Mutex
	sess *session
}

// session is one run: the body, the client's progress through it, and the
// follow-up body for any later request (genkit's next turn after its tools).
type session struct {
	events   [][]byte
	reset    bool
	followUp []byte
	next     chan struct{} // the client asks for the next SSE event (or the end)
	served   chan struct{} // closed when the handler of the first request returns
	mu       sync.Mutex
	got      int  // bytes of the body handed to the client
	eof      bool // the client was told the body ended (clean end or broken connection)
	requests int
}

func newServer() (*server, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	s := &server{ln: ln, URL: "http://" + ln.Addr().String(),
		base: &http.Transport{MaxIdleConnsPerHost: 4, IdleConnTimeout: 5 * time.Second}}
	s.srv = &http.Server{Handler: http.HandlerFunc(s.handle), ReadHeaderTimeout: 10 * time.Second}
	go s.srv.Serve(ln)
	return s, nil
}

func (s *server) close() {
	s.srv.Close()
	s.base.CloseIdleConnections()
}

// start makes a body the current session.
func (s *server) start(events [][]byte, reset bool, followUp []byte) *session {
	sess := &session{events: events, reset: reset, followUp: followUp,
		next: make(chan struct{}, 1), served: make(chan struct{})}
	s.mu.Lock()
	s.sess = sess
	s.mu.Unlock()
	return sess
}

func (s *server) current() *session {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.sess
}

func (s *server) handle(w http.ResponseWriter, r *http.Request) {
	io.Copy(io.Discard, r.Body)
	sess := s.current()
	if sess == nil {
		http.Error(w, `{"error":{"message":"no run is being served","type":"peer_harness"}}`, http.StatusGone)
		return
	}
	sess.mu.Lock()
	sess.requests++
	first := sess.requests == 1
	sess.mu.Unlock()
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Request-Id", "req_peer")
	w.Header().Set("X-Request-Id", "req_peer")
	if !first {
		w.Write(sess.followUp)
		return
	}
	w.Header().Set("X-Peer-Body", "stepped")
	defer close(sess.served)
	w.WriteHeader(http.StatusOK)
	fl := w.(http.Flusher)
	fl.Flush()
	for i := 0; i <= len(sess.events); i++ {
		select {
		case <-sess.next:
		case <-r.Context().Done():
			return
		}
		if i == len(sess.events) {
			break
		}
		w.Write(sess.events[i])
		fl.Flush()
	}
	if sess.reset {
		panic(http.ErrAbortHandler) // the connection breaks mid-body
	}
}

// position is where the client stands in the body: how many whole SSE
// events it has been handed, and whether it has been told the body ended.
func (sess *session) position() (delivered int, eof bool) {
	sess.mu.Lock()
	defer sess.mu.Unlock()
	n := 0
	for _, ev := range sess.events {
		if n+len(ev) > sess.got {
			break
		}
		n += len(ev)
		delivered++
	}
	return delivered, sess.eof
}

// transport is the stepped round tripper: the loopback connection, with
// the first response of a session handed out event by event.
func (s *server) transport() http.RoundTripper {
	return roundTripper(func(r *http.Request) (*http.Response, error) {
		resp, err := s.base.RoundTrip(r)
		if err != nil || resp.Header.Get("X-Peer-Body") != "stepped" {
			return resp, err
		}
		resp.Body = &stepReader{body: resp.Body, sess: s.current()}
		return resp, nil
	})
}

// client is an HTTP client on the stepped transport.
func (s *server) client() *http.Client { return &http.Client{Transport: s.transport()} }

type roundTripper func(*http.Request) (*http.Response, error)

func (f roundTripper) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

// stepReader is the client's view of the response body: when it has handed
// out every byte the server was asked for, the next Read asks the server
// for one more event (after the last, for the end).
type stepReader struct {
	body  io.ReadCloser
	sess  *session
	bound int // bytes the server has been asked to send
	asked int // events asked for (len(events)+1 asks for the end)
}

func (r *stepReader) Read(p []byte) (int, error) {
	if len(p) == 0 {
		return 0, nil
	}
	r.sess.mu.Lock()
	got := r.sess.got
	r.sess.mu.Unlock()
	if got >= r.bound && r.asked <= len(r.sess.events) {
		if r.asked < len(r.sess.events) {
			r.bound += len(r.sess.events[r.asked])
		}
		r.asked++
		select {
		case r.sess.next <- struct{}{}:
		case <-r.sess.served: // the server gave up (the run was abandoned): read what is left
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
