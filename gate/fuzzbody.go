package gate

import (
	"bytes"
	"encoding/json"
	"reflect"

	"github.com/go-json-experiment/json/jsontext"

	"github.com/sealgate/sealgate"
	"github.com/sealgate/sealgate/internal/fuzzkit"
)

// The body of this package's fuzz target, in plain code so that both
// go test -fuzz (sealtext_test.go) and the libFuzzer harness
// (libfuzzer_test.go, built with the gofuzz tag) run it: it tests
// unexported code, so it cannot live in package fuzztarget. Nothing here is
// reachable from the gate's API; the linker leaves it out of programs.

var sealTextExecs = fuzzkit.NewCounter("FuzzSealText")

// fuzzSealText is the target: the seal's one decoding pass against
// ValidJSON, encoding/json and jsontext at the depth limit depth picks.
func fuzzSealText(t fuzzkit.TB, raw []byte, depth uint8) {
	t.Helper()
	checkSealText(t, raw, 1+int(depth%70))
}

// jsontextCanonical is an independent oracle for appendCanonical:
// jsontext's own RFC 8785 formatting. It reads numbers with strconv, which
// misreads literals past 800 digits, so callers skip those.
func jsontextCanonical(raw []byte) ([]byte, error) {
	v := jsontext.Value(bytes.Clone(raw))
	err := v.Canonicalize()
	return v, err
}

func hasLongNumber(v any) bool {
	switch v := v.(type) {
	case map[string]any:
		for _, x := range v {
			if hasLongNumber(x) {
				return true
			}
		}
	case []any:
		for _, x := range v {
			if hasLongNumber(x) {
				return true
			}
		}
	case json.Number:
		return len(v) > 300
	}
	return false
}

// checkSealText holds sealText to ValidJSON (the same verdict), to
// encoding/json (the same document) and to jsontext (the same canonical
// form).
func checkSealText(t fuzzkit.TB, raw []byte, depth int) {
	t.Helper()
	sealTextExecs.Add()
	doc, size, ok := sealText(raw, depth)
	r, err := ValidJSON(raw, depth)
	if ok != (err == nil) {
		t.Fatalf("%q depth %d: sealText ok=%v, ValidJSON %q %v", raw, depth, ok, r, err)
	}
	if !ok {
		return
	}
	if want := len(sealgate.Compact(raw)); size != want {
		t.Fatalf("%q: sealText counts a compact form of %d bytes, sealgate.Compact gives %d", raw, size, want)
	}
	want, err := decodeNumbers(raw)
	if err != nil || !reflect.DeepEqual(doc, want) {
		t.Fatalf("%q: sealText %#v, encoding/json %#v (%v)", raw, doc, want, err)
	}
	got, err := appendCanonical(nil, doc)
	if err != nil {
		t.Fatalf("%q: appendCanonical: %v", raw, err)
	}
	if hasLongNumber(doc) {
		return
	}
	if wantC, err := jsontextCanonical(raw); err != nil || !bytes.Equal(got, wantC) {
		t.Fatalf("%q: canonical %q, jsontext %q (%v)", raw, got, wantC, err)
	}
}
