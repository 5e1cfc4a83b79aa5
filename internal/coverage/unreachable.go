package coverage

// Unreachability is one row of the table of pairs the SPEC rules out: every
// pair of one feature of A and one of B, with the SPEC sentences that make
// it so (quoted exactly; TestUnreachableQuotesAreSpecText holds them to
// docs/SPEC.md) and the reading that joins them.
type Unreachability struct {
	A, B    []Feature
	Section string   // SPEC section(s) of the quotes
	Quotes  []string // exact SPEC text, whitespace aside
	Why     string
}

// Pairs expands the row into its pairs.
func (u Unreachability) Pairs() []Pair {
	var out []Pair
	for _, a := range u.A {
		for _, b := range u.B {
			out = append(out, PairOf(a, b))
		}
	}
	return out
}

// The SPEC sentences the table rests on.
const (
	quoteAtomicPerCall = "`atomic` with `per-call` is a configuration error, refused when the gate is built."
	quoteEarly         = "Only tools that also declare a compensation, and only under `release=per-call`; otherwise the configuration is refused."
	quoteCompensate    = "a call released early gets `compensate`."
	quoteBatchAborted  = "none is released: failing calls carry their reason (or `reconcile`), the others `batch-aborted`."
	quoteEarlyRelease  = "**early**: may be released at its own `end`."
)

// fs is a feature list, for the table.
func fs(names ...string) []Feature {
	out := make([]Feature, len(names))
	for i, n := range names {
		out[i] = Feature(n)
	}
	return out
}

// Unreachable is the table of pairs no accepted configuration can reach.
// A refused configuration has no features at all (it decides nothing but
// @0 refused), so configuration contradictions show up here as the pairs
// that would need one. Nothing else may be called unreachable.
var Unreachable = []Unreachability{
	{
		A: fs("policy:per-call"), B: fs("policy:atomic"),
		Section: "4", Quotes: []string{quoteAtomicPerCall},
		Why: "the two policies together are refused",
	},
	{
		A: fs("config:early"), B: fs("policy:after-turn"),
		Section: "4", Quotes: []string{quoteEarly},
		Why: "an early tool needs release=per-call",
	},
	{
		A: fs("config:early"), B: fs("policy:atomic"),
		Section: "4", Quotes: []string{quoteEarly, quoteAtomicPerCall},
		Why: "an early tool needs per-call, which atomic refuses",
	},
	{
		A: fs("decision:compensate", "supersede:compensate"), B: fs("policy:after-turn", "policy:atomic"),
		Section: "4, 6", Quotes: []string{quoteCompensate, quoteEarlyRelease, quoteEarly, quoteAtomicPerCall},
		Why: "only an early release is compensated, and early release needs per-call (so not after-turn, and not atomic)",
	},
	{
		A: fs("reason:batch-aborted"), B: fs("policy:independent"),
		Section: "6", Quotes: []string{quoteBatchAborted},
		Why: "batch-aborted is the reason atomic gives the passing calls of a failing batch; no other rule gives it",
	},
	{
		A: fs("reason:batch-aborted"), B: fs("policy:per-call", "config:early", "decision:compensate", "supersede:compensate"),
		Section: "4, 6", Quotes: []string{quoteBatchAborted, quoteAtomicPerCall, quoteEarly, quoteCompensate},
		Why: "batch-aborted needs atomic; per-call, early tools and compensation all need per-call, which atomic refuses",
	},
}

// UnreachablePairs is every pair of the table.
func UnreachablePairs() PairSet {
	out := PairSet{}
	for _, u := range Unreachable {
		for _, p := range u.Pairs() {
			out[p] = true
		}
	}
	return out
}
