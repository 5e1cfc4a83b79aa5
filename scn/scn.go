// Package scn reads and writes scenario files (SPEC section 10): a
// configuration, the events fed to a gate, and the decisions expected back.
//
// Parse decides only whether a file fits the grammar (an invalid file is an
// error naming its line). Whether the configuration it spells is acceptable
// is a separate question answered by Scenario.Config, because a refused
// configuration is a legitimate scenario whose expected answer is
// "@0 refused".
package scn

import (
	"bytes"
	"fmt"
	"os"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/sealgate/sealgate"
)

// Scenario is one parsed .scn file.
type Scenario struct {
	Name   string              // file name, for messages
	Notes  []string            // leading comment lines without their "#", printed back at the top
	Setup  []Directive         // configuration lines in file order
	Events []sealgate.Event    // event lines; event N of a decision line is Events[N-1]
	Expect []sealgate.Decision // the decision lines after "----"
}

// Error is an invalid file (from Parse) or a refused configuration (from
// Config), located at a line of the file when there is one.
type Error struct {
	File string
	Line int // 1-based; 0 when no single line is to blame
	Msg  string
}

func (e *Error) Error() string {
	switch {
	case e.Line > 0:
		return fmt.Sprintf("%s:%d: %s", e.File, e.Line, e.Msg)
	case e.File != "":
		return e.File + ": " + e.Msg
	}
	return e.Msg
}

// Separator is the line between the events and the expected decisions.
const Separator = "----"

// ParseFile reads and parses the scenario file at path.
func ParseFile(path string) (*Scenario, error) {
	src, err := os.ReadFile(path)
	if err != nil {
		return nil, &Error{File: path, Msg: err.Error()}
	}
	return Parse(path, src)
}

// Parse parses a scenario file. name is used only in error messages and
// kept in Scenario.Name. The error, always an *Error, names the first line
// that does not fit the grammar.
func Parse(name string, src []byte) (*Scenario, error) {
	sc := &Scenario{Name: name}
	const (
		inSetup = iota
		inEvents
		inExpect
	)
	phase := inSetup
	leading := true
	lineNo := 0
	fail := func(format string, a ...any) (*Scenario, error) {
		return nil, &Error{File: name, Line: lineNo, Msg: fmt.Sprintf(format, a...)}
	}
	refusedAt := 0 // line of a "@0 refused" decision, which must stand alone
	for len(src) > 0 {
		lineNo++
		var raw []byte
		if i := bytes.IndexByte(src, '\n'); i >= 0 {
			raw, src = src[:i], src[i+1:]
		} else {
			raw, src = src, nil // a last line without LF is read as if it had one
		}
		raw = bytes.TrimSuffix(raw, []byte("\r"))
		if !utf8.Valid(raw) {
			return fail("not UTF-8 (byte %d of the line)", invalidAt(raw)+1)
		}
		if bytes.IndexByte(raw, '\r') >= 0 {
			// Only a CR right before LF is a line ending; any other would not
			// survive printing the file back.
			return fail("carriage return inside a line")
		}
		text := string(raw)
		trimmed := strings.TrimLeft(text, blanks)
		if trimmed == "" {
			continue
		}
		if trimmed[0] == '#' {
			if leading {
				sc.Notes = append(sc.Notes, trimmed[1:])
			}
			continue
		}
		leading = false
		if strings.TrimRight(trimmed, blanks) == Separator {
			if phase == inExpect {
				return fail("a second %s line", Separator)
			}
			phase = inExpect
			continue
		}
		if phase == inExpect {
			d, err := ParseDecisionLine(text)
			if err != nil {
				return fail("%v", err)
			}
			switch {
			case d.Kind == sealgate.Refused:
				if len(sc.Expect) > 0 {
					return fail("@0 refused must be the only decision line")
				}
				refusedAt = lineNo
			case refusedAt > 0:
				return fail("@0 refused (line %d) must be the only decision line", refusedAt)
			case d.At < 1 || d.At > len(sc.Events):
				return fail("@%d: N counts event lines from 1 and there are %d", d.At, len(sc.Events))
			case len(sc.Expect) > 0 && d.At < sc.Expect[len(sc.Expect)-1].At:
				return fail("@%d comes after @%d: decisions are in event order", d.At, sc.Expect[len(sc.Expect)-1].At)
			}
			sc.Expect = append(sc.Expect, d)
			continue
		}
		word := firstToken(trimmed)
		if isDirectiveWord(word) {
			if phase != inSetup {
				return fail("configuration line %q after an event line", word)
			}
			d, err := parseDirective(text)
			if err != nil {
				return fail("%v", err)
			}
			d.Line = lineNo
			sc.Setup = append(sc.Setup, d)
			continue
		}
		if _, ok := sealgate.ParseEventKind(word); ok {
			e, err := ParseEventLine(text)
			if err != nil {
				return fail("%v", err)
			}
			phase = inEvents
			sc.Events = append(sc.Events, e)
			continue
		}
		if strings.HasPrefix(word, "@") {
			return fail("decision line before the %s line", Separator)
		}
		if strings.HasPrefix(word, "\uFEFF") {
			return fail("byte order mark at the start of a line")
		}
		return fail("unknown line word %s", show(word))
	}
	if phase != inExpect {
		if lineNo == 0 {
			lineNo = 1
		}
		return fail("missing the %s line before the expected decisions", Separator)
	}
	return sc, nil
}

