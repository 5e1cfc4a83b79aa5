package wire

import "github.com/sealgate/sealgate"

// AnyObjectSchema is the schema ToolsConfig declares for every tool.
const AnyObjectSchema = `{"type":"object"}`

// ToolsConfig is the configuration used when a replay is given none: every
// tool named by a begin is declared with schema {"type":"object"} and no
// authorization rule, under the default policy and limits. It tests the
// protocol boundary, not any tool's contract.
func ToolsConfig(events []sealgate.Event) sealgate.Config {
	c := sealgate.DefaultConfig()
	seen := map[string]bool{}
	for _, e := range events {
		if e.Kind == sealgate.Begin && !seen[e.Tool] {
			seen[e.Tool] = true
			c.Tools = append(c.Tools, sealgate.Tool{Name: e.Tool, Schema: AnyObjectSchema})
		}
	}
	return c
}
