package guard_test

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/sealgate/sealgate/internal/loopback"

	"github.com/sealgate/sealgate"
	"github.com/sealgate/sealgate/gate"
	"github.com/sealgate/sealgate/guard"
)

// fixture and sseEvents are loopback's: one capture read in place (skipped,
// saying so, without ../shared), and an SSE body cut into its events.
func fixture(t testing.TB, rel string) []byte { return loopback.Fixture(t, rel) }

func sseEvents(body []byte) [][]byte { return loopback.Events(body) }

// jsonlToSSE rebuilds the SSE body of a JSONL fixture (SOURCES.md): for
// Anthropic the event name is the payload's type.
func jsonlToSSE(t *testing.T, b []byte, named bool) []byte {
	t.Helper()
	var out bytes.Buffer
	for _, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		if named {
			typ := between(line, `"type":"`, `"`)
			if typ == "" {
				t.Fatalf("JSONL line without a type: %.80s", line)
			}
			out.WriteString("event: " + typ + "\n")
		}
		out.WriteString("data: " + line + "\n\n")
	}
	return out.Bytes()
}

func between(s, from, to string) string {
	i := strings.Index(s, from)
	if i < 0 {
		return ""
	}
	s = s[i+len(from):]
	j := strings.Index(s, to)
	if j < 0 {
		return ""
	}
	return s[:j]
}

// recorder keeps every decision and error a guard hands over.
type recorder struct {
	mu     sync.Mutex
	ds     []sealgate.Decision
	errs   []error
	onCall func(sealgate.Decision) // runs inside OnDecision, when set
}

func (r *recorder) decisions() []sealgate.Decision {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]sealgate.Decision(nil), r.ds...)
}

func (r *recorder) errors() []error {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]error(nil), r.errs...)
}

func (r *recorder) of(k sealgate.DecisionKind) []sealgate.Decision {
	var out []sealgate.Decision
	for _, d := range r.decisions() {
		if d.Kind == k {
			out = append(out, d)
		}
	}
	return out
}

// lines renders the decisions without their At, which counts the gate's
// events across every response.
func (r *recorder) lines() []string {
	var out []string
	for _, d := range r.decisions() {
		d.At = 0
		out = append(out, strings.TrimPrefix(d.String(), "@0 "))
	}
	return out
}

// newGuard builds a guard over a fresh gate with the default configuration
// and the wrapped transport next.
func newGuard(t testing.TB, next http.RoundTripper, o guard.Options) (*guard.Guard, *recorder) {
	t.Helper()
	g, err := gate.New(fixtureConfig(), gate.NewMemoryLedger())
	if err != nil {
		t.Fatal(err)
	}
	r := &recorder{}
	o.OnDecision = func(_ context.Context, d sealgate.Decision) {
		r.mu.Lock()
		r.ds = append(r.ds, d)
		f := r.onCall
		r.mu.Unlock()
		if f != nil {
			f(d)
		}
	}
	o.OnError = func(_ context.Context, err error) {
		r.mu.Lock()
		r.errs = append(r.errs, err)
		r.mu.Unlock()
	}
	gd, err := guard.New(next, g, o)
	if err != nil {
		t.Fatal(err)
	}
	return gd, r
}

// fixtureConfig declares the client tools the captures call, each taking
// any object.
func fixtureConfig() sealgate.Config {
	cfg := sealgate.DefaultConfig()
	for _, name := range []string{"GetWeatherArgs", "get_weather", "get_capital", "get_stock_price",
		"make_file", "updateIssueList", "get_current_weather", "get_location", "read_screen", "get_country",
		"getWeather", "writeItems", "read_theme"} {
		cfg.Tools = append(cfg.Tools, sealgate.Tool{Name: name, Schema: `{"type":"object"}`})
	}
	return cfg
}

// roundTrip is an http.RoundTripper from a function.
type roundTrip func(*http.Request) (*http.Response, error)

func (f roundTrip) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

// serve answers every request with a 200 event stream whose body newBody
// makes.
func serve(newBody func() io.ReadCloser) http.RoundTripper {
	return roundTrip(func(r *http.Request) (*http.Response, error) {
		return &http.Response{StatusCode: 200, Header: http.Header{"Content-Type": {"text/event-stream; charset=utf-8"}},
			Body: newBody(), Request: r}, nil
	})
}

func staticBody(b []byte) func() io.ReadCloser {
	return func() io.ReadCloser { return io.NopCloser(bytes.NewReader(b)) }
}

// post makes a request of the turn to path (the protocol is detected from
// it).
func post(t testing.TB, ctx context.Context, turn, path string) *http.Request {
	t.Helper()
	if turn != "" {
		ctx = guard.WithTurn(ctx, turn)
	}
	req, err := http.NewRequestWithContext(ctx, "POST", "http://vendor.test"+path, strings.NewReader(`{"stream":true}`))
	if err != nil {
		t.Fatal(err)
	}
	return req
}

// readAll sends req through gd and reads the whole body, as an SDK does.
func readAll(t *testing.T, gd *guard.Guard, req *http.Request) ([]byte, error) {
	t.Helper()
	resp, err := gd.RoundTrip(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	return io.ReadAll(resp.Body)
}

// want compares decision lines.
func want(t *testing.T, got []string, exp ...string) {
	t.Helper()
	if strings.Join(got, "\n") != strings.Join(exp, "\n") {
		t.Fatalf("decisions:\n  %s\nwant:\n  %s", strings.Join(got, "\n  "), strings.Join(exp, "\n  "))
	}
}
