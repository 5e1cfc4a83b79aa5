package gen

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/sealgate/sealgate"
)

// Swarm generation (Groce et al., "Swarm testing", ISSTA 2012): each run
// first draws which configuration features and value shapes it uses, so a
// combination that a uniform generator draws once in thousands of runs
// (three secret pointers through one member, a turn budget met exactly by
// a regeneration, an exponent of twenty digits under a numeric bound) is
// the common case of some runs. The rapid machine and the gofuzz reading
// draw the same swarm from different sources of choices (Chooser).

// Chooser is where a generator's choices come from: rapid's draws in the
// state machine, the input bytes in the gofuzz reading. Intn returns a
// number in [0, n).
type Chooser interface {
	Intn(n int, label string) int
}

// ByteChooser spends one byte per choice and answers 0 once the bytes run
// out, so a short input is a simple run and an empty one the simplest.
type ByteChooser struct{ Data []byte }

// Intn implements Chooser.
func (b *ByteChooser) Intn(n int, _ string) int {
	if n <= 1 || len(b.Data) == 0 {
		return 0
	}
	v := b.Data[0]
	b.Data = b.Data[1:]
	return int(v) % n
}

// MixChooser is a Chooser from a small deterministic generator
// (SplitMix64) that a few input bytes seed: one byte of input picks a whole
// generated document.
type MixChooser struct{ State uint64 }

// Intn implements Chooser.
func (m *MixChooser) Intn(n int, _ string) int {
	if n <= 1 {
		return 0
	}
	m.State += 0x9e3779b97f4a7c15
	z := m.State
	z = (z ^ z>>30) * 0xbf58476d1ce4e5b9
	z = (z ^ z>>27) * 0x94d049bb133111eb
	return int((z ^ z>>31) % uint64(n))
}

// Shape is a family of generated values a run may turn on.
type Shape uint

const (
	LongNumbers   Shape = 1 << iota // exponents and mantissas of many digits, near-overflow, underflow
	EscapeForms                     // every escape form: \" \\ \/ \b \f \n \r \t, \u in both cases
	SurrogatePair                   // astral runes escaped as pairs, and pairs in the wrong order
	Noncharacter                    // noncharacters of every plane, literal and escaped (invalid)
	DupNames                        // one name twice, written differently ("a" and "\u0061"; invalid)
	EdgeSizes                       // documents padded to a byte limit exactly, or one past it
	BadValues                       // members that fail their schema or allow-list
)

var shapeNames = []string{"long-numbers", "escapes", "surrogates", "noncharacters", "dup-names", "edge-sizes", "bad-values"}

func (s Shape) String() string {
	var out []string
	for i, n := range shapeNames {
		if s&(1<<i) != 0 {
			out = append(out, n)
		}
	}
	return strings.Join(out, ",")
}

// Swarm is one run's drawn features: a generated configuration with the
// shapes of the tools' arguments, and the value shapes turned on.
type Swarm struct {
	Config sealgate.Config
	Tools  []ToolSpec
	Shapes Shape
}

// ToolSpec is a generated tool as the generator knows it: the members its
// schema names, so documents can be grown that pass or fail it.
type ToolSpec struct {
	Name    string
	Members []member
	Secrets [][]string // secret paths, as member names
	Allow   *sealgate.Allow

	secretDecls []string // the secret declarations the paths come from, as drawn
	schema      string   // the schema text, one of the tool's variants
}

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

// secretChoices are secret declarations, overlapping on purpose: a member
// and a pointer through it, two pointers through one member, a pointer
// that needs escapes, a pointer one level deeper.
var secretChoices = []string{"token", "/token", "auth", "/auth/key", "/auth/token", "/auth/key/v", "/a~1b", "/a~0b", "/名字", "/auth/a~1b", "key"}

// idemFieldChoices include names no document has (absent is null).
var idemFieldChoices = []string{"n", "m", "path", "token", "auth", "missing", "名字"}

var toolNames = []string{"save_file", "login", "calc", "pay", "grep"}

// allowValues: plain, non-ASCII, a value with a blank (a Go literal in
// scenario text), the empty string.
var allowValues = []string{"notes.md", "日记.md", "a b", "v1", "", "x\"y"}

