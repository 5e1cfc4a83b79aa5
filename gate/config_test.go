package gate

import (
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/sealgate/sealgate"
)

const saveSchema = `{"type":"object","required":["path","content"],"properties":{"path":{"type":"string"},"content":{"type":"string"}},"additionalProperties":false}`

func TestNewRefuses(t *testing.T) {
	base := func() sealgate.Config {
		c := sealgate.DefaultConfig()
		c.Tools = []sealgate.Tool{{Name: "save_file", Schema: saveSchema}}
		return c
	}
	cases := []struct {
		name   string
		mutate func(*sealgate.Config)
		want   string // a piece of the error
	}{
		{"atomic with per-call", func(c *sealgate.Config) { c.Release, c.Batch = sealgate.PerCall, sealgate.Atomic }, "atomic"},
		{"early without per-call", func(c *sealgate.Config) { c.Tools[0].Early = true }, "per-call"},
		{"zero limit", func(c *sealgate.Config) { c.Limits.Depth = 0 }, "depth"},
		{"negative limit", func(c *sealgate.Config) { c.Limits.CallBytes = -1 }, "call-bytes"},
		{"zero limits", func(c *sealgate.Config) { c.Limits = sealgate.Limits{} }, "positive"},
		{"tool twice", func(c *sealgate.Config) { c.Tools = append(c.Tools, c.Tools[0]) }, "twice"},
		{"empty fields", func(c *sealgate.Config) {
			c.Tools[0].Idem = sealgate.Idem{Mode: sealgate.IdemFields, Fields: []string{""}}
		}, "empty field"},
		{"bad pointer", func(c *sealgate.Config) { c.Tools[0].Secrets = []string{"/a~2b"} }, "~"},
		{"schema not JSON", func(c *sealgate.Config) { c.Tools[0].Schema = `{"type":"object",}` }, "not strict JSON"},
		{"schema empty", func(c *sealgate.Config) { c.Tools[0].Schema = `` }, "not strict JSON"},
		{"schema duplicate names", func(c *sealgate.Config) { c.Tools[0].Schema = `{"type":"object","type":"string"}` }, "not strict JSON"},
		{"schema noncharacter", func(c *sealgate.Config) { c.Tools[0].Schema = `{"description":"\uffff"}` }, "not strict JSON"},
		{"schema number overflow", func(c *sealgate.Config) { c.Tools[0].Schema = `{"maximum":1e400}` }, "not strict JSON"},
		{"schema two values", func(c *sealgate.Config) { c.Tools[0].Schema = `{} {}` }, "not strict JSON"},
		{"draft-07", func(c *sealgate.Config) {
			c.Tools[0].Schema = `{"$schema":"http://json-schema.org/draft-07/schema#","type":"object"}`
		}, "$schema"},
		{"2020-12 with a fragment", func(c *sealgate.Config) {
			c.Tools[0].Schema = `{"$schema":"https://json-schema.org/draft/2020-12/schema#"}`
		}, "$schema"},
		{"$schema not a string", func(c *sealgate.Config) { c.Tools[0].Schema = `{"$schema":1}` }, "$schema"},
		{"does not compile: bad type", func(c *sealgate.Config) { c.Tools[0].Schema = `{"type":"objet"}` }, "compile"},
		{"does not compile: bad pattern", func(c *sealgate.Config) { c.Tools[0].Schema = `{"pattern":"("}` }, "compile"},
		{"non-RE2 pattern", func(c *sealgate.Config) { c.Tools[0].Schema = `{"pattern":"(?=a)"}` }, "compile"},
		{"external $ref", func(c *sealgate.Config) { c.Tools[0].Schema = `{"$ref":"https://example.com/s.json"}` }, "inside the schema"},
		{"file $ref", func(c *sealgate.Config) { c.Tools[0].Schema = `{"$ref":"file:///etc/passwd"}` }, "inside the schema"},
		{"relative $ref", func(c *sealgate.Config) { c.Tools[0].Schema = `{"$ref":"other.json"}` }, "inside the schema"},
		{"metaschema $ref", func(c *sealgate.Config) {
			c.Tools[0].Schema = `{"$ref":"https://json-schema.org/draft/2020-12/schema"}`
		}, "inside the schema"},
		{"fragment $ref to nothing", func(c *sealgate.Config) { c.Tools[0].Schema = `{"$ref":"#/$defs/none"}` }, "compile"},
		{"tiny schema number", func(c *sealgate.Config) { c.Tools[0].Schema = `{"maximum":-1e-401}` }, "1e-400"},
		{"dangling internal $ref", func(c *sealgate.Config) { c.Tools[0].Schema = `{"$ref":"#/$defs/nope"}` }, "compile"},
		{"$ref to a metaschema", func(c *sealgate.Config) {
			c.Tools[0].Schema = `{"properties":{"a":{"$ref":"https://json-schema.org/draft/2020-12/schema"}}}`
		}, "inside the schema"},
		{"embedded draft-07 resource", func(c *sealgate.Config) {
			c.Tools[0].Schema = `{"$defs":{"x":{"$id":"https://x.invalid/x","$schema":"http://json-schema.org/draft-07/schema#"}},"items":{"$ref":"https://x.invalid/x"}}`
		}, "$schema"},
		{"schema not a schema", func(c *sealgate.Config) { c.Tools[0].Schema = `12` }, "compile"},
	}
	for _, c := range cases {
		cfg := base()
		c.mutate(&cfg)
		g, err := New(cfg, NewMemoryLedger())
		if err == nil || g != nil {
			t.Errorf("%s: New accepted the configuration", c.name)
			continue
		}
		if !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %q does not mention %q", c.name, err, c.want)
		}
	}
	if _, err := New(base(), nil); err == nil {
		t.Error("New accepted a nil ledger")
	}
}

