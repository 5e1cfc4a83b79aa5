package gen

import (
	"slices"
	"strconv"
	"strings"

	"github.com/sealgate/sealgate"
)

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
// the writer: the schema's members, the secret paths, the allow-listed
// field, the fields of a fields: key, and extra members, in that order.
func (sw *Swarm) tree(c Chooser, w *writer, tool string) *object {
	ts := sw.spec(tool)
	if ts == nil {
		ts = &ToolSpec{Name: tool}
	}
	o := &object{}
	sw.addMembers(c, o, ts)
	for _, p := range ts.Secrets {
		if c.Intn(4, "secret-absent") == 0 {
			continue
		}
		o.addPath(c, p, w)
	}
	if a := ts.Allow; a != nil && c.Intn(4, "allow-absent") != 0 {
		o.set(a.Field, &leaf{str: allowedValue(c, a), isStr: true})
	}
	sw.addIdemFields(c, w, o, tool)
	for k := c.Intn(3, "extra"); k > 0; k-- {
		o.set(memberNames[c.Intn(len(memberNames), "extra-name")], &leaf{text: w.value(0)})
	}
	return o
}

// addMembers adds the schema's members of ts to o, most of them: a good
// value each, or with BadValues sometimes a bad one.
func (sw *Swarm) addMembers(c Chooser, o *object, ts *ToolSpec) {
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
}

// allowedValue is the allow-listed field's value: one the list allows,
// mostly, or one it does not.
func allowedValue(c Chooser, a *sealgate.Allow) string {
	if c.Intn(4, "allow-other") == 0 {
		return "other.md"
	}
	return a.Values[c.Intn(len(a.Values), "allow-pick")]
}

// addIdemFields adds the fields of tool's fields: key, mostly present: a
// key over absent fields is a key of nulls, the same however the names
// are spelled.
func (sw *Swarm) addIdemFields(c Chooser, w *writer, o *object, tool string) {
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

// shortNumbers are plain numbers for members that should hold one.
var shortNumbers = []string{"7", "-0.5", "1e3", "12345.5e1", "0.1"}