// DrawSwarm draws a run's features from c.
func DrawSwarm(c Chooser) *Swarm {
	sw := &Swarm{}
	for i := range shapeNames {
		if c.Intn(2, "shape-"+shapeNames[i]) == 1 {
			sw.Shapes |= 1 << i
		}
	}
	cfg := sealgate.DefaultConfig()
	n := 1 + c.Intn(4, "tools")
	for i := 0; i < n; i++ {
		ts := drawTool(c, i)
		drawSecretGroup(c, &ts)
		sw.Tools = append(sw.Tools, ts)
		cfg.Tools = append(cfg.Tools, ts.tool(c))
	}
	switch c.Intn(3, "policy") {
	case 1:
		cfg.Release = sealgate.PerCall
		for i := range cfg.Tools {
			cfg.Tools[i].Early = c.Intn(2, "early") == 1
		}
	case 2:
		cfg.Batch = sealgate.Atomic
	}
	cfg.Limits = drawLimits(c, cfg.Limits)
	sw.Config = cfg
	return sw
}

// drawLimits: each limit kept at its default, or small, or at a value a
// typical generated document sits right at (an edge), one in eight each.
func drawLimits(c Chooser, l sealgate.Limits) sealgate.Limits {
	// Each limit leaves its default in most runs: a run whose every call
	// passes call-bytes tests little else (a too-large call drops its later
	// deltas silently, its end needs no final check).
	pick := func(label string, def int, small, edges []int) int {
		switch c.Intn(8, label) {
		case 1:
			return small[c.Intn(len(small), label+"-small")]
		case 2:
			return edges[c.Intn(len(edges), label+"-edge")]
		}
		return def
	}
	l.CallBytes = pick("call-bytes", l.CallBytes, []int{1, 2, 8, 16}, []int{24, 32, 48, 64, 100})
	l.TurnBytes = pick("turn-bytes", l.TurnBytes, []int{1, 3, 16}, []int{40, 64, 96, 128, 200})
	l.Calls = pick("calls", l.Calls, []int{1, 2}, []int{3, 4})
	l.Depth = pick("depth", l.Depth, []int{1, 2}, []int{3, 4, 5})
	l.PreviewBytes = pick("preview-bytes", l.PreviewBytes, []int{1, 2, 5}, []int{10, 17, 33})
	return l
}

// schemaVariants is how many schemas each generated tool draws from. A
// tool's schema (its members, required, closed) is one of a pool of
// generated variants, picked by one choice and grown from a seed of the
// tool and that choice, not a fresh draw per run: the compiled-schema
// caches of gate and model (128 entries each) then hold every generated
// schema (4 tools × 16), and a run compiles nothing. Fresh schemas per run
// were a tenth of the machine reading's CPU and a quarter of the gofuzz
// reading's, in compiling (docs/power/swarm.md). Secrets, allow-lists, idem
// modes and limits, which cost nothing to set up, are still drawn per run.
const schemaVariants = 16

// drawTool draws the i-th tool of a run.
func drawTool(c Chooser, i int) ToolSpec {
	ts := ToolSpec{Name: toolNames[i]}
	sc := &MixChooser{State: uint64(i*schemaVariants + c.Intn(schemaVariants, "schema-variant"))}
	used := map[string]bool{}
	for k := sc.Intn(5, "members"); k > 0; k-- {
		nm := memberNames[sc.Intn(len(memberNames), "member")]
		if used[nm] {
			continue
		}
		used[nm] = true
		ts.Members = append(ts.Members, drawMember(sc, nm))
	}
	ts.schema = schemaOf(sc, ts.Members)
	for k := c.Intn(4, "secrets"); k > 0; k-- {
		s := secretChoices[c.Intn(len(secretChoices), "secret")]
		p, _ := sealgate.SecretPath(s)
		ts.Secrets = append(ts.Secrets, p)
		ts.secretDecls = append(ts.secretDecls, s)
	}
	if c.Intn(3, "allow") == 0 {
		a := &sealgate.Allow{Field: memberNames[c.Intn(3, "allow-field")]}
		for k := 1 + c.Intn(3, "allow-values"); k > 0; k-- {
			a.Values = append(a.Values, allowValues[c.Intn(len(allowValues), "allow-value")])
		}
		ts.Allow = a
	}
	return ts
}

