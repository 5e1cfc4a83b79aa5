package sealgate_test

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/sealgate/sealgate/check"
	"github.com/sealgate/sealgate/scn"
)

// TestCorpus replays every scenario in corpus/ through the gate and the
// model: each must match its hand-derived expected decisions, and the two
// implementations must agree.
func TestCorpus(t *testing.T) {
	files, err := scn.Files("corpus")
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		t.Run(strings.TrimSuffix(strings.TrimPrefix(f, "corpus"+string(filepath.Separator)), ".scn"), func(t *testing.T) {
			s, err := scn.ParseFile(f)
			if err != nil {
				t.Fatal(err)
			}
			r := check.Default.RunScenario(s)
			if r.GateErr != nil {
				t.Fatalf("%s: %v", f, r.GateErr)
			}
			if err := check.Compare("expected", s.Expect, "gate", r.Gate); err != nil {
				t.Errorf("%s: gate differs from the expected decisions:\n%s", f, check.Diff("expected", s.Expect, "gate", r.Gate))
			}
			if err := check.Compare("expected", s.Expect, "model", r.Model); err != nil {
				t.Errorf("%s: model differs from the expected decisions:\n%s", f, check.Diff("expected", s.Expect, "model", r.Model))
			}
		})
	}
}
