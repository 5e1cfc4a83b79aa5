package gen

import (
	"slices"
	"strconv"
	"strings"
)

// member is one property of a generated schema: its schema text, values
// that satisfy it and values that fail it (JSON texts).
type member struct {
	name       string
	schema     string
	good, bad  []string
	object     bool // a nested object, grown from the secret paths through it
	quotedGood bool // good values are strings, to be re-escaped by the writer
	// def is, for a member whose schema is a $ref, the entry of the
	// tool schema's $defs it points to ("name":{...}).
	def string
}

// memberNames are the names generated tools and documents draw from: bare
// tokens all (scenario text prints them), some needing pointer escapes
// (~1 for "/", ~0 for "~"), one not ASCII.
var memberNames = []string{"path", "content", "token", "auth", "key", "n", "m", "名字", "a/b", "a~b", "v"}

// schemaVariants is how many schemas each generated tool draws from. A
// tool's schema (its members, required, closed) is one of a pool of
// generated variants, picked by one choice and grown from a seed of the
// tool and that choice, not a fresh draw per run: the compiled-schema
// caches of gate and model (128 entries each) then hold every generated
// schema (4 tools × 16), and a run compiles nothing. Fresh schemas per run
// spent much of both readings' CPU in compiling (docs/research/power/swarm.md). Secrets, allow-lists, idem
// modes and limits, which cost nothing to set up, are still drawn per run.
const schemaVariants = 16

// drawSchema draws the i-th tool's schema: one of its schemaVariants,
// picked by one choice of c and grown from a generator that choice seeds.
func drawSchema(c Chooser, i int) (members []member, schema string) {
	sc := &MixChooser{State: uint64(i*schemaVariants + c.Intn(schemaVariants, "schema-variant"))}
	used := map[string]bool{}
	for k := sc.Intn(5, "members"); k > 0; k-- {
		nm := memberNames[sc.Intn(len(memberNames), "member")]
		if used[nm] {
			continue
		}
		used[nm] = true
		members = append(members, drawMember(sc, nm))
	}
	return members, schemaOf(sc, members)
}

// numberBound is a bound of a numeric schema, with values just above and
// just below it that float64 cannot tell from it, and the bound spelled
// otherwise (equal as a decimal).
type numberBound struct{ at, above, below, same string }

var numberBounds = []numberBound{
	{"0", "0.0000000000000000000000001", "-0.0000000000000000000000001", "-0.0e+0000000000000000000000"},
	{"1e6", "1000000.000000000000000001", "999999.9999999999999999999", "10000000000000000000000e-16"},
	{"9007199254740993", "9007199254740994", "9007199254740992", "9.007199254740993e15"},
	{"-2.5", "-2.4999999999999999999", "-2.50000000000000000001", "-25E-1"},
	{"0.1", "0.10000000000000000001", "0.09999999999999999999", "1e-1"},
}

// drawMember draws one property of a generated schema.
func drawMember(c Chooser, name string) member {
	m := member{name: name}
	switch c.Intn(10, "member-kind") {
	case 0:
		m.schema, m.good, m.bad, m.quotedGood = `{"type":"string"}`, []string{`"notes.md"`, `"x"`, `""`}, []string{`1`, `null`}, true
	case 1:
		m.schema, m.good, m.bad, m.quotedGood = `{"type":"string","pattern":"^[a-z]+\\.md$"}`, []string{`"notes.md"`, `"a.md"`}, []string{`"a.txt"`, `"NOTES.md"`, `"a\nb.md"`}, true
	case 2:
		m.schema, m.good, m.bad, m.quotedGood = `{"type":"string","pattern":"^日"}`, []string{`"日记.md"`, `"日"`}, []string{`"记日"`, `"x"`}, true
	case 3:
		m.schema, m.good, m.bad, m.quotedGood = `{"const":"v1"}`, []string{`"v1"`}, []string{`"v2"`, `"V1"`, `1`}, true
	case 4:
		m.schema, m.good, m.bad = `{"const":1}`, []string{`1`, `1.0`, `1e0`, `0.1e1`, `100E-2`}, []string{`1.0000000000000000000001`, `0.99999999999999999999`, `"1"`, `true`}
	case 5:
		m.schema, m.good, m.bad = `{"enum":["a","日",2,null,{"k":[1]}]}`, []string{`"a"`, `"\u0061"`, `"\u65E5"`, `2`, `2.0`, `20e-1`, `null`, `{"k":[1.0]}`}, []string{`"b"`, `2.00000000000000000001`, `{"k":[1],"j":0}`, `false`}
	case 6:
		boundedNumber(c, &m)
	case 7:
		m.schema = `{"type":"array","uniqueItems":true}`
		m.good = []string{`[]`, `[1,2]`, `["a","b"]`, `[1,1.00000000000000000001]`, `[{"a":1},{"a":2}]`}
		m.bad = []string{`[1,1.0]`, `["a","\u0061"]`, `[{"a":1,"b":2},{"b":2,"a":1}]`, `[1e2,100]`, `"x"`}
	case 9:
		// A property through a $ref to the tool schema's own $defs (the
		// gate refuses a $ref that points outside the schema, SPEC
		// section 4).
		refToDef(c, &m)
	default: // 8
		m.schema, m.object = `{"type":"object"}`, true
		m.good, m.bad = []string{`{}`}, []string{`[]`, `"x"`}
	}
	return m
}

