package gen_test

import (
	"bytes"
	"encoding/json"
	"math/rand"
	"reflect"
	"regexp"
	"strings"
	"testing"

	"github.com/sealgate/sealgate"
	"github.com/sealgate/sealgate/gate"
	"github.com/sealgate/sealgate/internal/gen"
	"github.com/sealgate/sealgate/model"
	"github.com/sealgate/sealgate/scn"
)

// TestSwarmConfigsAccepted: every generated configuration is valid, builds
// a gate (its schemas compile) and prints as scenario text that reads back
// to the same configuration, so a failing run prints as a scenario.
func TestSwarmConfigsAccepted(t *testing.T) {
	for seed := uint64(0); seed < 500; seed++ {
		sw := gen.DrawSwarm(&gen.MixChooser{State: seed})
		cfg := sw.Config
		if err := cfg.Validate(); err != nil {
			t.Fatalf("seed %d: generated configuration refused: %v", seed, err)
		}
		if _, err := gate.New(cfg, gate.NewMemoryLedger()); err != nil {
			t.Fatalf("seed %d: gate refuses the generated configuration: %v", seed, err)
		}
		ds, err := scn.FromConfig(cfg)
		if err != nil {
			t.Fatalf("seed %d: not printable: %v", seed, err)
		}
		var text strings.Builder
		for _, d := range ds {
			text.WriteString(d.String() + "\n")
		}
		s, err := scn.Parse("swarm.scn", []byte(text.String()+"----\n"))
		if err != nil {
			t.Fatalf("seed %d: printed configuration does not parse: %v\n%s", seed, err, text.String())
		}
		back, err := s.Config()
		if err != nil {
			t.Fatalf("seed %d: printed configuration refused: %v\n%s", seed, err, text.String())
		}
		if len(back.Tools) != len(cfg.Tools) || back.Limits != cfg.Limits || back.Release != cfg.Release || back.Batch != cfg.Batch {
			t.Fatalf("seed %d: printed configuration reads back differently:\n%s", seed, text.String())
		}
	}
}

// TestSwarmDocsValidWithoutInvalidShapes: with no shape that breaks the
// grammar on purpose, every generated document is strict JSON; with them,
// some are not (the shapes do reach the parser).
func TestSwarmDocsValidWithoutInvalidShapes(t *testing.T) {
	invalid := gen.Noncharacter | gen.DupNames | gen.SurrogatePair | gen.LongNumbers
	broken := 0
	for seed := uint64(0); seed < 300; seed++ {
		sw := gen.DrawSwarm(&gen.MixChooser{State: seed})
		c := &gen.MixChooser{State: ^seed}
		for _, name := range sw.ToolNames() {
			doc := sw.Doc(c, name)
			r, err := model.CheckJSON(doc, 1000)
			if sw.Shapes&invalid == 0 && r != "" {
				t.Fatalf("seed %d (shapes %s): %q rejected: %s: %v", seed, sw.Shapes, doc, r, err)
			}
			if r != "" {
				broken++
			}
		}
	}
	if broken == 0 {
		t.Error("no generated document broke the grammar: the invalid shapes are never drawn")
	}
}

// TestSwarmReachesRareCombinations: the combinations the issue names as
// rare are common in some runs: several secret pointers through one
// member, a fields key, a limit at a small edge, an exponent of many digits,
// a reversed surrogate pair.
func TestSwarmReachesRareCombinations(t *testing.T) {
	want := map[string]int{}
	for seed := uint64(0); seed < 400; seed++ {
		sw := gen.DrawSwarm(&gen.MixChooser{State: seed})
		for _, tl := range sw.Config.Tools {
			through := map[string]int{}
			for _, s := range tl.Secrets {
				if p, _ := sealgate.SecretPath(s); len(p) > 1 {
					through[p[0]]++
				}
			}
			for _, n := range through {
				if n >= 2 {
					want["two pointers through one member"]++
				}
			}
			if tl.Idem.Mode == sealgate.IdemFields && len(tl.Idem.Fields) >= 2 {
				want["fields list"]++
			}
		}
		if sw.Config.Limits.TurnBytes <= 200 {
			want["small turn-bytes"]++
		}
		c := &gen.MixChooser{State: seed * 7}
		for _, name := range sw.ToolNames() {
			doc := string(sw.Doc(c, name))
			if strings.Contains(doc, "00000000000000000000") {
				want["many-digit number"]++
			}
			if strings.Contains(doc, `\uDE00\uD83D`) {
				want["reversed pair"]++
			}
		}
	}
	for _, k := range []string{"two pointers through one member", "fields list", "small turn-bytes", "many-digit number", "reversed pair"} {
		if want[k] < 3 {
			t.Errorf("%s: drawn %d times in 400 swarms, want at least 3", k, want[k])
		}
	}
}

// TestSwarmTwinsSameValue: the two texts of Twins differ in spelling only:
// both valid or both not, and equal values when decoded.
func TestSwarmTwinsSameValue(t *testing.T) {
	differ := 0
	for seed := uint64(0); seed < 300; seed++ {
		sw := gen.DrawSwarm(&gen.MixChooser{State: seed})
		c := &gen.MixChooser{State: seed + 99}
		for _, name := range sw.ToolNames() {
			a, b := sw.Twins(c, name)
			ra, _ := model.CheckJSON(a, 1000)
			rb, _ := model.CheckJSON(b, 1000)
			if ra != rb {
				t.Fatalf("seed %d: twins %q (%s) and %q (%s) differ in validity", seed, a, ra, b, rb)
			}
			if ra != "" {
				continue
			}
			// One value: one args key (canonical JSON, numbers by their
			// round-to-nearest value), and, decoded with numbers kept as
			// text, the same names and structure. (Decoding to float64
			// would be strconv.ParseFloat, wrong past 800 mantissa digits.)
			ka, erra := model.IdemKey(sealgate.Tool{Name: name}, "t1", "c1", a)
			kb, errb := model.IdemKey(sealgate.Tool{Name: name}, "t1", "c1", b)
			if erra != nil || errb != nil || ka != kb {
				t.Fatalf("seed %d: twins %q and %q are not one value (keys %s %v, %s %v)", seed, a, b, ka, erra, kb, errb)
			}
			var va, vb any
			if decodeNumbers(a, &va) != nil || decodeNumbers(b, &vb) != nil || !reflect.DeepEqual(shape(va), shape(vb)) {
				t.Fatalf("seed %d: twins %q and %q are not one structure", seed, a, b)
			}
			if string(a) != string(b) {
				differ++
			}
		}
	}
	if differ == 0 {
		t.Error("twins are never spelled differently")
	}
}

