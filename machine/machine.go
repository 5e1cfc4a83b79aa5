// Package machine is the suite's rapid state machine: actions that grow a
// stream of events (interleaved calls, fragments of valid and malformed
// JSON, closes of every status, late events, supersede and reopen,
// restarts, acks, peeks) under a drawn configuration, with every check of
// package check run after every step. Tests (props_test.go), the bug-zoo
// meta-test and the power benchmark all run the same machine.
package machine

import (
	"fmt"
	"strconv"
	"strings"
	"time"
	"unicode"

	"pgregory.net/rapid"

	"sealgate"
	"sealgate/check"
	"sealgate/gen"
	"sealgate/reduce"
)

// The rapid state machine: actions append events to a growing stream, and
// after every step the whole stream is checked — gate against model, the
// invariant catalog, chunking and isolation.

type call struct {
	attempt, item string
	doc           []byte
	sent          int
}

type machine struct {
	chk      *check.Checker
	failed   *Failure // where the last failing stream is kept, if not nil
	cfg      sealgate.Config
	events   []sealgate.Event
	opened   []string // attempt ids opened since the last restart
	nextID   int
	calls    []*call
	nextCall int
}

func drawConfig(t *rapid.T) sealgate.Config {
	cfg := sealgate.DefaultConfig()
	cfg.Tools = gen.Tools()
	if rapid.Bool().Draw(t, "allow") {
		cfg.Tools[0].Allow = &sealgate.Allow{Field: "path", Values: []string{"notes.md", "日记.md"}}
	}
	switch rapid.IntRange(0, 2).Draw(t, "idem") {
	case 1:
		cfg.Tools[2].Idem = sealgate.Idem{Mode: sealgate.IdemCall}
	case 2:
		cfg.Tools[2].Idem = sealgate.Idem{Mode: sealgate.IdemFields, Fields: []string{"n", "m"}}
	}
	switch rapid.IntRange(0, 2).Draw(t, "policy") {
	case 1:
		cfg.Release = sealgate.PerCall
		cfg.Tools[1].Early = rapid.Bool().Draw(t, "early")
		cfg.Tools[2].Early = rapid.Bool().Draw(t, "early2")
	case 2:
		cfg.Batch = sealgate.Atomic
	}
	if rapid.IntRange(0, 3).Draw(t, "small-limits") == 0 {
		cfg.Limits = sealgate.Limits{
			CallBytes:    rapid.IntRange(1, 120).Draw(t, "call-bytes"),
			TurnBytes:    rapid.IntRange(1, 300).Draw(t, "turn-bytes"),
			Calls:        rapid.IntRange(1, 4).Draw(t, "calls"),
			Depth:        rapid.IntRange(1, 5).Draw(t, "depth"),
			PreviewBytes: rapid.IntRange(1, 80).Draw(t, "preview-bytes"),
		}
	}
	return cfg
}

// drawDoc is the argument text a call grows toward: a generated valid
// object, one of the fixed documents, or a corrupted one.
func drawDoc(t *rapid.T) []byte {
	switch rapid.IntRange(0, 3).Draw(t, "doc-kind") {
	case 0, 1:
		return []byte(JSONObject().Draw(t, "doc"))
	case 2:
		return []byte(rapid.SampledFrom(gen.Docs).Draw(t, "fixed-doc"))
	}
	b := []byte(JSONObject().Draw(t, "doc"))
	i := rapid.IntRange(0, len(b)-1).Draw(t, "corrupt-at")
	b[i] = rapid.SampledFrom([]byte("{}[]\",:\\ x0-\xff\xc3")).Draw(t, "corrupt-byte")
	return b
}

func (m *machine) emit(t *rapid.T, e sealgate.Event) {
	m.events = append(m.events, e)
	if e.Kind == sealgate.Restart {
		m.opened = nil
	}
}

func (m *machine) anyAttempt(t *rapid.T) string {
	if len(m.opened) == 0 || rapid.IntRange(0, 9).Draw(t, "stray-attempt") == 0 {
		return rapid.SampledFrom([]string{"r1", "r2", "ghost"}).Draw(t, "attempt")
	}
	return rapid.SampledFrom(m.opened).Draw(t, "attempt")
}

func (m *machine) pickCall(t *rapid.T) *call {
	if len(m.calls) == 0 {
		return nil
	}
	return rapid.SampledFrom(m.calls).Draw(t, "call")
}

