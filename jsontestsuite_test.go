package sealgate_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sealgate/sealgate"
	"github.com/sealgate/sealgate/gate"
	"github.com/sealgate/sealgate/model"
)

// jsonTestSuiteDir is where JSONTestSuite's test_parsing folder is read in
// place (it comes from another project and is never copied here).
func jsonTestSuiteDir() string {
	if d := os.Getenv("SEALGATE_JSONTESTSUITE"); d != "" {
		return d
	}
	return filepath.Join("..", "shared", "jsontestsuite", "test_parsing")
}

// iJSONRejects lists the y_ files that RFC 8259 accepts but SPEC section 5
// (I-JSON, RFC 7493) rejects, with the rule they break.
var iJSONRejects = map[string]string{
	"y_object_duplicated_key.json":               "duplicate member name",
	"y_object_duplicated_key_and_value.json":     "duplicate member name",
	"y_string_escaped_noncharacter.json":         "noncharacter U+FFFF, escaped",
	"y_string_last_surrogates_1_and_2.json":      "noncharacter U+10FFFF, as a surrogate pair",
	"y_string_nonCharacterInUTF-8_U+10FFFF.json": "noncharacter U+10FFFF, literal",
	"y_string_nonCharacterInUTF-8_U+FFFF.json":   "noncharacter U+FFFF, literal",
	"y_string_unicode_U+10FFFE_nonchar.json":     "noncharacter U+10FFFE, escaped",
	"y_string_unicode_U+1FFFE_nonchar.json":      "noncharacter U+1FFFE, escaped",
	"y_string_unicode_U+FDD0_nonchar.json":       "noncharacter U+FDD0, escaped",
	"y_string_unicode_U+FFFE_nonchar.json":       "noncharacter U+FFFE, escaped",
}

// iVerdicts states the SPEC's verdict on every implementation-defined (i_)
// file: true means accepted. The reason says which rule decides.
var iVerdicts = map[string]struct {
	accept bool
	why    string
}{
	"i_number_double_huge_neg_exp.json":                   {true, "underflow to zero is allowed"},
	"i_number_huge_exp.json":                              {false, "float64 overflow"},
	"i_number_neg_int_huge_exp.json":                      {false, "float64 overflow"},
	"i_number_pos_double_huge_exp.json":                   {false, "float64 overflow"},
	"i_number_real_neg_overflow.json":                     {false, "float64 overflow"},
	"i_number_real_pos_overflow.json":                     {false, "float64 overflow"},
	"i_number_real_underflow.json":                        {true, "underflow to zero is allowed"},
	"i_number_too_big_neg_int.json":                       {true, "finite float64; digits kept as written"},
	"i_number_too_big_pos_int.json":                       {true, "finite float64; digits kept as written"},
	"i_number_very_big_negative_int.json":                 {true, "finite float64; digits kept as written"},
	"i_object_key_lone_2nd_surrogate.json":                {false, "lone surrogate escape"},
	"i_string_1st_surrogate_but_2nd_missing.json":         {false, "lone surrogate escape"},
	"i_string_1st_valid_surrogate_2nd_invalid.json":       {false, "lone surrogate escape"},
	"i_string_UTF-16LE_with_BOM.json":                     {false, "not UTF-8 (BOM)"},
	"i_string_UTF-8_invalid_sequence.json":                {false, "invalid UTF-8"},
	"i_string_UTF8_surrogate_U+D800.json":                 {false, "invalid UTF-8 (encoded surrogate)"},
	"i_string_incomplete_surrogate_and_escape_valid.json": {false, "lone surrogate escape"},
	"i_string_incomplete_surrogate_pair.json":             {false, "lone surrogate escape"},
	"i_string_incomplete_surrogates_escape_valid.json":    {false, "lone surrogate escape"},
	"i_string_invalid_lonely_surrogate.json":              {false, "lone surrogate escape"},
	"i_string_invalid_surrogate.json":                     {false, "lone surrogate escape"},
	"i_string_invalid_utf-8.json":                         {false, "invalid UTF-8"},
	"i_string_inverted_surrogates_U+1D11E.json":           {false, "lone surrogate escape"},
	"i_string_iso_latin_1.json":                           {false, "invalid UTF-8"},
	"i_string_lone_second_surrogate.json":                 {false, "lone surrogate escape"},
	"i_string_lone_utf8_continuation_byte.json":           {false, "invalid UTF-8"},
	"i_string_not_in_unicode_range.json":                  {false, "invalid UTF-8 (past U+10FFFF)"},
	"i_string_overlong_sequence_2_bytes.json":             {false, "invalid UTF-8 (overlong)"},
	"i_string_overlong_sequence_6_bytes.json":             {false, "invalid UTF-8 (overlong)"},
	"i_string_overlong_sequence_6_bytes_null.json":        {false, "invalid UTF-8 (overlong)"},
	"i_string_truncated-utf-8.json":                       {false, "invalid UTF-8 (truncated)"},
	"i_string_utf16BE_no_BOM.json":                        {false, "not UTF-8 (UTF-16)"},
	"i_string_utf16LE_no_BOM.json":                        {false, "not UTF-8 (UTF-16)"},
	"i_structure_500_nested_arrays.json":                  {false, "past the default depth limit 64"},
	"i_structure_UTF-8_BOM_empty_object.json":             {false, "BOM"},
}

// TestJSONTestSuite runs every JSONTestSuite parsing file through both strict
// parsers, which must agree with each other and with the SPEC's verdict.
func TestJSONTestSuite(t *testing.T) {
	dir := jsonTestSuiteDir()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Skipf("JSONTestSuite not found at %s (set SEALGATE_JSONTESTSUITE to its test_parsing folder): %v", dir, err)
	}
	depth := sealgate.DefaultLimits().Depth
	seenI := map[string]bool{}
	counts := map[byte]int{}
	for _, e := range entries {
		name := e.Name()
		if !strings.HasSuffix(name, ".json") || len(name) < 2 || name[1] != '_' {
			continue
		}
		raw, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		counts[name[0]]++
		gReason, gErr := gate.ValidJSON(raw, depth)
		mReason, mErr := model.CheckJSON(raw, depth)
		if gReason != mReason {
			t.Errorf("%s: gate says %q (%v), model says %q (%v)", name, gReason, gErr, mReason, mErr)
			continue
		}
		var want bool
		var why string
		switch name[0] {
		case 'y':
			why, want = "RFC 8259 accepts it", true
			if r, ok := iJSONRejects[name]; ok {
				why, want = "I-JSON: "+r, false
			}
		case 'n':
			why, want = "RFC 8259 rejects it", false
		case 'i':
			v, ok := iVerdicts[name]
			if !ok {
				t.Errorf("%s: no verdict in the i_ table; add one", name)
				continue
			}
			seenI[name] = true
			why, want = v.why, v.accept
		default:
			continue
		}
		if got := gReason == ""; got != want {
			t.Errorf("%s: accepted=%v, want %v (%s); gate: %v", name, got, want, why, gErr)
		}
	}
	for name := range iVerdicts {
		if !seenI[name] {
			t.Errorf("%s: in the i_ table but not in %s", name, dir)
		}
	}
	if counts['y'] == 0 || counts['n'] == 0 {
		t.Fatalf("%s holds no y_ or n_ files", dir)
	}
	t.Logf("checked %d y_, %d n_, %d i_ files", counts['y'], counts['n'], counts['i'])
}
