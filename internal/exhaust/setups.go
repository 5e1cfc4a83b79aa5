package exhaust

import (
	"github.com/sealgate/sealgate"
)

// Setup is one small configuration the enumeration runs under.
type Setup struct {
	Name   string
	What   string // what it is there to reach, in a few words
	Config sealgate.Config
	// Symmetric says the two tools are declared alike, so that renaming
	// one into the other changes nothing and tools join the symmetry
	// reduction.
	Symmetric bool
	// Extra is the fragment shapes this setup adds to the four every
	// setup has (Number, Nonchar), each there to reach one thing.
	Extra [][]byte
	// ExtraTool is the tool whose calls the extra shapes may start ("":
	// any): the one whose release shows what the shapes are there to reach.
	ExtraTool string
}

const objectSchema = `{"type":"object"}`

// Setups is the set of small configurations, each with two tools f and g.
// Together they reach every release policy and batch policy, early release
// and its compensation, every idempotency mode (fields: included), a schema
// and an allow-list that refuse the one complete object, a secret field
// under preview, and every byte and call limit at the size of the shapes.
func Setups() []Setup {
	tool := func(name, schema string) sealgate.Tool { return sealgate.Tool{Name: name, Schema: schema} }
	base := func(tools ...sealgate.Tool) sealgate.Config {
		c := sealgate.DefaultConfig()
		c.Tools = tools
		return c
	}

	// Two secret paths through the member v, the deeper one first: the
	// shapes' v is a string, so only the second reaches it, and a gate that
	// keeps one path per member redacts nothing.
	afterTurn := base(tool("f", objectSchema), tool("g", objectSchema))
	for i := range afterTurn.Tools {
		afterTurn.Tools[i].Secrets = []string{"/v/a", "v"}
	}

	perCall := base(tool("f", objectSchema), tool("g", objectSchema))
	perCall.Release = sealgate.PerCall
	perCall.Tools[0].Early = true
	perCall.Tools[1].Allow = &sealgate.Allow{Field: "v", Values: []string{"zz"}}

	atomic := base(tool("f", objectSchema), tool("g", `{"type":"object","properties":{"v":{"type":"integer"}}}`))
	atomic.Batch = sealgate.Atomic
	atomic.Tools[0].Allow = &sealgate.Allow{Field: "v", Values: []string{"ab"}}

	idem := base(tool("f", objectSchema), tool("g", objectSchema))
	idem.Tools[0].Idem = sealgate.Idem{Mode: sealgate.IdemCall}
	idem.Tools[1].Idem = sealgate.Idem{Mode: sealgate.IdemFields, Fields: []string{"v"}}

	// The shapes are 10 (whole), 7 (head) and 3 (tail) bytes: one call
	// passes call-bytes with head twice (14), the attempt passes
	// turn-bytes with whole or head then tail (10), a second begin passes
	// calls, and a preview reads only `{"v"`.
	tight := base(tool("f", objectSchema), tool("g", objectSchema))
	tight.Limits = sealgate.Limits{CallBytes: 12, TurnBytes: 9, Calls: 1, Depth: 1, PreviewBytes: 4}

	return []Setup{
		{"after-turn", "release after the turn, args keys, two secret paths through v under preview", afterTurn, true, nil, ""},
		{"per-call", "an early tool and its compensation; an allow-list that refuses; a noncharacter", perCall, false, [][]byte{Nonchar}, "f"},
		{"atomic", "batch=atomic; a schema that refuses the object; an allow-list that admits it", atomic, false, nil, ""},
		{"idem", "idem=call and idem=fields:v (global across turns); an escaped name and a long number", idem, false, [][]byte{Number}, "g"},
		{"tight", "call-bytes, turn-bytes, calls and preview-bytes at the shapes' size; depth 1", tight, true, nil, ""},
	}
}
