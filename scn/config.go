package scn

import (
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/sealgate/sealgate"
)

// Directive is one configuration line, kept as written so that printing
// gives the same line back and so that refusals are decided by Config, not
// by the parser.
//
// Args are the fields after Word, each as written:
//
//	tool    NAME SCHEMA               SCHEMA is the rest of the line
//	allow   TOOL FIELD VALUE...       a quoted VALUE keeps its quotes
//	early   TOOL
//	idem    TOOL MODE                 args, call or fields:a,b
//	secret  TOOL FIELD|/JSON/POINTER
//	policy  release=R batch=B         a subset, in this order
//	limit   call-bytes=N turn-bytes=N calls=N depth=N preview-bytes=N
//	                                  a subset, in this order; N raw
type Directive struct {
	Line int // 1-based line it was read from; 0 if built by code. Not printed, not compared.
	Word string
	Args []string
}

// String prints the directive as its line.
func (d Directive) String() string {
	if len(d.Args) == 0 {
		return d.Word
	}
	return d.Word + " " + strings.Join(d.Args, " ")
}

// Equal compares word and fields, not the line number.
func (d Directive) Equal(o Directive) bool {
	if d.Word != o.Word || len(d.Args) != len(o.Args) {
		return false
	}
	for i := range d.Args {
		if d.Args[i] != o.Args[i] {
			return false
		}
	}
	return true
}

var directiveWords = []string{"tool", "allow", "early", "idem", "secret", "policy", "limit"}

func isDirectiveWord(w string) bool {
	for _, x := range directiveWords {
		if w == x {
			return true
		}
	}
	return false
}

var limitNames = []string{"call-bytes", "turn-bytes", "calls", "depth", "preview-bytes"}

var policyChoices = []struct {
	key     string
	choices []string
}{
	{"release", []string{"after-turn", "per-call"}},
	{"batch", []string{"independent", "atomic"}},
}

// parseDirective splits a configuration line into a Directive and checks
// its grammar.
func parseDirective(line string) (Directive, error) {
	l := &scanner{s: line}
	word, err := l.bare("configuration word")
	if err != nil {
		return Directive{}, err
	}
	d := Directive{Word: word}
	add := func(what string) error {
		tok, err := l.bare(what)
		if err == nil {
			d.Args = append(d.Args, tok)
		}
		return err
	}
	err = func() error {
		switch word {
		case "tool":
			if err := add("tool name"); err != nil {
				return err
			}
			if l.atEnd() {
				return fmt.Errorf("missing tool schema")
			}
			d.Args = append(d.Args, l.rest())
			return nil
		case "allow":
			if err := add("allow tool"); err != nil {
				return err
			}
			if err := add("allow field"); err != nil {
				return err
			}
			if l.atEnd() {
				return fmt.Errorf("allow needs at least one value")
			}
			for !l.atEnd() {
				if l.s[l.pos] == '"' {
					raw, _, err := l.literal("allow value")
					if err != nil {
						return err
					}
					d.Args = append(d.Args, raw)
				} else if err := add("allow value"); err != nil {
					return err
				}
			}
		case "early":
			if err := add("early tool"); err != nil {
				return err
			}
		case "idem", "secret":
			if err := add(word + " tool"); err != nil {
				return err
			}
			if err := add(word + " " + map[string]string{"idem": "mode", "secret": "field"}[word]); err != nil {
				return err
			}
		case "policy", "limit":
			for !l.atEnd() {
				if err := add(word + " key=value"); err != nil {
					return err
				}
			}
		default:
			return fmt.Errorf("unknown configuration word %s", show(word))
		}
		return l.end()
	}()
	if err != nil {
		return Directive{}, err
	}
	if err := d.check(); err != nil {
		return Directive{}, err
	}
	return d, nil
}

