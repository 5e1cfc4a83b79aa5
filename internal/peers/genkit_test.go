package peers

import (
	"flag"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/sealgate/sealgate/internal/trial"
	"github.com/sealgate/sealgate/scn"
	"github.com/sealgate/sealgate/wire"
)

// genkitIdioms are the genkit process's idioms, promised by name so that
// reports compare across versions.
var genkitIdioms = []string{"genkit/openai-any", "genkit/openai-typed", "genkit/anthropic-any", "genkit/anthropic-typed"}

// startGenkit builds and starts the genkit peer process (its own module:
// genkit cannot share a build with this one). When go cannot build it (no
// module cache and no network) the test is skipped, saying so, except in
// CI (CI=true), where that fails.
func startGenkit(t *testing.T) *Process {
	t.Helper()
	root, err := RepoRoot(".")
	if err != nil {
		t.Fatal(err)
	}
	i := slices.IndexFunc(Outsides, func(o Outside) bool { return o.Name == "genkit" })
	if i < 0 {
		t.Fatal("Outsides has no genkit process")
	}
	pr, err := Outsides[i].start(root, t.TempDir())
	if err != nil {
		if os.Getenv("CI") != "true" && strings.Contains(err.Error(), "go build in") {
			t.Skipf("the genkit peer process does not build here (its modules need the Go module proxy once): %v", err)
		}
		t.Fatal(err)
	}
	t.Cleanup(func() { pr.Close() })
	return pr
}

// TestGenkitProcess builds the process once for its parts.
func TestGenkitProcess(t *testing.T) {
	pr := startGenkit(t)
	t.Run("hello", func(t *testing.T) { genkitSaysHello(t, pr) })
	t.Run("judged", func(t *testing.T) { genkitRunsAreJudged(t, pr) })
	t.Run("stored", func(t *testing.T) { genkitStoredBodiesReproduce(t, pr) })
	if *genkitRate > 0 {
		t.Run("rate", func(t *testing.T) { genkitRuns(t, pr, *genkitRate) })
	}
}

// genkitStoredBodiesReproduce: every body stored for a genkit idiom in
// corpus/peers still shows its violation.
func genkitStoredBodiesReproduce(t *testing.T, pr *Process) {
	files, err := filepath.Glob(filepath.Join("..", "..", "corpus", "peers", "genkit-*.sse"))
	if err != nil {
		t.Fatal(err)
	}
	set := &Set{Peers: pr.Peers()}
	for _, f := range files {
		var out strings.Builder
		if code := ReplayFile(f, set, &out, &out); code != 0 {
			t.Errorf("%s: exit %d\n%s", f, code, out.String())
		}
	}
	if len(files) < 8 {
		t.Errorf("only %d stored genkit bodies", len(files))
	}
}

var genkitRate = flag.Int("genkit.rate", 0, "TestGenkitProcess: time each genkit idiom over this many corpus bodies (0: skip)")

// genkitRuns prints each genkit idiom's runs per second through the
// process over the first n corpus bodies its protocol carries, with no
// fault, as internal/frameworks' TestRate does for the other frameworks.
//
//	go test ./internal/peers -run TestGenkitProcess -v -genkit.rate=150
func genkitRuns(t *testing.T, pr *Process, n int) {
	corpus, err := trial.LoadCorpus(trial.Embedded)
	if err != nil {
		t.Fatal(err)
	}
	r := NewRunner()
	defer r.Close()
	for _, p := range pr.Peers() {
		var bodies []Body
		for _, s := range corpus {
			if b, ok := Build(p.Protocol, s.Events, Fault{}); ok && len(bodies) < n {
				bodies = append(bodies, b)
			}
		}
		start := time.Now()
		for _, b := range bodies {
			if _, err := r.Run(p, b); err != nil {
				t.Fatal(err)
			}
		}
		took := time.Since(start)
		t.Logf("%-28s %4d runs %8s %6.0f runs/s", p.Name, len(bodies), took.Round(time.Millisecond), float64(len(bodies))/took.Seconds())
	}
}

// genkitSaysHello: the process names its idioms with genkit's
// version and protocols, and its raw controls as raw: the hello line's
// field names are the ones child.go reads.
func genkitSaysHello(t *testing.T, pr *Process) {
	if !strings.HasPrefix(pr.Runtime, "go1.") {
		t.Errorf("runtime %q", pr.Runtime)
	}
	byName := map[string]*Peer{}
	for _, p := range pr.Peers() {
		byName[p.Name] = p
	}
	for _, name := range genkitIdioms {
		p, ok := byName[name]
		if !ok {
			t.Errorf("the genkit process has no idiom %s", name)
			continue
		}
		want := wire.OpenAIChat
		if strings.Contains(name, "anthropic") {
			want = wire.Anthropic
		}
		if p.Protocol != want || p.Module != "github.com/firebase/genkit/go" || p.Version() != "v1.4.0" || p.Control || p.raw || p.Idiom == "" || p.Docs == "" {
			t.Errorf("%s: protocol %s module %s version %q control %v raw %v idiom %q docs %q", name, p.Protocol, p.Module, p.Version(), p.Control, p.raw, p.Idiom, p.Docs)
		}
	}
	for _, proto := range []wire.Protocol{wire.OpenAIChat, wire.Anthropic} {
		p, ok := byName["genkit/raw-"+string(proto)]
		if !ok || !p.raw || !p.Control || p.Protocol != proto {
			t.Errorf("genkit/raw-%s: %+v", proto, p)
		}
	}
}

