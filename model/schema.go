package model

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"math/big"
	"strconv"
	"strings"

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
	if err := schemaRules(root); err != nil {
		return nil, err
	}
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft2020)
	c.UseLoader(refuseAll{})
	if err := c.AddResource(schemaURL, toAny(root)); err != nil {
		return nil, err
	}
	return c.Compile(schemaURL)
}

// schemaRules applies the SPEC's limits on what a schema may say, over the
// whole tree: every $schema is draft 2020-12; every $ref, $dynamicRef and
// $recursiveRef is a fragment ("#...") of this document, since the library
// resolves some absolute URIs (the metaschemas) without asking the loader;
// and no number is nonzero below 1e-400 in magnitude (numbers that small
// in arguments compare as tinyExponent, see toAny).
func schemaRules(v *value) error {
	switch v.kind {
	case kObject:
		for _, m := range v.members {
			switch m.name.str {
			case "$schema":
				if m.val.kind == kString && m.val.str != draft2020 {
					return errors.New("$schema must be " + draft2020)
				}
			case "$ref", "$dynamicRef", "$recursiveRef":
				if m.val.kind == kString && !strings.HasPrefix(m.val.str, "#") {
					return fmt.Errorf("%s must point inside the schema (a \"#...\" fragment)", m.name.str)
				}
			}
			if err := schemaRules(m.val); err != nil {
				return err
			}
		}
	case kArray:
		for _, e := range v.elems {
			if err := schemaRules(e); err != nil {
				return err
			}
		}
	case kNumber:
		if _, digits, scale := decimalOf(v.lit); digits != "" && int64(len(digits))+scale <= tinyExponent {
			return errors.New("a schema number is nonzero but smaller than 1e-400 in magnitude")
		}
	}
	return nil
}

// tinyExponent: a number 0.d1d2...×10^E with E at or below it is smaller
// than 1e-400 in magnitude. The validator's exact arithmetic cannot take
// exponents past a million (it panics) and is slow long before, so such a
// number is handed over as a stand-in (tinyStandIn): nonzero, same sign,
// below 1e-400 and so below every nonzero number a schema may hold, and
// distinct for distinct values, so comparisons, multipleOf, const, enum and
// uniqueItems all give the exact answer.
const tinyExponent = -400

// tinyStandIn encodes a tiny number 0.DIGITS×10^E as 0.S×10^-400 where
// S = "1", the length of -E in 8 digits, -E, DIGITS: one value per (E,
// DIGITS), and DIGITS ends in a nonzero digit, so S does too.
func tinyStandIn(neg bool, digits string, e *big.Int) json.Number {
	minusE := new(big.Int).Neg(e).String()
	sig := fmt.Sprintf("1%08d%s%s", len(minusE), minusE, digits)
	s := sig + "e" + strconv.Itoa(tinyExponent-len(sig))
	if neg {
		s = "-" + s
	}
	return json.Number(s)
}

// exactExponent returns E for a number literal with significant digits,
// |n| = 0.DIGITS×10^E, computed without any bound on the exponent.
func exactExponent(lit string) *big.Int {
	s := strings.TrimPrefix(lit, "-")
	mant, exp, _ := strings.Cut(strings.ToLower(s), "e")
	intPart, frac, _ := strings.Cut(mant, ".")
	all := intPart + frac
	lead := len(all) - len(strings.TrimLeft(all, "0"))
	e := big.NewInt(int64(len(intPart) - lead))
	if exp != "" {
		x, ok := new(big.Int).SetString(strings.TrimPrefix(exp, "+"), 10)
		if ok {
			e.Add(e, x)
		}
	}
	return e
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
		if int64(len(digits))+scale <= tinyExponent {
			return tinyStandIn(neg, digits, exactExponent(v.lit))
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
