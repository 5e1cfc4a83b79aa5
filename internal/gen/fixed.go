package gen

import (
	"pgregory.net/rapid"

	"github.com/sealgate/sealgate"
)

// The fixed configurations: one tool set, a few switches over it, and
// documents that each pass or fail one check. The zoo's counterexamples
// have these shapes, so the gofuzz reading and the rapid machine draw
// them half of the time, beside the generated ones (Swarm).

// Tools is the fixed tool set of generated scenarios: a file writer with an
// allow rule, a tool with secrets, and a calculator keyed by fields.
func Tools() []sealgate.Tool {
	return []sealgate.Tool{
		{Name: "save_file", Schema: `{"type":"object","required":["path","content"],"properties":{"path":{"type":"string"},"content":{"type":"string"}},"additionalProperties":false}`},
		{Name: "login", Schema: `{"type":"object"}`, Secrets: []string{"token", "/auth/key"}},
		{Name: "calc", Schema: `{"type":"object","properties":{"n":{"type":"number","maximum":1e6}}}`},
	}
}

// Docs are the argument texts calls grow toward: valid ones that every
// check passes, and each way of failing a check.
var Docs = []string{
	`{"path":"notes.md","content":"Topic confirmed. 日期仍需等待场地确认。"}`,
	`{"path":"notes.md","content":"a\"b\\c\u00e9\ud83d\ude00 done"}`,
	` { "path" : "notes.md" , "content" : "spaced out" } `,
	`{"path":"other.md","content":"x"}`,
	`{"token":"s3cr3t-t0ken","auth":{"key":"k-123456","user":"ann"},"n":[1,2.5e3,-0]}`,
	`{"auth":{"key":12345.5e1},"token":true}`,
	`{"n":1}`,
	`{"n":1.0}`,
	`{"n":2e6}`,
	`{}`,
	`{"path":"notes.md"}`,
	`{"path":"notes.md","path":"/etc/passwd","content":"x"}`,
	`{"path":"notes.md","content":"x"}{"path":"b"}`,
	`[1,2,3]`,
	`{"a":{"b":{"c":[[[{}]]]}}}`,
	`{"n":1e999}`,
	`{"s":"\ud800"}`,
	"\xef\xbb\xbf{}",
	`{"path":"notes.md","content":"half`,
	`{"t\u006fken":"escaped-name-secret","x":"\uFDD0"}`,
}

// GarbagePieces are fragments that break a stream's JSON in the usual ways.
var GarbagePieces = [][]byte{
	[]byte("\xff"), []byte("}"), []byte(`{"a":`), []byte("NaN"), []byte(`"\ud800"`), []byte(""),
	[]byte(","), []byte(" "), []byte(`{"path":"notes.md","content":"x"}`), []byte("\xe4\xbd"),
	[]byte(`"token":"leak`), []byte("]"), []byte(`{}`), []byte("\n"), []byte(`\u00`), []byte("tru"),
}

// fixedConfig sets the gofuzz reading's fixed configuration from the
// switches of r.
func fixedConfig(cfg *sealgate.Config, r Raw) {
	if r.Allow {
		cfg.Tools[0].Allow = &sealgate.Allow{Field: "path", Values: []string{"notes.md"}}
	}
	switch r.Idem % 3 {
	case 1:
		cfg.Tools[2].Idem = sealgate.Idem{Mode: sealgate.IdemCall}
	case 2:
		cfg.Tools[2].Idem = sealgate.Idem{Mode: sealgate.IdemFields, Fields: []string{"n", "m"}}
	}
	if r.Release%2 == 1 {
		cfg.Release = sealgate.PerCall
		cfg.Tools[1].Early = r.Early
	} else if r.Batch%2 == 1 {
		cfg.Batch = sealgate.Atomic
	}
	lim := []*int{&cfg.Limits.CallBytes, &cfg.Limits.TurnBytes, &cfg.Limits.Calls, &cfg.Limits.Depth, &cfg.Limits.PreviewBytes}
	for i, v := range r.Limits {
		if v%2 == 1 {
			*lim[i] = int(v)
		}
	}
}

// drawFixedConfig is the machine's fixed configuration: the tool set with
// an allow-list, an idempotency mode, a release policy and small limits
// drawn from t.
func drawFixedConfig(t *rapid.T) sealgate.Config {
	cfg := sealgate.DefaultConfig()
	cfg.Tools = Tools()
	if rapid.Bool().Draw(t, "allow") {
		cfg.Tools[0].Allow = &sealgate.Allow{Field: "path", Values: []string{"notes.md", "日记.md"}}
	}
	switch rapid.IntRange(0, 2).Draw(t, "idem") {
	case 1:
		cfg.Tools[2].Idem = sealgate.Idem{Mode: sealgate.IdemCall}
	case 2:
		cfg.Tools[2].Idem = sealgate.Idem{Mode: sealgate.IdemFields, Fields: []string{"n", "m"}}
	}
	switch rapid.IntRange(0, 2).Draw(t, "policy") {
	case 1:
		cfg.Release = sealgate.PerCall
		cfg.Tools[1].Early = rapid.Bool().Draw(t, "early")
		cfg.Tools[2].Early = rapid.Bool().Draw(t, "early2")
	case 2:
		cfg.Batch = sealgate.Atomic
	}
	if rapid.IntRange(0, 3).Draw(t, "small-limits") == 0 {
		cfg.Limits = sealgate.Limits{
			CallBytes:    rapid.IntRange(1, 120).Draw(t, "call-bytes"),
			TurnBytes:    rapid.IntRange(1, 300).Draw(t, "turn-bytes"),
			Calls:        rapid.IntRange(1, 4).Draw(t, "calls"),
			Depth:        rapid.IntRange(1, 5).Draw(t, "depth"),
			PreviewBytes: rapid.IntRange(1, 80).Draw(t, "preview-bytes"),
		}
	}
	return cfg
}

// drawFixedTool names the tool of a call under the fixed configuration:
// the file writer twice as often as the others, and one no configuration
// declares.
func drawFixedTool(t *rapid.T) string {
	return rapid.SampledFrom([]string{"save_file", "save_file", "login", "calc", "unknown"}).Draw(t, "tool")
}

// drawFixedDoc is the argument text a call grows toward under the fixed
// configuration: a generated valid object, one of the fixed documents
// (each a way to pass or fail a check), nothing at all, or a corrupted
// object.
func drawFixedDoc(t *rapid.T) []byte {
	switch rapid.IntRange(0, 7).Draw(t, "doc-kind") {
	case 0, 1:
		return []byte(validObject(SeededChooser(t)))
	case 2, 3, 4:
		return []byte(rapid.SampledFrom(Docs).Draw(t, "fixed-doc"))
	case 5:
		return nil // a call that names its tool and sends nothing (F11, F46)
	}
	b := []byte(validObject(SeededChooser(t)))
	i := rapid.IntRange(0, len(b)-1).Draw(t, "corrupt-at")
	b[i] = rapid.SampledFrom([]byte("{}[]\",:\\ x0-\xff\xc3")).Draw(t, "corrupt-byte")
	return b
}
