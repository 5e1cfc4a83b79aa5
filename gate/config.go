package gate

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math/big"
	"sort"
	"strconv"
	"strings"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/sealgate/sealgate"
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
		sch, err := schemas.compile(i, t.Schema)
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
	if err := schemaRules(doc); err != nil {
		return nil, err
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

// tinyMagnitude: a nonzero number below 1e-400 in magnitude. Schemas may
// not hold such numbers (schemaRules); in arguments they reach the
// validator as a stand-in (see schemaNumbers).
const tinyMagnitude = -400

// magnitude returns the digits of a number literal without leading and
// trailing zeros and its exponent E such that |n| = 0.DIGITS × 10^E
// (digits "" for zero). The exponent saturates far beyond any float64.
func magnitude(lit string) (neg bool, digits string, e int64) {
	s := lit
	if strings.HasPrefix(s, "-") {
		neg, s = true, s[1:]
	}
	mant, exp := s, ""
	if i := strings.IndexAny(s, "eE"); i >= 0 {
		mant, exp = s[:i], s[i+1:]
	}
	intPart, frac := mant, ""
	if i := strings.IndexByte(mant, '.'); i >= 0 {
		intPart, frac = mant[:i], mant[i+1:]
	}
	all := intPart + frac
	lead := len(all) - len(strings.TrimLeft(all, "0"))
	digits = strings.TrimRight(all[lead:], "0")
	if digits == "" {
		return neg, "", 0
	}
	e = int64(len(intPart) - lead)
	var x int64
	expNeg := strings.HasPrefix(exp, "-")
	for _, c := range strings.TrimLeft(exp, "+-") {
		if x < 1<<40 {
			x = x*10 + int64(c-'0')
		}
	}
	if expNeg {
		x = -x
	}
	return neg, digits, e + x
}

// schemaNumbers rewrites, in place, every number of a decoded document
// into the form the schema validator can take exactly. Its big.Rat
// arithmetic refuses exponents past a million (and panics) and is slow
// long before, while the literal as written may carry any exponent: so
// each number becomes its exact value as DIGITSeSCALE (significant digits
// only), and a nonzero number below 1e-400 becomes a stand-in: same sign,
// below 1e-400 (so below every nonzero number a schema may hold), one per
// value (so const, enum and uniqueItems stay exact). The stand-in is
// 0.S×10^-400 with S = "1", the length of -E in 8 digits, -E, the digits,
// for a number 0.DIGITS×10^E.
func schemaNumbers(v any) any {
	switch v := v.(type) {
	case map[string]any:
		for k, x := range v {
			v[k] = schemaNumbers(x)
		}
	case []any:
		for i, x := range v {
			v[i] = schemaNumbers(x)
		}
	case json.Number:
		neg, digits, e := magnitude(string(v))
		sign := ""
		if neg {
			sign = "-"
		}
		switch {
		case digits == "":
			return json.Number("0")
		case e > tinyMagnitude:
			return json.Number(sign + digits + "e" + strconv.FormatInt(e-int64(len(digits)), 10))
		}
		minusE := new(big.Int).Neg(exactMagnitude(string(v))).String()
		sig := fmt.Sprintf("1%08d%s%s", len(minusE), minusE, digits)
		return json.Number(sign + sig + "e" + strconv.Itoa(tinyMagnitude-len(sig)))
	}
	return v
}

// exactMagnitude is magnitude's exponent without saturation, for the rare
// tiny number whose exponent is too long for an int64.
func exactMagnitude(lit string) *big.Int {
	s := strings.TrimPrefix(lit, "-")
	mant, exp := s, ""
	if i := strings.IndexAny(s, "eE"); i >= 0 {
		mant, exp = s[:i], s[i+1:]
	}
	intPart := mant
	if i := strings.IndexByte(mant, '.'); i >= 0 {
		intPart = mant[:i]
	}
	all := strings.Replace(mant, ".", "", 1)
	lead := len(all) - len(strings.TrimLeft(all, "0"))
	e := big.NewInt(int64(len(intPart) - lead))
	if x, ok := new(big.Int).SetString(strings.TrimPrefix(exp, "+"), 10); ok {
		e.Add(e, x)
	}
	return e
}

// schemaRules applies the SPEC's limits on what a schema may say: every
// $schema is draft 2020-12, every $ref, $dynamicRef and $recursiveRef is a
// fragment ("#...") of this document (the library resolves some absolute
// URIs, the metaschemas, without asking the loader), and no number is
// nonzero below 1e-400 in magnitude.
func schemaRules(v any) error {
	switch v := v.(type) {
	case map[string]any:
		for _, k := range sortedKeys(v) {
			x := v[k]
			if s, ok := x.(string); ok {
				switch k {
				case "$schema":
					if s != draft2020 {
						return fmt.Errorf("$schema must be %q", draft2020)
					}
				case "$ref", "$dynamicRef", "$recursiveRef":
					if !strings.HasPrefix(s, "#") {
						return fmt.Errorf("%s must point inside the schema (a \"#...\" fragment)", k)
					}
				}
			}
			if err := schemaRules(x); err != nil {
				return err
			}
		}
	case []any:
		for _, x := range v {
			if err := schemaRules(x); err != nil {
				return err
			}
		}
	case json.Number:
		if _, digits, e := magnitude(string(v)); digits != "" && e <= tinyMagnitude {
			return errors.New("a schema number is nonzero but smaller than 1e-400 in magnitude")
		}
	}
	return nil
}