// TestSwarmNewShapes: the shapes the zoo's last bugs need are drawn:
// a twin's number with a mantissa past 800 digits (where
// strconv.ParseFloat misplaces the point), a twin's name written as \u
// escapes, a document holding a field of its tool's fields: key, and a
// schema with a $ref into its own $defs that the gate accepts.
func TestSwarmNewShapes(t *testing.T) {
	longMantissa := regexp.MustCompile(`[1-9][0-9]{800,}e`)
	escapedName := regexp.MustCompile(`[{,]"(\\u[0-9A-Fa-f]{4})+":`)
	got := map[string]int{}
	for seed := uint64(0); seed < 300; seed++ {
		sw := gen.DrawSwarm(&gen.MixChooser{State: seed})
		for _, tl := range sw.Config.Tools {
			if strings.Contains(tl.Schema, `"$ref":"#/$defs/`) && strings.Contains(tl.Schema, `"$defs":{`) {
				got["$ref"]++
			}
		}
		c := &gen.MixChooser{State: seed + 5}
		for _, name := range sw.ToolNames() {
			a, b := sw.Twins(c, name)
			if longMantissa.Match(b) && !longMantissa.Match(a) {
				got["long mantissa"]++
			}
			if escapedName.Match(b) {
				got["escaped name"]++
			}
		}
		for _, tl := range sw.Config.Tools {
			var v map[string]any
			if decodeNumbers(sw.Doc(c, tl.Name), &v) != nil {
				continue
			}
			for _, f := range tl.Idem.Fields {
				if _, ok := v[f]; ok {
					got["idem field held"]++
					break
				}
			}
		}
	}
	for _, k := range []string{"$ref", "long mantissa", "escaped name", "idem field held"} {
		if got[k] < 10 {
			t.Errorf("%s: drawn %d times in 300 swarms, want at least 10", k, got[k])
		}
	}
}

// decodeNumbers decodes a JSON text into v keeping numbers as their text.
func decodeNumbers(b []byte, v any) error {
	d := json.NewDecoder(bytes.NewReader(b))
	d.UseNumber()
	return d.Decode(v)
}

// shape is a decoded value with every number replaced by 0 (numbers are
// compared by the key, which reads them exactly).
func shape(v any) any {
	switch v := v.(type) {
	case map[string]any:
		out := map[string]any{}
		for k, x := range v {
			out[k] = shape(x)
		}
		return out
	case []any:
		out := make([]any, len(v))
		for i, x := range v {
			out[i] = shape(x)
		}
		return out
	case json.Number:
		return 0
	}
	return v
}

// TestGofuzzReadingDrawsSwarm: random gofuzz-reading inputs draw a
// generated configuration in a good share of cases, and the empty input
// stays the fixed one.
func TestGofuzzReadingDrawsSwarm(t *testing.T) {
	fixed := gen.Tools()[0].Schema
	if cfg, _ := gen.FromBytes(nil); cfg.Tools[0].Schema != fixed {
		t.Fatal("the empty input no longer decodes to the fixed configuration")
	}
	r := rand.New(rand.NewSource(1))
	generated := 0
	const n = 400
	for i := 0; i < n; i++ {
		b := make([]byte, 64+r.Intn(448))
		r.Read(b)
		if cfg, _ := gen.FromBytes(b); cfg.Tools[0].Schema != fixed {
			generated++
		}
	}
	if generated < n/5 || generated > 4*n/5 {
		t.Errorf("%d of %d random inputs drew a generated configuration, want between a fifth and four fifths", generated, n)
	}
}

// TestSwarmDocsRelease: documents grown for a generated tool pass its
// seal often (schema, allow-list and all), so generated configurations
// reach releases, keys and acks rather than only rejections.
func TestSwarmDocsRelease(t *testing.T) {
	released, calls := 0, 0
	for seed := uint64(0); seed < 120; seed++ {
		sw := gen.DrawSwarm(&gen.MixChooser{State: seed})
		cfg := sw.Config
		cfg.Limits = sealgate.DefaultLimits()
		c := &gen.MixChooser{State: seed ^ 0x5555}
		for _, tl := range cfg.Tools {
			evs := []sealgate.Event{sealgate.OpenEvent("r1", "t1"), sealgate.BeginEvent("r1", "0", "c1", tl.Name),
				sealgate.DeltaEvent("r1", "0", sw.Doc(c, tl.Name)), sealgate.EndEvent("r1", "0"), sealgate.CloseEvent("r1", sealgate.Complete)}
			calls++
			for _, d := range model.Run(cfg, evs) {
				if d.Kind == sealgate.Release {
					released++
				}
			}
		}
	}
	if released*4 < calls {
		t.Errorf("%d of %d generated calls released, want at least a quarter", released, calls)
	}
	if released == calls {
		t.Errorf("every generated call released: the bad values never reach a check")
	}
}
