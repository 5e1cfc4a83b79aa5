package peers

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/sealgate/sealgate/scn"
	"github.com/sealgate/sealgate/wire"
)

// jsDir is the Node harness, relative to this package.
var jsDir = filepath.Join("js")

// TestJSLockfileHasNoRegistryAddresses: the committed lockfile records no
// download address (npm's omit-lockfile-registry-resolved), so `npm ci`
// installs from whatever registry the machine is configured for.
func TestJSLockfileHasNoRegistryAddresses(t *testing.T) {
	src, err := os.ReadFile(filepath.Join(jsDir, "package-lock.json"))
	if err != nil {
		t.Fatal(err)
	}
	var lock struct {
		Packages map[string]map[string]any `json:"packages"`
	}
	if err := json.Unmarshal(src, &lock); err != nil {
		t.Fatalf("package-lock.json: %v", err)
	}
	if len(lock.Packages) < 10 {
		t.Fatalf("package-lock.json lists %d packages: not a lockfile of the harness", len(lock.Packages))
	}
	for name, p := range lock.Packages {
		if r, ok := p["resolved"].(string); ok && strings.Contains(r, "http") {
			t.Errorf("package-lock.json: %s is resolved to %s", name, r)
		}
	}
	if m := regexp.MustCompile(`"resolved":\s*"[^"]*http`).Find(src); m != nil {
		t.Errorf("package-lock.json holds a registry address: %s", m)
	}
	npmrc, err := os.ReadFile(filepath.Join(jsDir, ".npmrc"))
	if err != nil || !strings.Contains(string(npmrc), "omit-lockfile-registry-resolved=true") {
		t.Errorf(".npmrc does not set omit-lockfile-registry-resolved=true (%v)", err)
	}
}

// TestJSVersionsArePinned: package.json names exact versions, and the
// lockfile installs exactly those.
func TestJSVersionsArePinned(t *testing.T) {
	var pkg struct {
		Dependencies map[string]string `json:"dependencies"`
	}
	var lock struct {
		Packages map[string]struct {
			Version string `json:"version"`
		} `json:"packages"`
	}
	for file, v := range map[string]any{"package.json": &pkg, "package-lock.json": &lock} {
		src, err := os.ReadFile(filepath.Join(jsDir, file))
		if err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(src, v); err != nil {
			t.Fatalf("%s: %v", file, err)
		}
	}
	exact := regexp.MustCompile(`^\d+\.\d+\.\d+$`)
	for _, want := range []string{"ai", "@ai-sdk/openai", "@ai-sdk/anthropic", "openai", "@anthropic-ai/sdk", "@langchain/openai", "@langchain/core", "zod"} {
		if _, ok := pkg.Dependencies[want]; !ok {
			t.Errorf("package.json does not depend on %s", want)
		}
	}
	for name, v := range pkg.Dependencies {
		if !exact.MatchString(v) {
			t.Errorf("package.json: %s %q is not an exact version", name, v)
		}
		if got := lock.Packages["node_modules/"+name].Version; got != v {
			t.Errorf("package-lock.json installs %s %s, package.json pins %s", name, got, v)
		}
	}
}

// jsIdioms are the idioms the suite promises by name, so that reports compare
// across versions.
var jsIdioms = []string{"vercel-chat", "vercel-responses", "vercel-anthropic", "openai-node-runtools", "openai-node-args-done",
	"openai-node-chat-careful", "openai-node-responses-args-done", "openai-node-responses-careful", "anthropic-ts-tool-runner",
	"anthropic-ts-tool-runner-eager", "anthropic-ts-content-block", "anthropic-ts-careful", "langchain-chat", "langchain-responses"}

// openJS starts the Node harness; without node or `npm ci` the test is
// skipped, except in CI (CI=true), where that fails.
func openJS(t *testing.T) *Set {
	t.Helper()
	root, err := RepoRoot(".")
	if err != nil {
		t.Fatal(err)
	}
	set, err := Open(root, []string{"js"}, t.TempDir(), os.Getenv("CI") == "true")
	if err != nil {
		t.Fatal(err)
	}
	if len(set.Skipped) > 0 {
		set.Close()
		t.Skip(set.Skipped[0])
	}
	t.Cleanup(set.Close)
	return set
}