func TestNewAccepts(t *testing.T) {
	for _, schema := range []string{
		saveSchema,
		`true`,
		`{}`,
		`{"$schema":"https://json-schema.org/draft/2020-12/schema","type":"object"}`,
		`{"$defs":{"p":{"type":"string"}},"properties":{"path":{"$ref":"#/$defs/p"}}}`,
		`{"properties":{"$schema":{"type":"string"}}}`,
		`{"properties":{"email":{"format":"email"}}}`,
		`{"$id":"https://other.invalid/s.json","properties":{"a":{"$ref":"#/$defs/x"}},"$defs":{"x":{}}}`,
		`{"$defs":{"x":{"$anchor":"x","type":"string"}},"items":{"$ref":"#x"},"allOf":[{"$ref":"#"}]}`,
		`{"maximum":1e-400,"minimum":0}`,
	} {
		cfg := sealgate.DefaultConfig()
		cfg.Tools = []sealgate.Tool{{Name: "t", Schema: schema}}
		if _, err := New(cfg, NewMemoryLedger()); err != nil {
			t.Errorf("schema %s refused: %v", schema, err)
		}
	}
	cfg := sealgate.DefaultConfig()
	cfg.Release = sealgate.PerCall
	cfg.Tools = []sealgate.Tool{{Name: "t", Schema: `{}`, Early: true,
		Idem: sealgate.Idem{Mode: sealgate.IdemFields, Fields: []string{"a", "b"}}, Secrets: []string{"k", "/a/b~1c"}}}
	if _, err := New(cfg, NewMemoryLedger()); err != nil {
		t.Errorf("per-call early tool refused: %v", err)
	}
}

// TestWalkSchemaRefuses: the last line of defence of compileSchema refuses a
// compiled schema that reaches outside its own document or into another
// draft, wherever the bad subschema sits. No schema text gets this far
// today (schemaRules refuses first, and the library locates every
// subschema in its document), so the schemas are built by hand.
func TestWalkSchemaRefuses(t *testing.T) {
	const root = "https://sealgate.invalid/tool/0.json#"
	sub := func(loc string, draft int) *jsonschema.Schema {
		return &jsonschema.Schema{Location: loc, DraftVersion: draft}
	}
	inside, inside2 := sub(root+"/$defs/a", 2020), sub(root+"/$defs/b", 2020)
	outside := sub("https://json-schema.org/draft/2020-12/schema#", 2020)
	older := sub(root+"/$defs/c", 2019)
	cases := []struct {
		name string
		s    *jsonschema.Schema
		bad  bool
	}{
		{"all inside", &jsonschema.Schema{Location: root, DraftVersion: 2020, AllOf: []*jsonschema.Schema{inside, inside2}, Ref: inside}, false},
		{"ref outside", &jsonschema.Schema{Location: root, DraftVersion: 2020, Ref: outside}, true},
		{"second of allOf outside", &jsonschema.Schema{Location: root, DraftVersion: 2020, AllOf: []*jsonschema.Schema{inside, outside}}, true},
		{"first of anyOf older", &jsonschema.Schema{Location: root, DraftVersion: 2020, AnyOf: []*jsonschema.Schema{older, inside}}, true},
		{"root older", &jsonschema.Schema{Location: root, DraftVersion: 2019}, true},
		{"root outside", outside, true},
	}
	for _, c := range cases {
		err := walkSchema(c.s, root, map[*jsonschema.Schema]bool{})
		if (err != nil) != c.bad {
			t.Errorf("%s: walkSchema = %v, want refused=%v", c.name, err, c.bad)
		}
	}
}

// TestRefuseLoaderRefusesEveryURL: schemaRules refuses a $ref outside the
// document before the library sees it, so the loader is the second line; a
// compiler given it, and no such check, still loads nothing.
func TestRefuseLoaderRefusesEveryURL(t *testing.T) {
	for _, ref := range []string{"https://example.com/s.json", "file:///etc/passwd"} {
		c := jsonschema.NewCompiler()
		c.UseLoader(refuseLoader{})
		if err := c.AddResource("https://sealgate.invalid/tool/0.json", map[string]any{"$ref": ref}); err != nil {
			t.Fatal(err)
		}
		_, err := c.Compile("https://sealgate.invalid/tool/0.json")
		if err == nil || !strings.Contains(err.Error(), "refused: $ref must point inside the schema") || !strings.Contains(err.Error(), ref) {
			t.Errorf("$ref %s: compile error %v, want the loader's refusal naming it", ref, err)
		}
	}
}