// secretGroupMembers are the top-level members a group of secret
// pointers goes through (as pointer tokens), and secretGroupLeaves the
// members below it, disjoint: of "/auth/key" and "/auth/token" neither
// holds the other, so redacting one leaves the other's value in view.
var (
	secretGroupMembers = []string{"auth", "名字", "a~1b"}
	secretGroupLeaves  = []string{"key", "token", "v", "a~1b"}
)

// drawSecretGroup adds, in one tool in three, a group of secret
// declarations through one top-level member: two or three pointers to
// disjoint members below it, and sometimes a top-level name beside them
// (SPEC section 4: secret fields, section 10: secret may repeat). The
// fixed choices of drawTool give two pointers through one member in few
// tools, and a redaction that keeps one secret per member (real-bugs.md
// F57) shows only there.
func drawSecretGroup(c Chooser, ts *ToolSpec) {
	if c.Intn(2, "secret-group") != 0 {
		return
	}
	// A member the schema types otherwise (a string, say) would make
	// every document that holds the group fail the schema: not those.
	var free []string
	for _, tok := range secretGroupMembers {
		p, _ := sealgate.SecretPath("/" + tok)
		if !slices.ContainsFunc(ts.Members, func(m member) bool { return m.name == p[0] && !m.object }) {
			free = append(free, tok)
		}
	}
	if len(free) == 0 {
		return
	}
	through := free[c.Intn(len(free), "group-member")]
	first := c.Intn(len(secretGroupLeaves), "group-first")
	var decls []string
	for k := 0; k < 2+c.Intn(2, "group-size"); k++ {
		decls = append(decls, "/"+through+"/"+secretGroupLeaves[(first+k)%len(secretGroupLeaves)])
	}
	if c.Intn(2, "group-name") == 0 {
		decls = append(decls, []string{"token", "key"}[c.Intn(2, "group-name-which")])
	}
	for _, s := range decls {
		p, _ := sealgate.SecretPath(s)
		ts.Secrets = append(ts.Secrets, p)
		ts.secretDecls = append(ts.secretDecls, s)
	}
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
	case 7:
		m.schema = `{"type":"array","uniqueItems":true}`
		m.good = []string{`[]`, `[1,2]`, `["a","b"]`, `[1,1.00000000000000000001]`, `[{"a":1},{"a":2}]`}
		m.bad = []string{`[1,1.0]`, `["a","\u0061"]`, `[{"a":1,"b":2},{"b":2,"a":1}]`, `[1e2,100]`, `"x"`}
	default:
		m.schema, m.object = `{"type":"object"}`, true
		m.good, m.bad = []string{`{}`}, []string{`[]`, `"x"`}
	case 9:
		// A property through a $ref to the tool schema's own $defs (the
		// gate refuses a $ref that points outside the schema, SPEC
		// section 4).
		if c.Intn(2, "ref-def") == 0 {
			m.schema, m.def = `{"$ref":"#/$defs/file"}`, `"file":{"type":"string","pattern":"\\.md$"}`
			m.good, m.bad, m.quotedGood = []string{`"notes.md"`, `"日记.md"`}, []string{`"a.txt"`, `1`}, true
		} else {
			m.schema, m.def = `{"$ref":"#/$defs/count"}`, `"count":{"type":"integer","minimum":0}`
			m.good, m.bad = []string{`0`, `7`, `1.0`, `1e2`}, []string{`-1`, `0.5`, `"1"`}
		}
	}
	return m
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

