package model

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strconv"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

const draft2020 = "https://json-schema.org/draft/2020-12/schema"

// schemaURL is where a tool's schema lives for the compiler; a relative
// $ref resolves against it and reaches the loader, which refuses it.
const schemaURL = "mem:///sealgate/tool-schema.json"

// refuseAll is the loader: $ref works only inside the schema.
type refuseAll struct{}

func (refuseAll) Load(url string) (any, error) {
	return nil, errors.New("schemas may not reference other documents")
}

// compileSchema checks a tool's schema text (strict JSON, $schema, compiles)
// and returns the compiled schema. A panic inside the library is a refusal,
// not a crash.
func compileSchema(text string) (s *jsonschema.Schema, err error) {
	defer func() {
		if r := recover(); r != nil {
			s, err = nil, fmt.Errorf("schema compiler failed: %v", r)
		}
	}()
	root, viol := parse([]byte(text), math.MaxInt, false)
	if viol != nil {
		return nil, fmt.Errorf("not strict JSON: %v", viol)
	}
	if root.kind == kObject {
		for _, m := range root.members {
			if m.name.str != "$schema" {
				continue
			}
			if m.val.kind != kString || m.val.str != draft2020 {
				return nil, errors.New("$schema must be " + draft2020)
			}
		}
	}
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft2020)
	c.UseLoader(refuseAll{})
	if err := c.AddResource(schemaURL, toAny(root)); err != nil {
		return nil, err
	}
	return c.Compile(schemaURL)
}

// toAny builds the value the validator reads from the model's own tree.
// Numbers are json.Number holding an exact normalized decimal
// (digits·10^scale), so the validator's big.Rat sees the literal's exact
// value without leading or trailing zeros that could push it past
// big.Rat's exponent limit.
func toAny(v *value) any {
	switch v.kind {
	case kObject:
		m := make(map[string]any, len(v.members))
		for _, mm := range v.members {
			m[mm.name.str] = toAny(mm.val)
		}
		return m
	case kArray:
		a := make([]any, 0, len(v.elems))
		for _, e := range v.elems {
			a = append(a, toAny(e))
		}
		return a
	case kString:
		return v.str
	case kNumber:
		neg, digits, scale := decimalOf(v.lit)
		if digits == "" {
			return json.Number("0")
		}
		s := digits
		if neg {
			s = "-" + s
		}
		if scale != 0 {
			s += "e" + strconv.FormatInt(scale, 10)
		}
		return json.Number(s)
	case kTrue:
		return true
	case kFalse:
		return false
	}
	return nil
}

// validate runs the schema on an instance. The validator panics on a number
// its big.Rat cannot represent (an exponent past a million); such an
// instance fails the schema rather than crash the model.
func validate(s *jsonschema.Schema, inst any) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("validator could not compare a number: %v", r)
		}
	}()
	return s.Validate(inst)
}
