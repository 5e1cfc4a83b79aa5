package main

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// fixtureLines reads a vendor capture in place, one JSON chunk a line:
// $SEALGATE_VENDOR_FIXTURES, or ../shared/vendor-fixtures beside the
// repository (this module sits two folders below its root). Without it the
// test is skipped, saying so.
func fixtureLines(t *testing.T, rel string) []string {
	t.Helper()
	dir := os.Getenv("SEALGATE_VENDOR_FIXTURES")
	if dir == "" {
		dir = filepath.Join("..", "..", "..", "shared", "vendor-fixtures")
	}
	b, err := os.ReadFile(filepath.Join(dir, rel))
	if os.IsNotExist(err) {
		t.Skipf("vendor fixture %s not found: this test needs ../shared/vendor-fixtures beside the repository (or $SEALGATE_VENDOR_FIXTURES)", rel)
	}
	if err != nil {
		t.Fatal(err)
	}
	return strings.Split(strings.TrimSpace(string(b)), "\n")
}

// The three Vertex captures whose calls stream their arguments as pieces.
var vertexCaptures = []string{
	"gemini/vertex-partial-args-two-sequential-calls.jsonl",
	"gemini/vertex-partial-args-no-terminal-functioncall.jsonl",
	"gemini/vertex-no-args-call-then-three-partial-calls.jsonl",
}

// chunkCall is what one chunk line says about its function call, read
// with plain encoding/json (independently of wire).
type chunkCall struct {
	ResponseID string `json:"responseId"`
	Candidates []struct {
		Content struct {
			Parts []struct {
				FunctionCall *struct {
					Name         string `json:"name"`
					WillContinue bool   `json:"willContinue"`
					PartialArgs  []struct {
						StringValue  *string `json:"stringValue"`
						WillContinue bool    `json:"willContinue"`
					} `json:"partialArgs"`
				} `json:"functionCall"`
			} `json:"parts"`
		} `json:"content"`
	} `json:"candidates"`
}

func readChunk(t *testing.T, line string) chunkCall {
	t.Helper()
	var c chunkCall
	if err := json.Unmarshal([]byte(line), &c); err != nil {
		t.Fatalf("capture line: %v", err)
	}
	return c
}

// lastWhere is the index of the last line for which f holds, or -1.
func lastWhere(t *testing.T, lines []string, f func(chunkCall) bool) int {
	t.Helper()
	for i := len(lines) - 1; i >= 0; i-- {
		if f(readChunk(t, lines[i])) {
			return i
		}
	}
	return -1
}

// midString holds for a chunk whose last piece leaves its string open.
func midString(c chunkCall) bool {
	for _, cand := range c.Candidates {
		for _, p := range cand.Content.Parts {
			if fc := p.FunctionCall; fc != nil && len(fc.PartialArgs) > 0 {
				last := fc.PartialArgs[len(fc.PartialArgs)-1]
				return last.StringValue != nil && last.WillContinue
			}
		}
	}
	return false
}

// callContinues holds for a chunk whose function call promises more.
func callContinues(c chunkCall) bool {
	for _, cand := range c.Candidates {
		for _, p := range cand.Content.Parts {
			if fc := p.FunctionCall; fc != nil && fc.WillContinue {
				return true
			}
		}
	}
	return false
}

// stopChunk is a bare STOP finish of the response the line belongs to.
func stopChunk(t *testing.T, line string) string {
	id, _ := json.Marshal(readChunk(t, line).ResponseID)
	return `{"candidates":[{"content":{"role":"model","parts":[{"text":""}]},"finishReason":"STOP"}],"responseId":` + string(id) + `}`
}

// vertexServer serves every streamGenerateContent request as Vertex does
// with alt=sse: each line one SSE event. With half, it then sends half of
// that line and breaks the connection.
func vertexServer(t *testing.T, lines []string, half string) *httptest.Server {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !strings.HasSuffix(r.URL.Path, ":streamGenerateContent") || r.URL.Query().Get("alt") != "sse" {
			http.Error(w, "want :streamGenerateContent?alt=sse, got "+r.URL.String(), http.StatusNotFound)
			return
		}
		w.Header().Set("Content-Type", "text/event-stream")
		w.WriteHeader(http.StatusOK)
		fl := w.(http.Flusher)
		for _, l := range lines {
			w.Write([]byte("data: " + l + "\r\n\r\n"))
			fl.Flush()
		}
		if half != "" {
			w.Write([]byte("data: " + half[:len(half)/2]))
			fl.Flush()
			panic(http.ErrAbortHandler)
		}
	}))
	t.Cleanup(srv.Close)
	return srv
}
