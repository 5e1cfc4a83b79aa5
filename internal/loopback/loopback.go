// Package loopback serves captured vendor stream bodies from a loopback
// HTTP server, whole or broken the ways a real stream breaks, so that a
// framework's own client can be driven through them in a test. It is the
// test bed of the framework integrations (nested modules under
// integrations/), which cannot import one another's test files.
package loopback

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"sync"
	"testing"
)

// FixturesDir finds shared/vendor-fixtures beside the repository that holds
// dir: $SEALGATE_VENDOR_FIXTURES when set, else the parent of the first
// folder at or above dir whose go.mod is the core module's.
func FixturesDir(dir string) (string, error) {
	if d := os.Getenv("SEALGATE_VENDOR_FIXTURES"); d != "" {
		return d, nil
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", err
	}
	for d := abs; ; d = filepath.Dir(d) {
		mod, err := os.ReadFile(filepath.Join(d, "go.mod"))
		if err == nil && bytes.HasPrefix(mod, []byte("module github.com/sealgate/sealgate\n")) {
			return filepath.Join(filepath.Dir(d), "shared", "vendor-fixtures"), nil
		}
		if filepath.Dir(d) == d {
			return "", fmt.Errorf("loopback: no repository root (the go.mod of github.com/sealgate/sealgate) at or above %s", abs)
		}
	}
}

// Fixture reads one capture in place (rel is relative to vendor-fixtures,
// e.g. "openai-chat/single-tool-call-strict.sse"). A test without the
// captures is skipped, saying what it needs.
func Fixture(t testing.TB, rel string) []byte {
	t.Helper()
	dir, err := FixturesDir(".")
	if err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(filepath.Join(dir, rel))
	if errors.Is(err, os.ErrNotExist) {
		t.Skipf("vendor fixture %s not found: this test needs shared/vendor-fixtures beside the repository (or $SEALGATE_VENDOR_FIXTURES)", rel)
	}
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// Events cuts an SSE body into its events, each with its blank line; CRLF
// line ends become LF.
func Events(body []byte) [][]byte {
	body = bytes.ReplaceAll(body, []byte("\r\n"), []byte("\n"))
	var out [][]byte
	for _, ev := range bytes.SplitAfter(body, []byte("\n\n")) {
		if len(bytes.TrimSpace(ev)) > 0 {
			out = append(out, ev)
		}
	}
	return out
}

// Body is one response: its SSE events, written and flushed one at a
// time, then a clean end of the body or, with Drop, a broken connection
// (the client reads an unexpected EOF, as when a proxy or the network
// drops the stream).
type Body struct {
	Events [][]byte
	Drop   bool
}

// Whole is an SSE body served as it is, ending cleanly.
func Whole(body []byte) Body { return Body{Events: Events(body)} }

// Server answers every POST with the next body of its script, and every
// request past the script with FollowUp (a plain final answer, so that an
// agent loop stops). It records each request body.
type Server struct {
	*httptest.Server
	mu       sync.Mutex
	script   []Body
	followUp Body
	requests [][]byte
}

// NewServer starts a loopback server for script; t's cleanup closes it.
func NewServer(t testing.TB, followUp Body, script ...Body) *Server {
	s := &Server{script: script, followUp: followUp}
	s.Server = httptest.NewServer(http.HandlerFunc(s.handle))
	t.Cleanup(s.Close)
	return s
}

// Requests returns the request bodies received so far, in order.
func (s *Server) Requests() [][]byte {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([][]byte(nil), s.requests...)
}

func (s *Server) handle(w http.ResponseWriter, r *http.Request) {
	req, err := io.ReadAll(r.Body)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	s.mu.Lock()
	n := len(s.requests)
	s.requests = append(s.requests, req)
	b := s.followUp
	if n < len(s.script) {
		b = s.script[n]
	}
	s.mu.Unlock()
	w.Header().Set("Content-Type", "text/event-stream")
	w.WriteHeader(http.StatusOK)
	fl := http.NewResponseController(w)
	for _, ev := range b.Events {
		if _, err := w.Write(ev); err != nil {
			return
		}
		if err := fl.Flush(); err != nil {
			return
		}
	}
	if b.Drop {
		// The server breaks the connection without the chunked body's
		// last chunk: the client's read fails mid-body.
		panic(http.ErrAbortHandler)
	}
}

// ChatFinal is an OpenAI Chat Completions stream of one plain answer
// (content, finish_reason stop, [DONE]): the follow-up that ends a tool loop.
func ChatFinal(text string) Body {
	q := fmt.Sprintf("%q", text)
	return Body{Events: [][]byte{
		[]byte(`data: {"id":"chatcmpl-final","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{"role":"assistant","content":` + q + `},"finish_reason":null}]}` + "\n\n"),
		[]byte(`data: {"id":"chatcmpl-final","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}` + "\n\n"),
		[]byte("data: [DONE]\n\n"),
	}}
}