// boundedNumber makes m a number member with a bound of numberBounds,
// inclusive or exclusive, from below or above: its good and bad values lie
// closer to the bound than float64 can tell.
func boundedNumber(c Chooser, m *member) {
	b := numberBounds[c.Intn(len(numberBounds), "bound")]
	if c.Intn(2, "exclusive") == 0 {
		lo, hi := "minimum", "maximum"
		if c.Intn(2, "max") == 0 {
			m.schema, m.good, m.bad = `{"type":"number","`+lo+`":`+b.at+`}`, []string{b.at, b.same, b.above}, []string{b.below}
		} else {
			m.schema, m.good, m.bad = `{"type":"number","`+hi+`":`+b.at+`}`, []string{b.at, b.same, b.below}, []string{b.above}
		}
	} else {
		if c.Intn(2, "max") == 0 {
			m.schema, m.good, m.bad = `{"type":"number","exclusiveMinimum":`+b.at+`}`, []string{b.above}, []string{b.at, b.same, b.below}
		} else {
			m.schema, m.good, m.bad = `{"type":"number","exclusiveMaximum":`+b.at+`}`, []string{b.below}, []string{b.at, b.same, b.above}
		}
	}
}

// refToDef makes m a member whose schema is a $ref to a definition of the
// tool schema's $defs: a string pattern or a non-negative integer.
func refToDef(c Chooser, m *member) {
	if c.Intn(2, "ref-def") == 0 {
		m.schema, m.def = `{"$ref":"#/$defs/file"}`, `"file":{"type":"string","pattern":"\\.md$"}`
		m.good, m.bad, m.quotedGood = []string{`"notes.md"`, `"日记.md"`}, []string{`"a.txt"`, `1`}, true
	} else {
		m.schema, m.def = `{"$ref":"#/$defs/count"}`, `"count":{"type":"integer","minimum":0}`
		m.good, m.bad = []string{`0`, `7`, `1.0`, `1e2`}, []string{`-1`, `0.5`, `"1"`}
	}
}

// schemaOf is the schema text of a generated tool with members: which are
// required and whether others are refused are drawn from c.
func schemaOf(c Chooser, members []member) string {
	var b strings.Builder
	b.WriteString(`{"type":"object"`)
	if len(members) > 0 {
		b.WriteString(`,"properties":{`)
		var req []string
		for i, m := range members {
			if i > 0 {
				b.WriteByte(',')
			}
			b.WriteString(strconv.Quote(m.name) + ":" + m.schema)
			if c.Intn(3, "required") == 0 {
				req = append(req, strconv.Quote(m.name))
			}
		}
		b.WriteByte('}')
		var defs []string
		for _, m := range members {
			if m.def != "" && !slices.Contains(defs, m.def) {
				defs = append(defs, m.def)
			}
		}
		if len(defs) > 0 {
			b.WriteString(`,"$defs":{` + strings.Join(defs, ",") + `}`)
		}
		if len(req) > 0 {
			b.WriteString(`,"required":[` + strings.Join(req, ",") + `]`)
		}
		if c.Intn(4, "closed") == 0 {
			b.WriteString(`,"additionalProperties":false`)
		}
	}
	b.WriteByte('}')
	return b.String()
}