// tool is the configuration's declaration of the generated tool.
func (ts *ToolSpec) tool(c Chooser) sealgate.Tool {
	t := sealgate.Tool{Name: ts.Name, Schema: ts.schema, Allow: ts.Allow, Secrets: ts.secretDecls}
	switch c.Intn(4, "idem") {
	case 1:
		t.Idem = sealgate.Idem{Mode: sealgate.IdemCall}
	case 2, 3:
		t.Idem.Mode = sealgate.IdemFields
		seen := map[string]bool{}
		for k := 1 + c.Intn(3, "idem-fields"); k > 0; k-- {
			f := idemFieldChoices[c.Intn(len(idemFieldChoices), "idem-field")]
			if !seen[f] {
				seen[f] = true
				t.Idem.Fields = append(t.Idem.Fields, f)
			}
		}
	}
	return t
}

// ToolSpec lookup by name; nil when the tool is not one of the swarm's.
func (sw *Swarm) spec(tool string) *ToolSpec {
	for i := range sw.Tools {
		if sw.Tools[i].Name == tool {
			return &sw.Tools[i]
		}
	}
	return nil
}

// idemFields are the fields of tool's fields: key in the swarm's
// configuration (none for another mode or an undeclared tool).
func (sw *Swarm) idemFields(tool string) []string {
	for _, t := range sw.Config.Tools {
		if t.Name == tool {
			return t.Idem.Fields
		}
	}
	return nil
}

// ToolNames are the swarm's tool names and one that no configuration
// declares.
func (sw *Swarm) ToolNames() []string {
	var out []string
	for _, t := range sw.Tools {
		out = append(out, t.Name)
	}
	return append(out, "unknown")
}

// Doc grows an argument text for a call of tool: its schema's members with
// values that pass (and, with BadValues, sometimes fail) it, the members
// its secret paths walk (several through one member included), the
// allow-listed field, extra members, in the run's value shapes; padded to
// a byte limit, exactly or one past it, with EdgeSizes.
func (sw *Swarm) Doc(c Chooser, tool string) []byte {
	w := &writer{c: c, shapes: sw.Shapes}
	var b strings.Builder
	w.object(&b, sw.tree(c, w, tool))
	doc := []byte(b.String())
	if sw.Shapes&EdgeSizes != 0 {
		doc = sw.pad(c, doc)
	}
	return doc
}

// Twins grows one document for tool and writes it twice: the second text
// is the same value spelled otherwise (other escapes, numbers respelled
// with long exponents or trailing zeros), so both have one idempotency key
// (SPEC section 4: canonical form) and a key built from the raw text, or
// from a float parse that loses the digits, tells them apart.
func (sw *Swarm) Twins(c Chooser, tool string) (first, second []byte) {
	w := &writer{c: c, shapes: sw.Shapes &^ (Noncharacter | DupNames), twin: true}
	o := sw.tree(c, w, tool)
	if nm := memberNames[c.Intn(len(memberNames), "twin-number-name")]; !o.has(nm) && c.Intn(2, "twin-number") == 0 {
		// A number member, half the time, if the document has none of
		// that name: the respelling of numbers is most of what twins test.
		o.add(nm, &leaf{text: shortNumbers[c.Intn(len(shortNumbers), "twin-number-value")]})
	}
	var a, b strings.Builder
	w.object(&a, o)
	w.respell = true
	// No mantissa past 800 digits where a limit would refuse it anyway:
	// it would cost its 850 bytes in every check and show nothing.
	l := sw.Config.Limits
	w.long = l.CallBytes < 1024 || l.TurnBytes < 4096
	w.shapes |= EscapeForms
	w.object(&b, o)
	return []byte(a.String()), []byte(b.String())
}

