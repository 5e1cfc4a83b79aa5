package peers

import (
	"context"
	"net/http"
	"runtime/debug"

	"github.com/sealgate/sealgate"
	"github.com/sealgate/sealgate/model"
	"github.com/sealgate/sealgate/wire"
)

// Release is one call an idiom would execute, with the argument bytes it
// would hand the tool.
type Release struct {
	Attempt, Item, Call, Tool string // Attempt and Item may be "": the call is then found by Call, else by tool and arguments
	Args                      []byte
	Object                    bool   // the tool got a parsed object and Args is its serialization, so its bytes can only match compacted
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
	Drive    Drive

	process *Process // the peer process that runs it, for an idiom outside this module
	version string   // its module's version, as the peer process said
}

// Drive runs an idiom against the loopback server and calls emit for each
// call it would execute, at the moment it would execute it; the harness
// stamps each release with how far into the body the idiom had read.
type Drive func(ctx context.Context, c Conn, emit func(Release)) error

// Conn is what an idiom needs to reach the loopback server.
type Conn struct {
	BaseURL string
	HTTP    *http.Client    // its response bodies are read one SSE event at a time: an idiom must use it or its Transport
	Config  sealgate.Config // every tool the body names, as replay -wire declares them
	Tools   []string        // their names, for idioms that register tools
}

// Version is the version of the peer's module in this build, or "(devel)".
func (p *Peer) Version() string {
	if p.version != "" {
		return p.version
	}
	return moduleVersion(p.Module)
}

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