// genkitRunsAreJudged: through the process, a complete body of two
// calls gets both run once with their bytes and no violation; a body
// whose terminal event is dropped gets its calls run anyway on OpenAI (a
// violation, placed before the close); an Anthropic body without
// message_stop crashes genkit (SUBJECT-crash); the raw controls break
// nothing and release what the in-process control releases.
func genkitRunsAreJudged(t *testing.T, pr *Process) {
	r := NewRunner()
	defer r.Close()
	peer := func(name string) *Peer {
		for _, p := range pr.Peers() {
			if p.Name == name {
				return p
			}
		}
		t.Fatalf("no peer %s", name)
		return nil
	}
	for _, name := range genkitIdioms {
		p := peer(name)
		out, err := r.Run(p, build(t, p.Protocol, twoCalls(), Fault{}))
		if err != nil {
			t.Fatal(err)
		}
		if v := Judge(out); v != nil || out.SDKErr != nil {
			t.Errorf("%s on a complete body: judged %v, error %v", name, v, out.SDKErr)
		}
		got := map[string]string{}
		for _, d := range out.Releases {
			got[d.Call] = string(d.Args)
		}
		if len(out.Releases) != 2 || got["call_1"] != `{"city":"Paris"}` || got["call_2"] != `{"tz":"CET"}` {
			t.Errorf("%s: released %v", name, got)
		}
	}
	for _, name := range []string{"genkit/openai-any", "genkit/openai-typed"} {
		out, err := r.Run(peer(name), build(t, wire.OpenAIChat, twoCalls(), Fault{Kind: DropTerminal}))
		if err != nil {
			t.Fatal(err)
		}
		if v := Judge(out); v == nil || !strings.HasPrefix(Class(v), "I1") {
			t.Errorf("%s with no terminal event: judged %v, want the calls run before their attempt's close", name, v)
		}
	}
	for _, name := range []string{"genkit/anthropic-any", "genkit/anthropic-typed"} {
		out, err := r.Run(peer(name), build(t, wire.Anthropic, twoCalls(), Fault{Kind: DropTerminal}))
		if err != nil {
			t.Fatal(err)
		}
		if v := Judge(out); v == nil || Class(v) != "SUBJECT-crash" || !strings.Contains(v.Error(), "nil pointer") {
			t.Errorf("%s with no message_stop: judged %v, want SUBJECT-crash", name, v)
		}
	}
	faults := []Fault{{}, {Kind: DropTerminal}, {Kind: CutInside, At: 3}, {Kind: ResetInside, At: 5}, {Kind: ErrorAfter, At: 2}}
	compared := 0
	for i, evs := range enrichInputs(t) {
		if i%8 != 0 {
			continue
		}
		for _, proto := range []wire.Protocol{wire.OpenAIChat, wire.Anthropic} {
			b, ok := Build(proto, evs, faults[i%len(faults)])
			if !ok {
				continue
			}
			goControl, _ := Lookup(string(proto) + "/sealgate")
			got, err := r.Run(peer("genkit/raw-"+string(proto)), b)
			if err != nil {
				t.Fatal(err)
			}
			want, err := r.Run(goControl, b)
			if err != nil {
				t.Fatal(err)
			}
			if v := Judge(got); v != nil {
				t.Errorf("%s: the raw control breaks %v", proto, v)
			}
			if a, b := string(scn.FormatDecisions(got.Releases)), string(scn.FormatDecisions(want.Releases)); a != b {
				t.Errorf("%s: raw control released\n%s\nthe Go control\n%s", proto, a, b)
			}
			compared++
		}
	}
	if compared < 20 {
		t.Errorf("only %d bodies compared", compared)
	}
}

// TestGenkitProtocolIsChilds: the genkit module writes the protocol's line
// types out (it may not import this module); each has exactly the fields,
// JSON names and types of child.go's.
func TestGenkitProtocolIsChilds(t *testing.T) {
	file := filepath.Join("..", "genkit", "protocol.go")
	f, err := parser.ParseFile(token.NewFileSet(), file, nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	theirs := map[string]map[string]string{} // type name: JSON tag: Go type
	for _, d := range f.Decls {
		gd, ok := d.(*ast.GenDecl)
		if !ok {
			continue
		}
		for _, sp := range gd.Specs {
			ts, ok := sp.(*ast.TypeSpec)
			if !ok {
				continue
			}
			st, ok := ts.Type.(*ast.StructType)
			if !ok {
				continue
			}
			fields := map[string]string{}
			for _, fl := range st.Fields.List {
				tag := ""
				if fl.Tag != nil {
					tag = reflect.StructTag(strings.Trim(fl.Tag.Value, "`")).Get("json")
				}
				fields[tag] = types(fl.Type)
			}
			theirs[ts.Name.Name] = fields
		}
	}
	for name, v := range map[string]any{"helloLine": helloLine{}, "hello": hello{}, "peerHello": peerHello{},
		"request": request{}, "reply": reply{}, "execution": execution{}, "rawRead": rawRead{}} {
		rt := reflect.TypeOf(v)
		ours := map[string]string{}
		for i := range rt.NumField() {
			ft := strings.ReplaceAll(strings.ReplaceAll(rt.Field(i).Type.String(), "peers.", ""), "uint8", "byte")
			ours[rt.Field(i).Tag.Get("json")] = ft
		}
		if !reflect.DeepEqual(ours, theirs[name]) {
			t.Errorf("%s: child.go has %v, %s has %v", name, ours, file, theirs[name])
		}
	}
}

// types writes a field's type as reflect does, without package names.
func types(e ast.Expr) string {
	switch x := e.(type) {
	case *ast.Ident:
		return x.Name
	case *ast.StarExpr:
		return "*" + types(x.X)
	case *ast.ArrayType:
		return "[]" + types(x.Elt)
	}
	return "?"
}