// Format prints the scenario back as a file: notes, configuration, events,
// "----", expected decisions, one per line. For a parsed scenario, Parse of
// the result gives an equal scenario.
func (s *Scenario) Format() []byte {
	var b bytes.Buffer
	for _, n := range s.Notes {
		b.WriteString("#" + oneLine(n) + "\n")
	}
	for _, d := range s.Setup {
		b.WriteString(d.String() + "\n")
	}
	for _, e := range s.Events {
		b.WriteString(e.String() + "\n")
	}
	b.WriteString(Separator + "\n")
	b.Write(FormatDecisions(s.Expect))
	return b.Bytes()
}

// FormatDecisions prints decisions as the lines of an expected part.
func FormatDecisions(ds []sealgate.Decision) []byte {
	var b bytes.Buffer
	for _, d := range ds {
		b.WriteString(d.String() + "\n")
	}
	return b.Bytes()
}

// Equal reports whether two scenarios say the same thing: same notes,
// directives (words and fields, not line numbers), events and decisions
// (Refused text included). Name is not compared.
func (s *Scenario) Equal(o *Scenario) bool {
	if len(s.Notes) != len(o.Notes) || len(s.Setup) != len(o.Setup) ||
		len(s.Events) != len(o.Events) || len(s.Expect) != len(o.Expect) {
		return false
	}
	for i := range s.Notes {
		if s.Notes[i] != o.Notes[i] {
			return false
		}
	}
	for i := range s.Setup {
		if !s.Setup[i].Equal(o.Setup[i]) {
			return false
		}
	}
	for i := range s.Events {
		if !EventsEqual(s.Events[i], o.Events[i]) {
			return false
		}
	}
	for i := range s.Expect {
		a, b := s.Expect[i], o.Expect[i]
		if !a.Equal(b) || a.Text != b.Text {
			return false
		}
	}
	return true
}

// EventsEqual compares two events field by field, with nil and empty byte
// strings equal (sealgate.Event.Equal).
func EventsEqual(a, b sealgate.Event) bool { return a.Equal(b) }

const blanks = " \t"

func isBlank(c byte) bool { return c == ' ' || c == '\t' }

func firstToken(s string) string {
	for i := 0; i < len(s); i++ {
		if isBlank(s[i]) {
			return s[:i]
		}
	}
	return s
}

// invalidAt returns the offset of the first byte that is not valid UTF-8.
func invalidAt(b []byte) int {
	for i := 0; i < len(b); {
		r, n := utf8.DecodeRune(b[i:])
		if r == utf8.RuneError && n <= 1 {
			return i
		}
		i += n
	}
	return len(b)
}

// show quotes a piece of input for an error message, cut so that a message
// stays short whatever the input.
func show(s string) string {
	const max = 40
	if len(s) > max {
		return strconv.Quote(s[:max]) + "..."
	}
	return strconv.Quote(s)
}

func oneLine(s string) string {
	return strings.NewReplacer("\r", " ", "\n", " ").Replace(s)
}

// scanner walks one line's tokens. Its errors carry no position: Parse adds
// the file and line.
type scanner struct {
	s   string
	pos int
}

func (l *scanner) skip() {
	for l.pos < len(l.s) && isBlank(l.s[l.pos]) {
		l.pos++
	}
}

func (l *scanner) atEnd() bool {
	l.skip()
	return l.pos >= len(l.s)
}

// bare reads the next bare token; what names it for the error message.
func (l *scanner) bare(what string) (string, error) {
	if l.atEnd() {
		return "", fmt.Errorf("missing %s", what)
	}
	start := l.pos
	for l.pos < len(l.s) && !isBlank(l.s[l.pos]) {
		l.pos++
	}
	tok := l.s[start:l.pos]
	if strings.IndexByte(tok, '"') >= 0 {
		return "", fmt.Errorf("%s: a bare token contains no '\"', got %s", what, show(tok))
	}
	return tok, nil
}