// tree builds the value of a document for tool, leaving the spelling to
// the writer.
func (sw *Swarm) tree(c Chooser, w *writer, tool string) *object {
	ts := sw.spec(tool)
	if ts == nil {
		ts = &ToolSpec{Name: tool}
	}
	o := &object{}
	for _, m := range ts.Members {
		if c.Intn(5, "omit") == 0 {
			continue
		}
		switch {
		case m.object:
			o.add(m.name, nil)
		case sw.Shapes&BadValues != 0 && c.Intn(4, "bad") == 0:
			o.add(m.name, &leaf{text: m.bad[c.Intn(len(m.bad), "bad-value")]})
		default:
			v := m.good[c.Intn(len(m.good), "good-value")]
			if m.quotedGood {
				s, _ := strconv.Unquote(v)
				o.add(m.name, &leaf{str: s, isStr: true})
			} else {
				o.add(m.name, &leaf{text: v})
			}
		}
	}
	for _, p := range ts.Secrets {
		if c.Intn(4, "secret-absent") == 0 {
			continue
		}
		o.addPath(c, p, w)
	}
	if a := ts.Allow; a != nil && c.Intn(4, "allow-absent") != 0 {
		var s string
		if c.Intn(4, "allow-other") == 0 {
			s = "other.md"
		} else {
			s = a.Values[c.Intn(len(a.Values), "allow-pick")]
		}
		o.set(a.Field, &leaf{str: s, isStr: true})
	}
	// The fields of a fields: key, mostly present: a key over absent
	// fields is a key of nulls, the same however the names are spelled.
	for _, f := range sw.idemFields(tool) {
		if f == "missing" || o.has(f) || c.Intn(4, "idem-field-absent") == 0 {
			continue
		}
		v := w.value(0)
		if c.Intn(2, "idem-field-number") == 0 {
			// A number, half the time: a key's canonical numbers are
			// where spelling (exponents, long mantissas) must not matter.
			v = shortNumbers[c.Intn(len(shortNumbers), "idem-number")]
		}
		o.add(f, &leaf{text: v})
	}
	for k := c.Intn(3, "extra"); k > 0; k-- {
		o.set(memberNames[c.Intn(len(memberNames), "extra-name")], &leaf{text: w.value(0)})
	}
	return o
}

// pad fills a document with trailing blanks (still the same value) up to
// a small call-bytes limit, or one past it.
func (sw *Swarm) pad(c Chooser, doc []byte) []byte {
	lim := sw.Config.Limits.CallBytes
	if c.Intn(2, "pad") == 0 || lim > 256 {
		return doc
	}
	want := lim + c.Intn(2, "pad-over")
	for len(doc) < want {
		doc = append(doc, ' ')
	}
	return doc
}

// PadTo pads the last of docs with trailing blanks so that together they
// are exactly n bytes (or n+over), when they are shorter: a turn that
// meets the turn-bytes budget exactly.
func PadTo(docs [][]byte, n, over int) {
	if len(docs) == 0 || n > 1024 {
		return
	}
	total := 0
	for _, d := range docs {
		total += len(d)
	}
	last := len(docs) - 1
	for ; total < n+over; total++ {
		docs[last] = append(docs[last], ' ')
	}
}

// object is a document being built: members in order, a nested object or
// a leaf each.
type object struct {
	names []string
	vals  []any // *object or *leaf
}

type leaf struct {
	text  string // a JSON text, written as is (numbers, arrays, literals)
	str   string // or a string, written through the writer's escapes
	isStr bool
}

func (o *object) add(name string, v any) {
	if v == nil {
		v = &object{}
	}
	o.names, o.vals = append(o.names, name), append(o.vals, v)
}

// has says whether the object has a member of that name.
func (o *object) has(name string) bool { return slices.Contains(o.names, name) }

// set replaces the member of that name, or adds it.
func (o *object) set(name string, v any) {
	for i, n := range o.names {
		if n == name {
			o.vals[i] = v
			return
		}
	}
	o.add(name, v)
}

// addPath makes the members a secret path walks, sharing the objects
// already there, and puts a secret value at its end. Sometimes the path's
// middle is an array (a pointer never indexes one) or a scalar.
func (o *object) addPath(c Chooser, path []string, w *writer) {
	cur := o
	for i, name := range path {
		last := i == len(path)-1
		var found any
		for j, n := range cur.names {
			if n == name {
				found = cur.vals[j]
			}
		}
		if last {
			if _, isObj := found.(*object); isObj && c.Intn(2, "keep-object") == 0 {
				return // the secret is a whole object (already there)
			}
			cur.set(name, &leaf{text: secretValue(c, w)})
			return
		}
		next, ok := found.(*object)
		if !ok {
			if c.Intn(6, "path-array") == 0 {
				cur.set(name, &leaf{text: `[{"` + path[i+1] + `":"not-reached"}]`})
				return
			}
			next = &object{}
			cur.set(name, next)
		}
		cur = next
	}
}

