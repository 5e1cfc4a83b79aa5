package fuzztarget

import (
	"github.com/sealgate/sealgate"
	"github.com/sealgate/sealgate/internal/gen"
)

// ChunkedCall is FuzzChunking's scenario: one call of one of gen.Tools()
// streaming doc, cut where cuts say (the last piece takes the rest), with
// a peek after every fragment, then its end and a clean close.
func ChunkedCall(doc, cuts []byte, tool uint8) (sealgate.Config, []sealgate.Event) {
	cfg := sealgate.DefaultConfig()
	cfg.Tools = gen.Tools()
	name := cfg.Tools[int(tool)%len(cfg.Tools)].Name
	evs := []sealgate.Event{sealgate.OpenEvent("r1", "t1"), sealgate.BeginEvent("r1", "0", "c1", name)}
	rest := doc
	for i := 0; len(rest) > 0; i++ {
		n := len(rest)
		if i < len(cuts) && cuts[i] > 0 {
			n = min(n, int(cuts[i]))
		}
		evs = append(evs, sealgate.DeltaEvent("r1", "0", rest[:n]), sealgate.PeekEvent("r1", "0"))
		rest = rest[n:]
	}
	evs = append(evs, sealgate.EndEvent("r1", "0"), sealgate.CloseEvent("r1", sealgate.Complete))
	return cfg, evs
}

// StrictCall is FuzzStrictJSON's input as a scenario: one call whose whole
// argument text is doc, under a tool with the empty schema and the given
// depth limit, so a parser disagreement shows as a decision disagreement.
func StrictCall(doc []byte, depth int) (sealgate.Config, []sealgate.Event) {
	cfg := sealgate.DefaultConfig()
	cfg.Tools = []sealgate.Tool{{Name: "any", Schema: `{}`}}
	cfg.Limits.Depth = depth
	return cfg, []sealgate.Event{
		sealgate.OpenEvent("r1", "t1"),
		sealgate.BeginEvent("r1", "0", "c1", "any"),
		sealgate.DeltaEvent("r1", "0", doc),
		sealgate.EndEvent("r1", "0"),
		sealgate.CloseEvent("r1", sealgate.Complete),
	}
}

// StrictDepth maps FuzzStrictJSON's depth byte to a limit in 1..70.
func StrictDepth(b uint8) int { return 1 + int(b)%70 }

// FromFuzzArgs turns the arguments of a failing input of one of the suite's
// fuzz targets into a scenario, so it can be checked and reduced. ok is
// false for targets whose failures are not gate scenarios.
func FromFuzzArgs(target string, args []any) (cfg sealgate.Config, events []sealgate.Event, ok bool) {
	bs := func(i int) ([]byte, bool) {
		if i < len(args) {
			b, ok := args[i].([]byte)
			return b, ok
		}
		return nil, false
	}
	u8 := func(i int) (uint8, bool) {
		if i < len(args) {
			v, ok := args[i].(uint8)
			return v, ok
		}
		return 0, false
	}
	switch target {
	case "FuzzGateVsModel":
		if b, ok := bs(0); ok {
			return gen.Input(b)
		}
	case "FuzzChunking":
		doc, ok1 := bs(0)
		cuts, ok2 := bs(1)
		tool, ok3 := u8(2)
		if ok1 && ok2 && ok3 {
			cfg, events = ChunkedCall(doc, cuts, tool)
			return cfg, events, true
		}
	case "FuzzStrictJSON":
		doc, ok1 := bs(0)
		d, ok2 := u8(1)
		if ok1 && ok2 {
			cfg, events = StrictCall(doc, StrictDepth(d))
			return cfg, events, true
		}
	}
	return cfg, nil, false
}