// keyed reads a bare token key=VALUE and returns VALUE (possibly empty).
func (l *scanner) keyed(key string) (string, error) {
	tok, err := l.bare(key + "=")
	if err != nil {
		return "", err
	}
	v, ok := strings.CutPrefix(tok, key+"=")
	if !ok {
		return "", fmt.Errorf("expected %s=..., got %s", key, show(tok))
	}
	return v, nil
}

// literal reads a Go double-quoted string literal starting at the current
// position and returns its text as written and its value. The literal must
// be followed by a blank or the end of the line.
func (l *scanner) literal(what string) (raw, val string, err error) {
	if l.pos >= len(l.s) || l.s[l.pos] != '"' {
		return "", "", fmt.Errorf("%s: expected a Go string literal", what)
	}
	raw, err = literalAt(l.s[l.pos:])
	if err != nil {
		return "", "", fmt.Errorf("%s: %v", what, err)
	}
	l.pos += len(raw)
	if l.pos < len(l.s) && !isBlank(l.s[l.pos]) {
		return "", "", fmt.Errorf("%s: text right after the closing quote", what)
	}
	val, err = strconv.Unquote(raw)
	if err != nil {
		return "", "", fmt.Errorf("%s: bad Go string literal %s", what, show(raw))
	}
	return raw, val, nil
}

// literalAt returns the Go string literal at the start of s (which begins
// with '"'), up to and including its closing unescaped quote.
func literalAt(s string) (string, error) {
	for i := 1; i < len(s); i++ {
		switch s[i] {
		case '\\':
			i++
		case '"':
			return s[:i+1], nil
		}
	}
	return "", fmt.Errorf("unterminated Go string literal %s", show(s))
}

// rest returns the rest of the line after the current position, verbatim.
func (l *scanner) rest() string {
	r := l.s[l.pos:]
	l.pos = len(l.s)
	return r
}

// end checks that nothing follows the last field.
func (l *scanner) end() error {
	if !l.atEnd() {
		return fmt.Errorf("text after the last field: %s", show(l.s[l.pos:]))
	}
	return nil
}

// ParseEventLine parses one event line (no comment, no line ending).
func ParseEventLine(line string) (sealgate.Event, error) {
	l := &scanner{s: line}
	var e sealgate.Event
	word, err := l.bare("event word")
	if err != nil {
		return e, err
	}
	k, ok := sealgate.ParseEventKind(word)
	if !ok {
		return e, fmt.Errorf("unknown event word %s", show(word))
	}
	e.Kind = k
	fields := func(dst ...*string) error {
		keys := []string{"", "item", "call", "tool"}
		for i, p := range dst {
			var err error
			if i == 0 {
				*p, err = l.bare(word + " attempt")
			} else {
				*p, err = l.keyed(keys[i])
			}
			if err != nil {
				return err
			}
		}
		return nil
	}
	switch k {
	case sealgate.Open:
		if err = fields(&e.Attempt); err == nil {
			e.Turn, err = l.keyed("turn")
		}
	case sealgate.Begin:
		err = fields(&e.Attempt, &e.Item, &e.Call, &e.Tool)
	case sealgate.Delta:
		if err = fields(&e.Attempt, &e.Item); err == nil {
			var v string
			l.skip()
			if _, v, err = l.literal("delta bytes"); err == nil {
				e.Bytes = []byte(v)
			}
		}
	case sealgate.End:
		if err = fields(&e.Attempt, &e.Item); err == nil && !l.atEnd() {
			if !strings.HasPrefix(l.s[l.pos:], "final=") {
				return e, fmt.Errorf("expected final=\"...\" or the end of the line, got %s", show(l.s[l.pos:]))
			}
			l.pos += len("final=")
			var v string
			if _, v, err = l.literal("final"); err == nil {
				e.Final, e.HasFinal = []byte(v), true
			}
		}
	case sealgate.Close:
		if err = fields(&e.Attempt); err == nil {
			var s string
			if s, err = l.keyed("status"); err == nil {
				if e.Status, ok = sealgate.ParseStatus(s); !ok {
					err = fmt.Errorf("unknown status %s", show(s))
				}
			}
		}
	case sealgate.Ack:
		if e.Key, err = l.bare("ack key"); err == nil {
			var r string
			if r, err = l.bare("ok or fail"); err == nil {
				switch r {
				case "ok":
					e.OK = true
				case "fail":
				default:
					err = fmt.Errorf("expected ok or fail, got %s", show(r))
				}
			}
		}
	case sealgate.Restart:
	case sealgate.Peek:
		err = fields(&e.Attempt, &e.Item)
	}
	if err == nil {
		err = l.end()
	}
	if err != nil {
		return sealgate.Event{}, err
	}
	return e, nil
}