// secretValue is a secret member's value: mostly a string, sometimes a
// number or an object.
func secretValue(c Chooser, w *writer) string {
	switch c.Intn(6, "secret-kind") {
	case 0:
		return "12345.5e1"
	case 1:
		return `{"inner":"s3cr3t-inner"}`
	}
	var b strings.Builder
	w.str(&b, "s3cr3t-"+strconv.Itoa(c.Intn(100, "secret-n")))
	return b.String()
}

// writer writes documents in a run's value shapes.
type writer struct {
	c       Chooser
	shapes  Shape
	twin    bool // no tails: every write of a tree is the same value
	respell bool // numbers respelled (same decimal value)
	long    bool // a number of this text has a mantissa past 800 digits already
}

// respellNumber respells a number text; of the numbers of one text, one
// at most gets a mantissa past 800 digits (one shows what a long mantissa
// does to a key, and each costs about 850 bytes in every check).
func (w *writer) respellNumber(n string) string {
	out, long := respell(w.c, n, !w.long)
	w.long = w.long || long
	return out
}

func (w *writer) object(b *strings.Builder, o *object) {
	b.WriteByte('{')
	for i, name := range o.names {
		if i > 0 {
			b.WriteByte(',')
		}
		w.name(b, name)
		b.WriteByte(':')
		switch v := o.vals[i].(type) {
		case *object:
			w.object(b, v)
		case *leaf:
			switch {
			case v.isStr:
				w.str(b, v.str)
			case w.respell:
				b.WriteString(w.respellNumber(v.text))
			default:
				b.WriteString(v.text)
			}
		}
	}
	if w.shapes&DupNames != 0 && !w.twin && len(o.names) > 0 && w.c.Intn(6, "dup-name") == 0 {
		// The first name again, spelled with escapes: a duplicate after
		// unescaping (malformed-json), which a parser comparing raw names misses.
		b.WriteString(`,` + escapeAll(o.names[0]) + `:0`)
	}
	b.WriteByte('}')
}

// escapeAll writes every rune of s as \u escapes (pairs above the BMP).
func escapeAll(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for _, r := range s {
		if r > 0xFFFF {
			r -= 0x10000
			fmt.Fprintf(&b, `\u%04x\u%04x`, 0xD800+(r>>10), 0xDC00+(r&0x3FF))
		} else {
			fmt.Fprintf(&b, `\u%04X`, r)
		}
	}
	b.WriteByte('"')
	return b.String()
}

// shortEscapes are the two-character escapes and what they stand for.
var shortEscapes = map[rune]string{'"': `\"`, '\\': `\\`, '/': `\/`, '\b': `\b`, '\f': `\f`, '\n': `\n`, '\r': `\r`, '\t': `\t`}

// str writes s as a JSON string in the run's escape shapes, then maybe
// adds a shaped tail (an astral rune, a noncharacter, a reversed pair).
func (w *writer) str(b *strings.Builder, s string) {
	w.text(b, s)
	if !w.twin && w.shapes&(EscapeForms|SurrogatePair|Noncharacter) != 0 && w.c.Intn(3, "tail") == 0 {
		w.tail(b)
	}
	b.WriteByte('"')
}

// name writes a member name in the run's escape shapes, never with a
// tail: the name must still be the one schemas and secrets say. A twin's
// respelled text writes half its names as \u escapes throughout, so a
// key or a lookup that reads names as written (not unescaped) tells the
// twins apart.
func (w *writer) name(b *strings.Builder, s string) {
	if w.respell && s != "" && w.c.Intn(2, "name-escape-all") == 0 {
		b.WriteString(escapeAll(s))
		return
	}
	w.text(b, s)
	b.WriteByte('"')
}