// check is the grammar of one directive's fields. Parse calls it on what it
// read; Config calls it again because a Directive may be built by code.
func (d Directive) check() error {
	want := map[string]int{"tool": 2, "early": 1, "idem": 2, "secret": 2}
	if n, ok := want[d.Word]; ok && len(d.Args) != n {
		return fmt.Errorf("%s takes %d fields, got %d", d.Word, n, len(d.Args))
	}
	for i, a := range d.Args {
		switch {
		case d.Word == "tool" && i == 1:
			if a == "" || strings.ContainsAny(a, "\r\n") || isBlank(a[0]) || !utf8Valid(a) {
				return fmt.Errorf("tool: bad schema field %s", show(a))
			}
		case d.Word == "allow" && i >= 2 && strings.HasPrefix(a, `"`):
			if raw, err := literalAt(a); err != nil || raw != a || !utf8Valid(a) {
				return fmt.Errorf("allow value: bad Go string literal %s", show(a))
			}
			if _, err := strconv.Unquote(a); err != nil {
				return fmt.Errorf("allow value: bad Go string literal %s", show(a))
			}
		default:
			if !isBareToken(a) {
				return fmt.Errorf("%s: bad bare token %s", d.Word, show(a))
			}
		}
	}
	switch d.Word {
	case "tool", "early", "secret":
	case "allow":
		if len(d.Args) < 3 {
			return fmt.Errorf("allow takes TOOL FIELD VALUE..., got %d fields", len(d.Args))
		}
	case "idem":
		if _, err := parseIdem(d.Args[1]); err != nil {
			return err
		}
	case "policy":
		if len(d.Args) == 0 {
			return fmt.Errorf("policy needs release= or batch=")
		}
		names := []string{policyChoices[0].key, policyChoices[1].key}
		return checkKeys("policy", names, d.Args, func(i int, v string) error {
			for _, c := range policyChoices[i].choices {
				if v == c {
					return nil
				}
			}
			return fmt.Errorf("policy %s=%s: expected %s", names[i], show(v), strings.Join(policyChoices[i].choices, " or "))
		})
	case "limit":
		return checkKeys("limit", limitNames, d.Args, nil)
	default:
		return fmt.Errorf("unknown configuration word %s", show(d.Word))
	}
	return nil
}

// checkKeys checks key=value fields: known keys, each at most once, in the
// order of names; value checks each value when not nil.
func checkKeys(word string, names, args []string, value func(i int, v string) error) error {
	last := -1
	for _, a := range args {
		k, v, ok := strings.Cut(a, "=")
		i := indexOf(names, k)
		switch {
		case !ok || i < 0:
			return fmt.Errorf("%s: unknown key %s (expected one of %s)", word, show(a), strings.Join(names, "= "))
		case i == last:
			return fmt.Errorf("%s: %s= given twice on one line", word, k)
		case i < last:
			return fmt.Errorf("%s: %s= must come before %s= (fields in the order shown)", word, k, names[last])
		}
		last = i
		if value != nil {
			if err := value(i, v); err != nil {
				return err
			}
		}
	}
	return nil
}

func indexOf(list []string, s string) int {
	for i, x := range list {
		if x == s {
			return i
		}
	}
	return -1
}

// isBareToken: non-empty, no blank, no quote, nothing that would break the line.
func isBareToken(s string) bool {
	return s != "" && !strings.ContainsAny(s, " \t\"\r\n") && utf8Valid(s)
}

func utf8Valid(s string) bool { return utf8.ValidString(s) }

// parseIdem reads an idem mode. fields: with empty names is grammatical;
// Config.Validate refuses it.
func parseIdem(m string) (sealgate.Idem, error) {
	switch m {
	case "args":
		return sealgate.Idem{Mode: sealgate.IdemArgs}, nil
	case "call":
		return sealgate.Idem{Mode: sealgate.IdemCall}, nil
	}
	if f, ok := strings.CutPrefix(m, "fields:"); ok {
		return sealgate.Idem{Mode: sealgate.IdemFields, Fields: strings.Split(f, ",")}, nil
	}
	return sealgate.Idem{}, fmt.Errorf("idem: unknown mode %s (expected args, call or fields:a,b)", show(m))
}

// positive reads a limit value: decimal digits only, greater than zero,
// fitting an int.
func positive(s string) (int, bool) {
	n, err := decimal(s)
	return n, err == nil && n > 0
}