// ParseDecisionLine parses one decision line of the expected part. It does
// not check N against the events: Parse does.
func ParseDecisionLine(line string) (sealgate.Decision, error) {
	l := &scanner{s: line}
	var d sealgate.Decision
	at, err := l.bare("@N")
	if err != nil {
		return d, err
	}
	n, ok := strings.CutPrefix(at, "@")
	if !ok {
		return d, fmt.Errorf("expected @N, got %s", show(at))
	}
	if d.At, err = decimal(n); err != nil {
		return d, fmt.Errorf("@N: %v", err)
	}
	word, err := l.bare("decision word")
	if err != nil {
		return d, err
	}
	if d.Kind, ok = sealgate.ParseDecisionKind(word); !ok {
		return d, fmt.Errorf("unknown decision word %s", show(word))
	}
	if d.Kind == sealgate.Refused {
		if d.At != 0 {
			return d, fmt.Errorf("refused is always @0, got @%d", d.At)
		}
		if l.pos < len(l.s) {
			d.Text = l.s[l.pos+1:] // any text after one blank
		}
		return d, nil
	}
	if d.Attempt, err = l.bare(word + " attempt"); err != nil {
		return sealgate.Decision{}, err
	}
	err = func() error {
		if d.Kind == sealgate.Anomaly {
			return anomalyFields(l, &d)
		}
		var err error
		if d.Item, err = l.keyed("item"); err != nil {
			return err
		}
		switch d.Kind {
		case sealgate.Release:
			if d.Call, err = l.keyed("call"); err != nil {
				return err
			}
			if d.Tool, err = l.keyed("tool"); err != nil {
				return err
			}
			if d.Key, err = l.keyed("key"); err != nil {
				return err
			}
			a, err := runToEnd(l, "args")
			if err != nil {
				return err
			}
			d.Args = sealgate.Sealed(a)
			return nil
		case sealgate.Reject:
			r, err := l.keyed("reason")
			if err != nil {
				return err
			}
			if d.Reason = sealgate.Reason(r); !d.Reason.Valid() {
				return fmt.Errorf("unknown reason %s", show(r))
			}
		case sealgate.Compensate, sealgate.Reconcile:
			if d.Key, err = l.keyed("key"); err != nil {
				return err
			}
		case sealgate.PreviewAnswer:
			b, err := l.keyed("bytes")
			if err != nil {
				return err
			}
			if d.Preview.Bytes, err = decimal(b); err != nil {
				return fmt.Errorf("bytes=: %v", err)
			}
			d.Preview.Value, err = runToEnd(l, "value")
			return err
		}
		return l.end()
	}()
	if err != nil {
		return sealgate.Decision{}, err
	}
	return d, nil
}

// anomalyFields reads "[item=I] kind=K [key=K]" after an anomaly's attempt.
func anomalyFields(l *scanner, d *sealgate.Decision) error {
	tok, err := l.bare("kind=")
	if err != nil {
		return err
	}
	if item, ok := strings.CutPrefix(tok, "item="); ok {
		d.Item, d.HasItem = item, true
		if tok, err = l.bare("kind="); err != nil {
			return err
		}
	}
	k, ok := strings.CutPrefix(tok, "kind=")
	if !ok {
		return fmt.Errorf("expected item=... or kind=..., got %s", show(tok))
	}
	if d.Anomaly = sealgate.AnomalyKind(k); !d.Anomaly.Valid() {
		return fmt.Errorf("unknown anomaly kind %s", show(k))
	}
	if d.Anomaly == sealgate.UnknownAck {
		// An ack names no attempt: the line says "-" and the decision has "".
		if d.Attempt != "-" {
			return fmt.Errorf("unknown-ack: the attempt is written -, got %s", show(d.Attempt))
		}
		d.Attempt = ""
		if d.Key, err = l.keyed("key"); err != nil {
			return err
		}
	}
	return l.end()
}

// runToEnd reads "key=" and returns everything after it to the end of the
// line, verbatim; it must not be empty.
func runToEnd(l *scanner, key string) (string, error) {
	l.skip()
	if !strings.HasPrefix(l.s[l.pos:], key+"=") {
		if l.pos >= len(l.s) {
			return "", fmt.Errorf("missing %s=", key)
		}
		return "", fmt.Errorf("expected %s=..., got %s", key, show(l.s[l.pos:]))
	}
	l.pos += len(key) + 1
	v := l.rest()
	if v == "" {
		return "", fmt.Errorf("%s= is empty", key)
	}
	return v, nil
}

// decimal reads a non-negative decimal integer that fits an int.
func decimal(s string) (int, error) {
	if s == "" {
		return 0, fmt.Errorf("expected a decimal number, got nothing")
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return 0, fmt.Errorf("expected a decimal number, got %s", show(s))
		}
	}
	n, err := strconv.Atoi(s)
	if err != nil {
		return 0, fmt.Errorf("number %s is too big", show(s))
	}
	return n, nil
}