func (m *machine) actions() map[string]func(*rapid.T) {
	return map[string]func(*rapid.T){
		"open": func(t *rapid.T) {
			m.nextID++
			id := "r" + strconv.Itoa(m.nextID)
			m.opened = append(m.opened, id)
			m.emit(t, sealgate.OpenEvent(id, rapid.SampledFrom([]string{"t1", "t2"}).Draw(t, "turn")))
		},
		"reopen": func(t *rapid.T) {
			if len(m.opened) == 0 {
				t.Skip("nothing opened")
			}
			m.emit(t, sealgate.OpenEvent(rapid.SampledFrom(m.opened).Draw(t, "attempt"), rapid.SampledFrom([]string{"t1", "t2"}).Draw(t, "turn")))
		},
		"begin": func(t *rapid.T) {
			a := m.anyAttempt(t)
			item := rapid.SampledFrom([]string{"0", "1", "2", "call_x"}).Draw(t, "item")
			m.nextCall++
			id := "c" + strconv.Itoa(m.nextCall)
			if rapid.IntRange(0, 7).Draw(t, "reuse-call-id") == 0 {
				id = "c1"
			}
			tool := rapid.SampledFrom([]string{"save_file", "save_file", "login", "calc", "unknown"}).Draw(t, "tool")
			m.calls = append(m.calls, &call{attempt: a, item: item, doc: drawDoc(t)})
			m.emit(t, sealgate.BeginEvent(a, item, id, tool))
		},
		"delta": func(t *rapid.T) {
			c := m.pickCall(t)
			if c == nil {
				t.Skip("no call")
			}
			n := rapid.IntRange(0, len(c.doc)-c.sent).Draw(t, "chunk")
			m.emit(t, sealgate.DeltaEvent(c.attempt, c.item, c.doc[c.sent:c.sent+n]))
			c.sent += n
		},
		"end": func(t *rapid.T) {
			c := m.pickCall(t)
			if c == nil {
				t.Skip("no call")
			}
			switch rapid.IntRange(0, 3).Draw(t, "final") {
			case 0:
				m.emit(t, sealgate.EndFinalEvent(c.attempt, c.item, c.doc[:c.sent]))
			case 1:
				m.emit(t, sealgate.EndFinalEvent(c.attempt, c.item, c.doc))
			default:
				m.emit(t, sealgate.EndEvent(c.attempt, c.item))
			}
		},
		"close": func(t *rapid.T) {
			st := sealgate.Status(rapid.IntRange(1, 5).Draw(t, "status"))
			if rapid.Bool().Draw(t, "favour-complete") {
				st = sealgate.Complete
			}
			m.emit(t, sealgate.CloseEvent(m.anyAttempt(t), st))
		},
		"late": func(t *rapid.T) {
			a := rapid.SampledFrom([]string{"ghost", "r1"}).Draw(t, "late-attempt")
			switch rapid.IntRange(0, 2).Draw(t, "late-kind") {
			case 0:
				m.emit(t, sealgate.DeltaEvent(a, "0", []byte(`{}`)))
			case 1:
				m.emit(t, sealgate.EndEvent(a, "0"))
			default:
				m.emit(t, sealgate.CloseEvent(a, sealgate.Complete))
			}
		},
		"ack": func(t *rapid.T) {
			keys := []string{"0123456789abcdef"}
			for _, d := range check.RunModel(m.cfg, m.events) {
				if d.Kind == sealgate.Release || d.Kind == sealgate.Reconcile {
					keys = append(keys, d.Key)
				}
			}
			m.emit(t, sealgate.AckEvent(rapid.SampledFrom(keys).Draw(t, "key"), rapid.Bool().Draw(t, "ok")))
		},
		"restart": func(t *rapid.T) {
			if rapid.IntRange(0, 2).Draw(t, "restart-rarely") != 0 {
				t.Skip("restart kept rare")
			}
			m.emit(t, sealgate.RestartEvent())
		},
		"peek": func(t *rapid.T) {
			if c := m.pickCall(t); c != nil {
				m.emit(t, sealgate.PeekEvent(c.attempt, c.item))
			} else {
				m.emit(t, sealgate.PeekEvent(m.anyAttempt(t), "0"))
			}
		},
		"noop": func(t *rapid.T) {},
		"": func(t *rapid.T) {
			if err := m.chk.All(m.cfg, m.events); err != nil {
				if m.failed != nil {
					first := m.failed.First
					if first.IsZero() {
						first = time.Now()
					}
					*m.failed = Failure{m.cfg, append([]sealgate.Event(nil), m.events...), err, first}
				}
				t.Fatalf("%v\n\nthe stream so far, as a scenario:\n%s", err, reduce.Text(m.cfg, m.events, err))
			}
		},
	}
}

// Failure is a stream that failed a check.
type Failure struct {
	Config sealgate.Config
	Events []sealgate.Event
	Err    error
	First  time.Time // when a check failed for the first time
}