// Config builds the configuration the scenario's directives spell. An
// error means the configuration is refused (the expected answer is then
// "@0 refused"); the file itself was valid. Schemas are passed on as
// written: the gate and the model compile them.
func (s *Scenario) Config() (sealgate.Config, error) {
	c := sealgate.DefaultConfig()
	refuse := func(d Directive, format string, a ...any) (sealgate.Config, error) {
		return sealgate.Config{}, &Error{File: s.Name, Line: d.Line, Msg: "refused: " + fmt.Sprintf(format, a...)}
	}
	index := map[string]int{} // tool name -> its first declaration
	for _, d := range s.Setup {
		if err := d.check(); err != nil {
			return refuse(d, "%v", err)
		}
		if d.Word == "tool" {
			// A second line for one name is left to Validate ("declared twice").
			if _, dup := index[d.Args[0]]; !dup {
				index[d.Args[0]] = len(c.Tools)
			}
			c.Tools = append(c.Tools, sealgate.Tool{Name: d.Args[0], Schema: d.Args[1]})
		}
	}
	allowSeen, idemSeen := map[string]bool{}, map[string]bool{}
	for _, d := range s.Setup {
		var t *sealgate.Tool
		if d.Word != "policy" && d.Word != "limit" && d.Word != "tool" {
			i, ok := index[d.Args[0]]
			if !ok {
				return refuse(d, "%s names undeclared tool %s", d.Word, show(d.Args[0]))
			}
			t = &c.Tools[i]
		}
		switch d.Word {
		case "allow":
			if allowSeen[t.Name] {
				return refuse(d, "a second allow line for tool %s", show(t.Name))
			}
			allowSeen[t.Name] = true
			a := &sealgate.Allow{Field: d.Args[1]}
			for _, v := range d.Args[2:] {
				if strings.HasPrefix(v, `"`) {
					v, _ = strconv.Unquote(v) // checked above
				}
				a.Values = append(a.Values, v)
			}
			t.Allow = a
		case "early":
			t.Early = true
		case "idem":
			if idemSeen[t.Name] {
				return refuse(d, "a second idem line for tool %s", show(t.Name))
			}
			idemSeen[t.Name] = true
			t.Idem, _ = parseIdem(d.Args[1]) // checked above
		case "secret":
			t.Secrets = append(t.Secrets, d.Args[1])
		case "policy":
			for _, a := range d.Args {
				k, v, _ := strings.Cut(a, "=")
				switch k + "=" + v {
				case "release=after-turn":
					c.Release = sealgate.AfterTurn
				case "release=per-call":
					c.Release = sealgate.PerCall
				case "batch=independent":
					c.Batch = sealgate.Independent
				case "batch=atomic":
					c.Batch = sealgate.Atomic
				}
			}
		case "limit":
			for _, a := range d.Args {
				k, v, _ := strings.Cut(a, "=")
				n, ok := positive(v)
				if !ok {
					return refuse(d, "limit %s=%s: a limit is a positive decimal integer", k, show(v))
				}
				*limitField(&c.Limits, k) = n
			}
		}
	}
	if err := c.Validate(); err != nil {
		return refuse(Directive{}, "%v", err)
	}
	return c, nil
}

func limitField(l *sealgate.Limits, name string) *int {
	switch name {
	case "call-bytes":
		return &l.CallBytes
	case "turn-bytes":
		return &l.TurnBytes
	case "calls":
		return &l.Calls
	case "depth":
		return &l.Depth
	}
	return &l.PreviewBytes
}

// FromConfig writes a configuration as directives, so that a generated
// case can be saved as a scenario file. Policy and limits are written only
// where they differ from the defaults. It fails when something cannot be
// spelled in the grammar (a name that is not a bare token, a schema with a
// line break); a configuration that would be refused is written as is, so
// it stays refused.
func FromConfig(c sealgate.Config) ([]Directive, error) {
	var ds []Directive
	add := func(word string, args ...string) { ds = append(ds, Directive{Word: word, Args: args}) }
	for _, t := range c.Tools {
		add("tool", t.Name, t.Schema)
	}
	for _, t := range c.Tools {
		if t.Allow != nil {
			args := []string{t.Name, t.Allow.Field}
			for _, v := range t.Allow.Values {
				if !isBareToken(v) {
					v = strconv.Quote(v)
				}
				args = append(args, v)
			}
			add("allow", args...)
		}
		if t.Early {
			add("early", t.Name)
		}
		if t.Idem.Mode != sealgate.IdemArgs || len(t.Idem.Fields) > 0 {
			m, err := parseIdem(t.Idem.String())
			if err != nil || t.Idem.Mode != m.Mode || !sameStrings(t.Idem.Fields, m.Fields) {
				return nil, fmt.Errorf("cannot write the idem rule of tool %s: %s", show(t.Name), show(t.Idem.String()))
			}
			add("idem", t.Name, t.Idem.String())
		}
		for _, s := range t.Secrets {
			add("secret", t.Name, s)
		}
	}
	var pol []string
	if c.Release != sealgate.AfterTurn {
		pol = append(pol, "release="+c.Release.String())
	}
	if c.Batch != sealgate.Independent {
		pol = append(pol, "batch="+c.Batch.String())
	}
	if len(pol) > 0 {
		add("policy", pol...)
	}
	var lim []string
	def := sealgate.DefaultLimits()
	for _, name := range limitNames {
		if v := *limitField(&c.Limits, name); v != *limitField(&def, name) {
			lim = append(lim, name+"="+strconv.Itoa(v))
		}
	}
	if len(lim) > 0 {
		add("limit", lim...)
	}
	for _, d := range ds {
		if err := d.check(); err != nil {
			return nil, fmt.Errorf("cannot write %s line: %v", d.Word, err)
		}
	}
	return ds, nil
}

func sameStrings(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}
