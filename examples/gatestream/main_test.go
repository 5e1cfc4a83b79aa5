package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// The test binary doubles as the program: run with gatestreamMainEnv set,
// it calls main, so the tests run the very code of main.go, built as it is.
const gatestreamMainEnv = "SEALGATE_GATESTREAM_MAIN"

func TestMain(m *testing.M) {
	if os.Getenv(gatestreamMainEnv) == "1" {
		main()
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// fixture reads a vendor capture in place (SEALGATE_VENDOR_FIXTURES, or
// ../shared/vendor-fixtures beside the repository); captures are never
// copied into the module.
func fixture(t *testing.T, rel string) []byte {
	t.Helper()
	dir := os.Getenv("SEALGATE_VENDOR_FIXTURES")
	if dir == "" {
		dir = filepath.Join("..", "..", "..", "shared", "vendor-fixtures")
	}
	b, err := os.ReadFile(filepath.Join(dir, rel))
	if err != nil {
		t.Skipf("vendor fixtures not found at %s (set SEALGATE_VENDOR_FIXTURES): %v", dir, err)
	}
	return b
}

// runProgram runs main with body on stdin and returns what it printed.
func runProgram(t *testing.T, body []byte) string {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), gatestreamMainEnv+"=1")
	cmd.Stdin = bytes.NewReader(body)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("gatestream: %v\n%s", err, stderr.String())
	}
	return string(out)
}

// sseCut is a capture cut just before its first event whose data starts
// with prefix: the body a dropped connection leaves.
func sseCut(t *testing.T, body []byte, prefix string) []byte {
	t.Helper()
	i := bytes.Index(body, []byte("data: "+prefix))
	if i < 0 {
		t.Fatalf("no event with data %s... in the capture", prefix)
	}
	return body[:i]
}

const (
	capture   = "anthropic/text-then-tool-use.sse"
	wantRun   = "run get_weather {\"location\":\"Paris\"}\n"
	wantDrop  = "not run: msg_019Q1hrJbZG26Fb9BQhrkHEr:1 (turn-disconnected)\n"
	cutBefore = `{"type":"content_block_stop","index":1}`
)

// The complete capture runs its one call; the same capture cut after the
// call's last argument fragment, before its content_block_stop, runs
// nothing: the arguments parse as JSON there, and the gate still waits for
// the protocol's end.
func TestRunsOnlyReleases(t *testing.T) {
	body := fixture(t, capture)
	if got := runProgram(t, body); got != wantRun {
		t.Errorf("complete capture: got %q, want %q", got, wantRun)
	}
	if got := runProgram(t, sseCut(t, body, cutBefore)); got != wantDrop {
		t.Errorf("capture cut before content_block_stop: got %q, want %q", got, wantDrop)
	}
}

// readmeMarker opens the README's copy of main.go: the next ```go block.
const readmeMarker = "<!-- the program below is examples/gatestream/main.go, byte for byte (TestREADMEProgram) -->"

// readmeProgram returns the Go block that follows readmeMarker in README.md.
func readmeProgram(t *testing.T) []byte {
	t.Helper()
	readme, err := os.ReadFile(filepath.Join("..", "..", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	_, rest, ok := strings.Cut(string(readme), readmeMarker+"\n```go\n")
	if !ok {
		t.Fatalf("README.md has no line %q followed by a ```go fence", readmeMarker)
	}
	block, _, ok := strings.Cut(rest, "\n```\n")
	if !ok {
		t.Fatal("README.md: the program's ```go block is not closed")
	}
	return []byte(block + "\n")
}

// The README shows the program; this keeps the two from drifting apart.
func TestREADMEProgram(t *testing.T) {
	src, err := os.ReadFile("main.go")
	if err != nil {
		t.Fatal(err)
	}
	if got := readmeProgram(t); !bytes.Equal(got, src) {
		t.Errorf("README.md's program differs from examples/gatestream/main.go: copy main.go into the README's block\nREADME:\n%s", got)
	}
}
