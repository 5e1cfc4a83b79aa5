package peers

import (
	"fmt"
	"strings"

	"github.com/sealgate/sealgate"
	"github.com/sealgate/sealgate/check"
	"github.com/sealgate/sealgate/model"
	"github.com/sealgate/sealgate/wire"
)

// Config is the configuration a peer is judged under: every tool the body
// names, schema {"type":"object"}, the default policy, as `sealfuzz replay
// -wire` declares them.
func Config(events []sealgate.Event) sealgate.Config { return wire.ToolsConfig(events) }

// Judge says which invariant an outcome breaks, or nil: the catalog's
// checks that a peer can answer, over the body's normalized events and the
// peer's releases, then SEAL (every release one strictly valid JSON object).
func Judge(out Outcome) error {
	cfg := Config(out.Meaning.Events)
	t := &check.Trace{Config: cfg, Events: out.Meaning.Events, Decisions: out.Releases}
	if err := check.Invariants(t); err != nil {
		// A peer answers no rejects: a call it does not run has no verdict
		// it could express, so only I11's double release applies.
		if v, ok := err.(*check.Violation); !ok || v.ID != "I11" || !strings.Contains(v.Msg, "has no verdict") {
			return err
		}
	}
	for _, d := range out.Releases {
		if _, err := model.CheckJSON(d.Args, cfg.Limits.Depth); err != nil {
			return &check.Violation{ID: "SEAL", Name: "releases are sealed", Event: d.At,
				Msg: fmt.Sprintf("%s: not one strictly valid JSON text: %v", d, err)}
		}
		if len(d.Args) == 0 || d.Args[0] != '{' {
			return &check.Violation{ID: "SEAL", Name: "releases are sealed", Event: d.At,
				Msg: fmt.Sprintf("%s: not a JSON object", d)}
		}
	}
	return nil
}