// Run is the state-machine property against a checker's gate; the
// last failing stream (after rapid's shrinking, the smallest) goes to failed.
func Run(chk *check.Checker, failed *Failure) func(*rapid.T) {
	return func(t *rapid.T) {
		m := &machine{chk: chk, cfg: drawConfig(t), failed: failed}
		t.Repeat(m.actions())
	}
}

// JSONObject generates strictly valid I-JSON objects: unique names,
// non-ASCII text, escapes (surrogate pairs included), finite numbers,
// nested containers, arbitrary whitespace.
func JSONObject() *rapid.Generator[string] {
	return rapid.Custom(func(t *rapid.T) string {
		var b strings.Builder
		writeObject(t, &b, 0)
		return b.String()
	})
}

func ws(t *rapid.T) string {
	return rapid.SampledFrom([]string{"", "", "", " ", "\n  ", "\t", "\r\n"}).Draw(t, "ws")
}

func writeObject(t *rapid.T, b *strings.Builder, depth int) {
	b.WriteString("{" + ws(t))
	n := rapid.IntRange(0, 4).Draw(t, "members")
	seen := map[string]bool{}
	for i := 0; i < n; i++ {
		name := rapid.SampledFrom([]string{"path", "content", "token", "auth", "n", "m", "名字", "a b", "k"}).Draw(t, "name")
		if seen[name] {
			continue
		}
		seen[name] = true
		if len(seen) > 1 {
			b.WriteString("," + ws(t))
		}
		b.WriteString(quote(t, name) + ws(t) + ":" + ws(t))
		writeValue(t, b, depth+1)
		b.WriteString(ws(t))
	}
	b.WriteString("}")
}

func writeValue(t *rapid.T, b *strings.Builder, depth int) {
	k := rapid.IntRange(0, 7).Draw(t, "value-kind")
	if depth > 3 && k >= 5 {
		k = 0
	}
	switch k {
	case 0, 1:
		b.WriteString(quote(t, rapid.StringOf(rapid.RuneFrom(nil, unicodeText...)).Draw(t, "text")))
	case 2:
		b.WriteString(rapid.SampledFrom([]string{"0", "-0", "12", "-7.25", "1e3", "2.5E-3", "9007199254740993", "1e-400", "123456789012345678901234567890"}).Draw(t, "number"))
	case 3:
		b.WriteString(rapid.SampledFrom([]string{"true", "false", "null"}).Draw(t, "literal"))
	case 4:
		b.WriteString(strconv.Itoa(rapid.IntRange(-1000, 1000).Draw(t, "int")))
	case 5:
		b.WriteString("[" + ws(t))
		n := rapid.IntRange(0, 3).Draw(t, "items")
		for i := 0; i < n; i++ {
			if i > 0 {
				b.WriteString("," + ws(t))
			}
			writeValue(t, b, depth+1)
		}
		b.WriteString("]")
	default:
		writeObject(t, b, depth)
	}
}

// unicodeText is the rune pool of generated strings: ASCII with the
// characters that need escaping, CJK, emoji (4-byte, surrogate pairs when
// escaped), combining marks; never noncharacters or surrogates.
var unicodeText = []*unicode.RangeTable{
	{R16: []unicode.Range16{{Lo: 0x20, Hi: 0x7e, Stride: 1}, {Lo: 0x0a, Hi: 0x0a, Stride: 1}}},
	{R16: []unicode.Range16{{Lo: 0xe9, Hi: 0xe9, Stride: 1}, {Lo: 0x301, Hi: 0x301, Stride: 1}}},
	{R16: []unicode.Range16{{Lo: 0x4e00, Hi: 0x4e2f, Stride: 1}}},
	{R32: []unicode.Range32{{Lo: 0x1f600, Hi: 0x1f60f, Stride: 1}}},
}

// quote writes s as a JSON string, escaping some runes as \uXXXX (pairs
// above the BMP) and the rest as themselves or short escapes.
func quote(t *rapid.T, s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for _, r := range s {
		switch {
		case r == '"' || r == '\\':
			b.WriteString(`\` + string(r))
		case r < 0x20:
			fmt.Fprintf(&b, `\u%04x`, r)
		case rapid.IntRange(0, 5).Draw(t, "escape") == 0:
			if r > 0xFFFF {
				r -= 0x10000
				fmt.Fprintf(&b, `\u%04X\u%04x`, 0xD800+(r>>10), 0xDC00+(r&0x3FF))
			} else {
				fmt.Fprintf(&b, `\u%04x`, r)
			}
		default:
			b.WriteRune(r)
		}
	}
	b.WriteByte('"')
	return b.String()
}
