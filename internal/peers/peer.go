package peers

import (
	"context"
	"fmt"
	"net/http"
	"runtime/debug"
	"sort"
	"sync"

	"github.com/sealgate/sealgate"
	"github.com/sealgate/sealgate/model"
	"github.com/sealgate/sealgate/wire"
)

// Release is one call an idiom would execute, with the argument bytes it
// would hand the tool.
type Release struct {
	Attempt, Item, Call, Tool string
	Args                      []byte
	Key                       string // the gate's own key (the control); "" for an SDK
}

// releaseKey is the key the default configuration gives a call (idem mode
// args: turn, tool, canonical form), so that I7 counts an SDK's releases as
// it counts the gate's; arguments with no canonical form key by their bytes.
func releaseKey(tool string, args []byte) string {
	c, err := model.Canonical(args)
	if err != nil {
		c = args
	}
	return sealgate.Key(sealgate.ArgsMaterial(Turn, tool, c))
}

// Peer is one gate under test: an SDK idiom (or, as the control, the
// project's own gate) behind the same adapter.
type Peer struct {
	Name     string // short and unique, e.g. "openai-chat/just-finished"
	Module   string // the Go module whose code decides, e.g. github.com/openai/openai-go/v3
	Idiom    string // what the application does, in one line
	Protocol wire.Protocol
	Control  bool   // the project's own gate: must show no violation
	Docs     string // what the SDK's own documentation says about the idiom

	// drive runs the idiom against the loopback server and calls emit for
	// each call it would execute, at the moment it would execute it.
	drive func(ctx context.Context, c conn, emit func(Release)) error
}

// conn is what an adapter needs to reach the loopback server.
type conn struct {
	baseURL string
	http    *http.Client
	config  sealgate.Config // every tool the body names, as replay -wire declares them
	tools   []string        // their names, for idioms that register tools
}

// Version is the version of the peer's module in this build, or "(devel)".
func (p *Peer) Version() string { return moduleVersion(p.Module) }

func moduleVersion(path string) string {
	if path == "" {
		return ""
	}
	if bi, ok := debug.ReadBuildInfo(); ok {
		if bi.Main.Path == path {
			return bi.Main.Version
		}
		for _, d := range bi.Deps {
			if d.Path == path {
				if d.Replace != nil {
					return d.Replace.Version
				}
				return d.Version
			}
		}
	}
	return sdkVersions[path]
}

// sdkVersions are the SDK versions go.mod requires, for binaries built
// without module information (test binaries); TestVersionsAreGoMod keeps
// them equal to go.mod.
var sdkVersions = map[string]string{
	openaiModule:    "v3.100.0",
	anthropicModule: "v1.84.0",
}

// Outcome is one run of a peer over one body: what the body means (by
// wire) and what the peer released, as release decisions placed at the
// normalized event each answers.
type Outcome struct {
	Meaning  Meaning
	Releases []sealgate.Decision
	SDKErr   error // what the SDK itself reported, for the record
}

// Runner runs peers against one loopback server, one run at a time.
type Runner struct {
	mu  sync.Mutex
	srv *server
}

// NewRunner starts a loopback server; Close stops it.
func NewRunner() *Runner { return &Runner{srv: newServer()} }

// Close stops the server.
func (r *Runner) Close() { r.srv.close() }

// Turn is the turn every decoded attempt belongs to (wire's default), and
// so the turn of every release key.
const Turn = "t1"

// Run serves body to the peer and records its releases. An error means the
// run itself went wrong (the SDK hung, or the adapter broke), not that the
// peer released something it should not have: that is Judge's to say.
func (r *Runner) Run(p *Peer, body Body) (Outcome, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := Outcome{Meaning: body.Decode()}
	sess := r.srv.start(body, followUps[p.Protocol])
	cfg := wire.ToolsConfig(out.Meaning.Events)
	c := conn{baseURL: r.srv.ts.URL, http: r.srv.client(), config: cfg}
	for _, t := range cfg.Tools {
		c.tools = append(c.tools, t.Name)
	}
	var mu sync.Mutex
	emit := func(rel Release) {
		delivered, eof := sess.position()
		key := rel.Key
		if key == "" {
			key = releaseKey(rel.Tool, rel.Args)
		}
		mu.Lock()
		defer mu.Unlock()
		out.Releases = append(out.Releases, sealgate.Decision{
			At: out.Meaning.At(delivered, eof), Kind: sealgate.Release,
			Attempt: rel.Attempt, Item: rel.Item, Call: rel.Call, Tool: rel.Tool,
			Key: key, Args: sealgate.Compact(rel.Args),
		})
	}
	ctx, cancel := runContext()
	defer cancel()
	out.SDKErr = p.drive(ctx, c, emit)
	if ctx.Err() != nil {
		return out, fmt.Errorf("%s: %w", p.Name, errHung)
	}
	// Releases made at one point (a tool runner's parallel tools) are put
	// in the order their calls began, the order in which a gate decides
	// them (SPEC section 6), so that a run reads the same every time.
	began := beginOrder(out.Meaning.Events)
	sort.SliceStable(out.Releases, func(i, j int) bool {
		a, b := out.Releases[i], out.Releases[j]
		return a.At < b.At || a.At == b.At && began[[2]string{a.Attempt, a.Item}] < began[[2]string{b.Attempt, b.Item}]
	})
	return out, nil
}

// beginOrder numbers each call (attempt, item) by the position of its begin
// event; a call with no begin sorts first.
func beginOrder(events []sealgate.Event) map[[2]string]int {
	order := map[[2]string]int{}
	for i, ev := range events {
		if ev.Kind == sealgate.Begin {
			if _, seen := order[[2]string{ev.Attempt, ev.Item}]; !seen {
				order[[2]string{ev.Attempt, ev.Item}] = i + 1
			}
		}
	}
	return order
}

// followUps answer any request after the first (a tool runner's next turn)
// with a plain final message, so the runner stops.
var followUps = map[wire.Protocol][]byte{
	wire.Anthropic: []byte("event: message_start\ndata: {\"type\":\"message_start\",\"message\":{\"id\":\"msg_followup\",\"type\":\"message\",\"role\":\"assistant\",\"model\":\"claude-peer\",\"content\":[],\"stop_reason\":null,\"stop_sequence\":null,\"usage\":{\"input_tokens\":1,\"output_tokens\":1}}}\n\n" +
		"event: message_delta\ndata: {\"type\":\"message_delta\",\"delta\":{\"stop_reason\":\"end_turn\",\"stop_sequence\":null},\"usage\":{\"output_tokens\":1}}\n\n" +
		"event: message_stop\ndata: {\"type\":\"message_stop\"}\n\n"),
}

// All lists every peer: the SDK idioms, then the controls.
func All() []*Peer {
	return append(SDKPeers(), Controls()...)
}

// SDKPeers lists the SDK idioms under test.
func SDKPeers() []*Peer {
	return []*Peer{chatJustFinished, chatCareful, responsesArgsDone, responsesCompleted,
		anthropicBlockStop, anthropicCareful, anthropicToolRunner}
}

// Lookup finds a peer by name.
func Lookup(name string) (*Peer, bool) {
	for _, p := range All() {
		if p.Name == name {
			return p, true
		}
	}
	return nil, false
}
