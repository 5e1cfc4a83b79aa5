package gate

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"sealgate"
)

// draft2020 is the only $schema the SPEC accepts (section 4).
const draft2020 = "https://json-schema.org/draft/2020-12/schema"

// schemaDepth bounds the nesting of a schema text. The arguments' depth
// limit is about arguments; a schema only has to be parseable.
const schemaDepth = parserMaxDepth

// tool is a declared tool, compiled once when the gate is built.
type tool struct {
	name    string
	schema  *jsonschema.Schema
	allow   *sealgate.Allow // nil: unrestricted
	early   bool            // decided at its own end (per-call only)
	idem    sealgate.Idem
	secrets [][]string // paths for the preview's redaction
}

// refuseLoader refuses every URL: a $ref must point inside its schema, and
// the library's default loader would read local files.
type refuseLoader struct{}

func (refuseLoader) Load(url string) (any, error) {
	return nil, fmt.Errorf("loading %q refused: $ref must point inside the schema", url)
}

// compileTools checks and compiles every tool of a validated configuration.
func compileTools(cfg *sealgate.Config) (map[string]*tool, error) {
	tools := make(map[string]*tool, len(cfg.Tools))
	for i := range cfg.Tools {
		t := &cfg.Tools[i]
		sch, err := compileSchema(i, t.Schema)
		if err != nil {
			return nil, fmt.Errorf("tool %s: schema: %v", t.Name, err)
		}
		rt := &tool{
			name:   t.Name,
			schema: sch,
			early:  t.Early && cfg.Release == sealgate.PerCall,
			idem:   sealgate.Idem{Mode: t.Idem.Mode, Fields: append([]string(nil), t.Idem.Fields...)},
		}
		if t.Allow != nil {
			rt.allow = &sealgate.Allow{Field: t.Allow.Field, Values: append([]string(nil), t.Allow.Values...)}
		}
		for _, s := range t.Secrets {
			p, err := sealgate.SecretPath(s)
			if err != nil {
				return nil, fmt.Errorf("tool %s: secret %q: %v", t.Name, s, err)
			}
			rt.secrets = append(rt.secrets, p)
		}
		tools[t.Name] = rt
	}
	return tools, nil
}

// compileSchema parses a schema text with the gate's strict parser, checks
// its dialect and compiles it as draft 2020-12 with no URL loading and no
// format assertions.
func compileSchema(index int, text string) (*jsonschema.Schema, error) {
	if _, err := ValidJSON([]byte(text), schemaDepth); err != nil {
		return nil, fmt.Errorf("not strict JSON: %v", err)
	}
	doc, err := decodeNumbers([]byte(text))
	if err != nil {
		return nil, err
	}
	if obj, ok := doc.(map[string]any); ok {
		if s, has := obj["$schema"]; has {
			if str, ok := s.(string); !ok || str != draft2020 {
				return nil, fmt.Errorf("$schema must be %q", draft2020)
			}
		}
	}
	c := jsonschema.NewCompiler()
	c.UseLoader(refuseLoader{})
	c.DefaultDraft(jsonschema.Draft2020)
	url := "https://sealgate.invalid/tool/" + strconv.Itoa(index) + ".json"
	if err := c.AddResource(url, doc); err != nil {
		return nil, fmt.Errorf("does not compile: %v", err)
	}
	sch, err := c.Compile(url)
	if err != nil {
		return nil, fmt.Errorf("does not compile: %v", err)
	}
	// The library resolves the json-schema.org metaschemas without asking
	// the loader, and honours a $schema of an embedded resource: check that
	// every reachable subschema is this document's own, in draft 2020-12.
	if err := walkSchema(sch, url+"#", map[*jsonschema.Schema]bool{}); err != nil {
		return nil, err
	}
	return sch, nil
}

// walkSchema checks every schema reachable from s: it must lie in the
// document at loc and be draft 2020-12.
func walkSchema(s *jsonschema.Schema, loc string, seen map[*jsonschema.Schema]bool) error {
	if s == nil || seen[s] {
		return nil
	}
	seen[s] = true
	if !strings.HasPrefix(s.Location, loc) {
		return fmt.Errorf("$ref must point inside the schema: %q does", s.Location)
	}
	if s.DraftVersion != 2020 {
		return fmt.Errorf("$schema must be %q: %q is draft %d", draft2020, s.Location, s.DraftVersion)
	}
	var subs []*jsonschema.Schema
	subs = append(subs, s.Ref, s.RecursiveRef, s.Not, s.If, s.Then, s.Else, s.PropertyNames,
		s.UnevaluatedProperties, s.Contains, s.Items2020, s.UnevaluatedItems, s.ContentSchema)
	if s.DynamicRef != nil {
		subs = append(subs, s.DynamicRef.Ref)
	}
	subs = append(subs, s.AllOf...)
	subs = append(subs, s.AnyOf...)
	subs = append(subs, s.OneOf...)
	subs = append(subs, s.PrefixItems...)
	for _, m := range []map[string]*jsonschema.Schema{s.Properties, s.DependentSchemas} {
		for _, k := range sortedKeys(m) {
			subs = append(subs, m[k])
		}
	}
	for _, v := range s.PatternProperties {
		subs = append(subs, v)
	}
	for _, k := range sortedKeys(s.Dependencies) {
		if d, ok := s.Dependencies[k].(*jsonschema.Schema); ok {
			subs = append(subs, d)
		}
	}
	for _, v := range []any{s.AdditionalProperties, s.Items, s.AdditionalItems} {
		switch v := v.(type) {
		case *jsonschema.Schema:
			subs = append(subs, v)
		case []*jsonschema.Schema:
			subs = append(subs, v...)
		}
	}
	for _, sub := range subs {
		if err := walkSchema(sub, loc, seen); err != nil {
			return err
		}
	}
	return nil
}

// sortedKeys makes the walk, and so the first error reported, deterministic.
func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// decodeNumbers decodes a strictly valid JSON text keeping numbers exact.
func decodeNumbers(raw []byte) (any, error) {
	d := json.NewDecoder(bytes.NewReader(raw))
	d.UseNumber()
	var v any
	if err := d.Decode(&v); err != nil {
		return nil, errors.New("decoding failed")
	}
	return v, nil
}
