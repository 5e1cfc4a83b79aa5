package gen

import (
	"pgregory.net/rapid"

	"github.com/sealgate/sealgate"
)

// What the rapid machine draws for a run: its configuration, fixed or
// generated, and for each call a tool and the document it grows toward.
// The machine keeps only its state; every value it sends comes from here.

// DrawRunConfig draws a run's configuration: fixed half of the time (the
// shapes the zoo's counterexamples have), generated otherwise, with the
// swarm it comes from (nil for a fixed one).
func DrawRunConfig(t *rapid.T) (sealgate.Config, *Swarm) {
	if rapid.IntRange(0, 1).Draw(t, "swarm") == 0 {
		return drawFixedConfig(t), nil
	}
	sw := DrawSwarm(SeededChooser(t))
	return sw.Config, sw
}

// DrawTool names the tool of a new call under the run's swarm (nil: the
// fixed configuration): one the configuration declares, mostly, or one it
// does not.
func DrawTool(t *rapid.T, sw *Swarm) string {
	if sw == nil {
		return drawFixedTool(t)
	}
	return rapid.SampledFrom(sw.ToolNames()).Draw(t, "tool")
}

// DrawDoc is the text a call of tool grows toward: under a generated
// configuration mostly a document grown for that tool's schema, secrets
// and allow-list, in the run's value shapes; else one of the fixed kinds.
func DrawDoc(t *rapid.T, sw *Swarm, tool string) []byte {
	if sw != nil && rapid.IntRange(0, 3).Draw(t, "swarm-doc") != 0 {
		return sw.Doc(SeededChooser(t), tool)
	}
	return drawFixedDoc(t)
}
