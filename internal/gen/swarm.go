package gen

import (
	"slices"
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
		ts := drawToolSpec(c, i)
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

// drawToolSpec draws the i-th tool of a run: its schema, then its
// secrets and allow-list.
func drawToolSpec(c Chooser, i int) ToolSpec {
	ts := ToolSpec{Name: toolNames[i]}
	ts.Members, ts.schema = drawSchema(c, i)
	drawSecrets(c, &ts)
	ts.Allow = drawAllow(c)
	return ts
}

// drawSecrets adds up to three secret declarations of secretChoices.
func drawSecrets(c Chooser, ts *ToolSpec) {
	for k := c.Intn(4, "secrets"); k > 0; k-- {
		s := secretChoices[c.Intn(len(secretChoices), "secret")]
		p, _ := sealgate.SecretPath(s)
		ts.Secrets = append(ts.Secrets, p)
		ts.secretDecls = append(ts.secretDecls, s)
	}
}

// drawAllow draws, in one tool in three, an allow-list on one of the
// first member names; nil otherwise.
func drawAllow(c Chooser) *sealgate.Allow {
	if c.Intn(3, "allow") != 0 {
		return nil
	}
	a := &sealgate.Allow{Field: memberNames[c.Intn(3, "allow-field")]}
	for k := 1 + c.Intn(3, "allow-values"); k > 0; k-- {
		a.Values = append(a.Values, allowValues[c.Intn(len(allowValues), "allow-value")])
	}
	return a
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
// fixed choices of drawSecrets give two pointers through one member in few
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