// text writes the opening quote and s, escaped in the run's shapes.
func (w *writer) text(b *strings.Builder, s string) {
	b.WriteByte('"')
	for _, r := range s {
		if e, ok := shortEscapes[r]; ok && (r == '"' || r == '\\' || r < 0x20 || w.shapes&EscapeForms != 0 && w.c.Intn(2, "short-escape") == 0) {
			b.WriteString(e)
			continue
		}
		switch {
		case r < 0x20:
			fmt.Fprintf(b, `\u%04x`, r)
		case w.shapes&EscapeForms != 0 && w.c.Intn(3, "u-escape") == 0:
			writeU(b, r, w.c.Intn(2, "hex-case") == 0)
		default:
			b.WriteRune(r)
		}
	}
}

// writeU writes r as \uXXXX, a surrogate pair above the BMP.
func writeU(b *strings.Builder, r rune, upper bool) {
	f := `\u%04x`
	if upper {
		f = `\u%04X`
	}
	if r > 0xFFFF {
		r -= 0x10000
		fmt.Fprintf(b, f+f, 0xD800+(r>>10), 0xDC00+(r&0x3FF))
		return
	}
	fmt.Fprintf(b, f, r)
}

// tail writes one shaped piece of string content: escaped control
// characters, astral runes literal or as pairs, a pair in the wrong order
// or cut in half, a noncharacter of some plane.
func (w *writer) tail(b *strings.Builder) {
	var opts []func()
	if w.shapes&EscapeForms != 0 {
		opts = append(opts, func() { b.WriteString(`\b\f\n\r\t\/\\\"\u0000\u001F\u007f`) })
	}
	if w.shapes&SurrogatePair != 0 {
		astral := rune(0x10000 + w.c.Intn(0x100000, "astral"))
		if astral&0xFFFE == 0xFFFE {
			astral = 0x1F600
		}
		opts = append(opts,
			func() { writeU(b, astral, w.c.Intn(2, "hex-case") == 0) },
			func() { b.WriteRune(astral) },
			func() { b.WriteString(`\uDE00\uD83D`) }, // low before high: two lone surrogates
			func() { b.WriteString(`\uD83D`) },       // a high half alone
			func() { b.WriteString(`\uD83Dx\uDE00`) },
			func() { b.WriteString(`\uD83D\uD83D\uDE00`) },
			func() { b.WriteString("\xed\xa0\x80") }, // a surrogate as UTF-8 bytes: invalid UTF-8
		)
	}
	nonchar := len(opts)
	if w.shapes&Noncharacter != 0 {
		plane := rune(w.c.Intn(17, "plane"))
		nc := plane<<16 | 0xFFFE | rune(w.c.Intn(2, "fffe-ffff"))
		if w.c.Intn(4, "fdd0") == 0 {
			nc = 0xFDD0 + rune(w.c.Intn(32, "fdd0-offset"))
		}
		opts = append(opts,
			func() { writeU(b, nc, w.c.Intn(2, "hex-case") == 0) },
			func() { b.WriteRune(nc) },
		)
	}
	switch {
	case len(opts) == 0:
	case nonchar < len(opts) && w.c.Intn(2, "tail-nonchar") == 0:
		// Half the tails of a run with noncharacters are one: among
		// the seven surrogate shapes they were rare, and a document
		// with a broken pair besides is refused whatever the
		// noncharacter test says.
		opts[nonchar+w.c.Intn(len(opts)-nonchar, "nonchar-kind")]()
	default:
		opts[w.c.Intn(len(opts), "tail-kind")]()
	}
}

// respell writes a number text with the same decimal value otherwise: a
// long zero exponent, trailing zeros in the fraction, zeros padding an
// exponent, a mantissa of 801 to 900 digits (when mayLong; long says so).
// Anything but a bare number
// is written as it is.
func respell(c Chooser, n string, mayLong bool) (out string, long bool) {
	if n == "" || !(n[0] == '-' || n[0] >= '0' && n[0] <= '9') || strings.ContainsAny(n, "[{\"") {
		return n, false
	}
	exp := strings.IndexAny(n, "eE")
	k := c.Intn(6, "respell")
	if k >= 3 { // half the numbers: past 800 digits is where ParseFloat goes wrong
		if mayLong {
			if l, ok := longMantissa(c, n); ok {
				return l, true
			}
		}
		k = 0
	}
	switch {
	case exp < 0 && k == 0:
		return n + "e0000000000000000000000", false
	case exp < 0 && !strings.Contains(n, ".") && k == 1:
		return n + ".00000000000000000000", false
	case exp < 0 && k == 1:
		return n + "00000000000000000000", false
	case exp >= 0 && k < 2:
		rest := n[exp+1:]
		sign := ""
		if rest != "" && (rest[0] == '+' || rest[0] == '-') {
			sign, rest = rest[:1], rest[1:]
		}
		return n[:exp+1] + sign + "000000000000" + rest, false
	}
	return n, false
}

