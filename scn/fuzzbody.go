package scn

import "github.com/sealgate/sealgate/internal/fuzzkit"

// The body of FuzzParse, in plain code so that both go test -fuzz
// (fuzz_test.go, whose mutation test uses it too) and the libFuzzer
// harness (libfuzzer_test.go, built with the gofuzz tag) run it. It stays
// in this package because this package's own tests use it, and they could
// not import package fuzztarget (which imports this one).

var parseExecs = fuzzkit.NewCounter("FuzzParse")

// checkRoundTrip parses src; when it parses, printing and parsing again must
// give an equal scenario, and printing that must give the same bytes.
// Config must never panic either.
func checkRoundTrip(t fuzzkit.TB, src []byte) {
	t.Helper()
	parseExecs.Add()
	s, err := Parse("fuzz", src)
	if err != nil {
		if _, ok := err.(*Error); !ok {
			t.Fatalf("error of type %T", err)
		}
		return
	}
	out := s.Format()
	s2, err := Parse("fuzz", out)
	if err != nil {
		t.Fatalf("printed file does not parse: %v\ninput %q\nprinted %q", err, src, out)
	}
	if !s.Equal(s2) {
		t.Fatalf("round trip differs\ninput %q\nprinted %q", src, out)
	}
	if out2 := s2.Format(); string(out2) != string(out) {
		t.Fatalf("printing is not stable\n%q\n%q", out, out2)
	}
	_, err1 := s.Config()
	_, err2 := s2.Config()
	if (err1 == nil) != (err2 == nil) {
		t.Fatalf("Config changed by printing: %v / %v", err1, err2)
	}
}