// TestJSIdiomsRunThroughTheirSDKs: every idiom is there under its name,
// and on a complete body of two calls each runs both, with their own ids
// and arguments, through its SDK's HTTP and SSE path, with no error.
func TestJSIdiomsRunThroughTheirSDKs(t *testing.T) {
	set := openJS(t)
	r := NewRunner()
	defer r.Close()
	for _, name := range jsIdioms {
		p, ok := set.Lookup(name)
		if !ok {
			t.Errorf("the Node harness has no idiom %s", name)
			continue
		}
		if p.Version() == "" {
			t.Errorf("%s: no version of %s", name, p.Module)
		}
		out, err := r.Run(p, build(t, p.Protocol, twoCalls(), Fault{}))
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if out.SDKErr != nil || out.Subject != nil {
			t.Errorf("%s: error %v, failure %v", name, out.SDKErr, out.Subject)
		}
		got := map[string]string{}
		for _, d := range out.Releases {
			got[d.Call] = string(d.Args)
		}
		want := map[string]string{"call_1": `{"city":"Paris"}`, "call_2": `{"tz":"CET"}`}
		if len(got) != 2 || got["call_1"] != want["call_1"] || got["call_2"] != want["call_2"] {
			t.Errorf("%s: released %v, want %v", name, got, want)
		}
	}
}

// TestJSControlIsTheGoControl: the raw control (the body read through the
// Node harness's stepped fetch, decoded by wire and gated in Go) releases
// exactly what the in-process control releases, at the same events, and
// breaks nothing, for corpus scenarios and generated streams with faults:
// the Node side of the harness invents no violation.
func TestJSControlIsTheGoControl(t *testing.T) {
	set := openJS(t)
	r := NewRunner()
	defer r.Close()
	inputs := enrichInputs(t)
	faults := []Fault{{}, {Kind: DropTerminal}, {Kind: CutInside, At: 3}, {Kind: ResetInside, At: 5}, {Kind: ErrorAfter, At: 2}}
	compared := 0
	for i, evs := range inputs {
		if i%4 != 0 {
			continue // a quarter is enough to show it; the campaign runs the rest
		}
		for _, proto := range []wire.Protocol{wire.OpenAIChat, wire.OpenAIResponses, wire.Anthropic} {
			raw, ok := set.Lookup("raw/" + string(proto))
			if !ok {
				t.Fatalf("no raw/%s", proto)
			}
			goControl, _ := Lookup(string(proto) + "/sealgate")
			b, ok := Build(proto, evs, faults[i%len(faults)])
			if !ok {
				continue
			}
			js, err := r.Run(raw, b)
			if err != nil {
				t.Fatal(err)
			}
			want, err := r.Run(goControl, b)
			if err != nil {
				t.Fatal(err)
			}
			if v := Judge(js); v != nil {
				t.Errorf("%s: the raw control breaks %v", proto, v)
			}
			if a, b := string(scn.FormatDecisions(js.Releases)), string(scn.FormatDecisions(want.Releases)); a != b {
				t.Errorf("%s: raw control released\n%s\nthe Go control\n%s", proto, a, b)
			}
			compared++
		}
	}
	if compared < 50 {
		t.Errorf("only %d bodies compared", compared)
	}
}

// TestJSStoredBodiesReproduce: every stored body of a JavaScript idiom
// in corpus/peers still shows its violation.
func TestJSStoredBodiesReproduce(t *testing.T) {
	set := openJS(t)
	files, err := filepath.Glob(filepath.Join("..", "..", "corpus", "peers", "*.sse"))
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, f := range files {
		src, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		hdr, _ := ParseStored(src)
		if _, ok := Lookup(hdr.Peer); ok {
			continue // a Go peer's
		}
		if _, ok := set.Lookup(hdr.Peer); !ok {
			continue // another peer process's
		}
		n++
		var out strings.Builder
		if code := ReplayFile(f, set, &out, &out); code != 0 {
			t.Errorf("%s: exit %d\n%s", f, code, out.String())
		}
	}
	t.Logf("%d stored bodies of JavaScript idioms replayed", n)
}