// longMantissa writes the number n with 801 to 900 digits before its
// exponent: its digits, then zeros, times the power of ten that takes the
// zeros back (1 is 1000...0e-850), the same decimal value. Past 800 digits
// strconv.ParseFloat (Go 1.26) misplaces the decimal point; the SPEC's
// number is the literal's round-to-nearest value however long (section
// 5). ok is false for a zero (no digit to lead) and for an exponent past
// a million.
func longMantissa(c Chooser, n string) (string, bool) {
	sign := ""
	if n[0] == '-' {
		sign, n = "-", n[1:]
	}
	exp := 0
	if i := strings.IndexAny(n, "eE"); i >= 0 {
		e, err := strconv.Atoi(n[i+1:])
		if err != nil || e > 1e6 || e < -1e6 {
			return "", false
		}
		exp, n = e, n[:i]
	}
	whole, frac, _ := strings.Cut(n, ".")
	digits := strings.TrimLeft(whole+frac, "0")
	if digits == "" {
		return "", false
	}
	zeros := max(0, 801+c.Intn(100, "mantissa-digits")-len(digits))
	return sign + digits + strings.Repeat("0", zeros) + "e" + strconv.Itoa(exp-len(frac)-zeros), true
}

// shortNumbers are plain numbers for members that should hold one.
var shortNumbers = []string{"7", "-0.5", "1e3", "12345.5e1", "0.1"}

// longNumbers are numbers of many digits: all finite under the strict
// grammar but the last two (one rounds to +Inf, one is far past it).
var longNumbers = []string{
	"1e0000000000000000000001", "1.000000000000000000000000000000000001", "-0.00000000000000000000000000000000000000000000001",
	"123456789012345678901234567890123456789e-30", "1E+00000000000000000000000000000308", "1e-99999999999999999999",
	"-1.7976931348623157e308", "1.7976931348623158e308", "4.9e-324", "2.4703282292062328e-324", "9007199254740993",
	"1.7976931348623159e308", "1e99999999999999999999",
}

// value writes a generated value (depth bounds nesting).
func (w *writer) value(depth int) string {
	var b strings.Builder
	k := w.c.Intn(6, "value-kind")
	if depth > 2 && k >= 4 {
		k = 0
	}
	switch k {
	case 0:
		w.str(&b, []string{"x", "日期", "a b", "😀", "é", "/etc/passwd"}[w.c.Intn(6, "text")])
	case 1:
		if w.shapes&LongNumbers != 0 {
			b.WriteString(longNumbers[w.c.Intn(len(longNumbers), "long-number")])
		} else {
			b.WriteString([]string{"0", "-0", "12", "-7.25", "1e3", "2.5E-3"}[w.c.Intn(6, "number")])
		}
	case 2:
		b.WriteString([]string{"true", "false", "null"}[w.c.Intn(3, "literal")])
	case 3:
		b.WriteString(strconv.Itoa(w.c.Intn(2001, "int") - 1000))
	case 4:
		b.WriteByte('[')
		for i := w.c.Intn(3, "items"); i > 0; i-- {
			b.WriteString(w.value(depth + 1))
			if i > 1 {
				b.WriteByte(',')
			}
		}
		b.WriteByte(']')
	default:
		o := &object{}
		for i := w.c.Intn(3, "members"); i > 0; i-- {
			nm := memberNames[w.c.Intn(len(memberNames), "name")]
			o.set(nm, &leaf{text: w.value(depth + 1)})
		}
		w.object(&b, o)
	}
	return b.String()
}
