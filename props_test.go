package sealgate_test

import (
	"bytes"
	"encoding/json"
	"testing"
	"unicode/utf8"

	"pgregory.net/rapid"

	"github.com/sealgate/sealgate"
	"github.com/sealgate/sealgate/check"
	"github.com/sealgate/sealgate/gate"
	"github.com/sealgate/sealgate/internal/gen"
	"github.com/sealgate/sealgate/internal/machine"
	"github.com/sealgate/sealgate/model"
)

// The rapid properties: the state machine of package machine against the
// real gate, and the two strict parsers against each other.

func TestGateStateMachine(t *testing.T) {
	rapid.Check(t, machine.Run(check.Default, nil))
}

// TestGeneratedJSONAccepted: a generated valid value is accepted by both
// strict parsers, and the release compaction equals encoding/json.Compact.
func TestGeneratedJSONAccepted(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		doc := []byte(gen.JSONObject().Draw(t, "doc"))
		depth := sealgate.DefaultLimits().Depth
		if r, err := gate.ValidJSON(doc, depth); r != "" {
			t.Fatalf("gate rejects valid %q: %s: %v", doc, r, err)
		}
		if r, err := model.CheckJSON(doc, depth); r != "" {
			t.Fatalf("model rejects valid %q: %s: %v", doc, r, err)
		}
		var want bytes.Buffer
		if err := json.Compact(&want, doc); err != nil {
			t.Fatalf("encoding/json rejects %q: %v", doc, err)
		}
		if got := sealgate.Compact(doc); !bytes.Equal(got, want.Bytes()) {
			t.Fatalf("Compact(%q) = %q, encoding/json.Compact = %q", doc, got, want.Bytes())
		}
	})
}

// TestSingleByteCorruption: any one-byte change of a valid value is either
// still valid or rejected by both parsers with the same reason.
func TestSingleByteCorruption(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		doc := []byte(gen.JSONObject().Draw(t, "doc"))
		i := rapid.IntRange(0, len(doc)-1).Draw(t, "at")
		doc[i] = rapid.Byte().Draw(t, "byte")
		depth := rapid.IntRange(1, 6).Draw(t, "depth")
		g, gerr := gate.ValidJSON(doc, depth)
		m, merr := model.CheckJSON(doc, depth)
		if g != m {
			t.Fatalf("%q (depth %d): gate %q (%v), model %q (%v)", doc, depth, g, gerr, m, merr)
		}
		if !utf8.Valid(doc) && g == "" {
			t.Fatalf("%q is not UTF-8 but was accepted", doc)
		}
	})
}
