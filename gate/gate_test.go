package gate

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/sealgate/sealgate"
	"github.com/sealgate/sealgate/gate/internal/partial"
)

// Event constructors, short so that scenarios read like .scn files.
var (
	op   = sealgate.OpenEvent
	bg   = sealgate.BeginEvent
	en   = sealgate.EndEvent
	cl   = sealgate.CloseEvent
	ack  = sealgate.AckEvent
	rst  = sealgate.RestartEvent
	peek = sealgate.PeekEvent
)

func dl(a, item, s string) sealgate.Event { return sealgate.DeltaEvent(a, item, []byte(s)) }
func ef(a, item, s string) sealgate.Event { return sealgate.EndFinalEvent(a, item, []byte(s)) }

const (
	complete     = sealgate.Complete
	truncated    = sealgate.Truncated
	failed       = sealgate.Failed
	cancelled    = sealgate.Cancelled
	disconnected = sealgate.Disconnected
)

// argsKey computes an args-mode key from a canonical form written by hand.
func argsKey(turn, tool, canon string) string {
	return sealgate.Key(sealgate.ArgsMaterial(turn, tool, []byte(canon)))
}

type cfgOpt func(*sealgate.Config)

func testConfig(opts ...cfgOpt) sealgate.Config {
	c := sealgate.DefaultConfig()
	c.Tools = []sealgate.Tool{
		{Name: "save_file", Schema: saveSchema},
		{Name: "note", Schema: `{"type":"object","properties":{"n":{"type":"integer"}}}`},
	}
	for _, o := range opts {
		o(&c)
	}
	return c
}

func withTool(t sealgate.Tool) cfgOpt {
	return func(c *sealgate.Config) { c.Tools = append(c.Tools, t) }
}
func withLimits(f func(*sealgate.Limits)) cfgOpt {
	return func(c *sealgate.Config) { f(&c.Limits) }
}
func perCall(c *sealgate.Config) { c.Release = sealgate.PerCall }
func atomic(c *sealgate.Config)  { c.Batch = sealgate.Atomic }

// feed runs events through g and returns the decision lines. It checks
// on every event that the retained bytes stay within bounds.
func feed(t *testing.T, g *Gate, evs []sealgate.Event) []string {
	t.Helper()
	var lines []string
	for _, ev := range evs {
		ds, err := g.Feed(ev)
		if err != nil {
			t.Fatalf("Feed(%s): %v", ev, err)
		}
		for _, d := range ds {
			lines = append(lines, d.String())
		}
		if r := g.Retained(); r < 0 || r > g.limits.TurnBytes*max(1, len(g.turns)) {
			t.Fatalf("after %s: Retained() = %d", ev, r)
		}
	}
	return lines
}

type scenario struct {
	name string
	cfg  sealgate.Config
	pre  map[string]LedgerState // ledger contents before the run
	evs  []sealgate.Event
	want []string
}

func runScenario(t *testing.T, s scenario) *Gate {
	t.Helper()
	l := NewMemoryLedger()
	for k, st := range s.pre {
		l.keys[k] = st
	}
	g, err := New(s.cfg, l)
	if err != nil {
		t.Fatalf("%s: New: %v", s.name, err)
	}
	got := feed(t, g, s.evs)
	if strings.Join(got, "\n") != strings.Join(s.want, "\n") {
		t.Errorf("%s:\ngot:\n  %s\nwant:\n  %s", s.name, strings.Join(got, "\n  "), strings.Join(s.want, "\n  "))
	}
	return g
}

func TestSpecExample(t *testing.T) {
	runScenario(t, scenario{
		name: "spec example",
		cfg: testConfig(func(c *sealgate.Config) {
			c.Tools[0].Allow = &sealgate.Allow{Field: "path", Values: []string{"notes.md"}}
		}),
		evs: []sealgate.Event{
			op("r1", "t1"),
			bg("r1", "0", "call_1", "save_file"),
			dl("r1", "0", `{"path":"notes.md","content":"Topic confirmed.`),
			cl("r1", disconnected),
		},
		want: []string{"@4 reject r1 item=0 reason=turn-disconnected"},
	})
}

// A release is the call's own bytes, compacted, whatever the chunking.
func TestReleaseChunked(t *testing.T) {
	raw := "{ \"path\" : \"notes.md\",\n \"content\" : \"a\\u0062\u00e9 \\\" }\" }"
	key := argsKey("t1", "save_file", `{"content":"abé \" }","path":"notes.md"}`)
	want := `@%d release r1 item=0 call=call_1 tool=save_file key=` + key +
		` args={"path":"notes.md","content":"a\u0062é \" }"}`
	for size := 1; size <= len(raw); size++ {
		g, _ := New(testConfig(), NewMemoryLedger())
		evs := []sealgate.Event{op("r1", "t1"), bg("r1", "0", "call_1", "save_file")}
		for i := 0; i < len(raw); i += size {
			evs = append(evs, dl("r1", "0", raw[i:min(i+size, len(raw))]))
		}
		got := feed(t, g, evs)
		if len(got) != 0 || g.Retained() != len(raw) {
			t.Fatalf("size %d: before end: %v, retained %d", size, got, g.Retained())
		}
		got = feed(t, g, []sealgate.Event{en("r1", "0"), cl("r1", complete)})
		if w := fmt.Sprintf(want, len(evs)+2); len(got) != 1 || got[0] != w {
			t.Fatalf("size %d:\ngot  %v\nwant %s", size, got, w)
		}
		if g.Retained() != 0 {
			t.Fatalf("size %d: retained %d after the decision", size, g.Retained())
		}
	}
}

func TestAnomalies(t *testing.T) {
	tiny := withLimits(func(l *sealgate.Limits) { l.CallBytes, l.TurnBytes, l.Calls = 3, 4, 2 })
	for _, s := range []scenario{
		{name: "no-open", cfg: testConfig(), evs: []sealgate.Event{
			dl("r9", "0", ""), cl("r9", complete), bg("r9", "0", "c", "note"), en("r9", "0"),
			peek("r9", "0"), op("r9", "t"),
		}, want: []string{
			"@1 anomaly r9 item=0 kind=no-open",
			"@2 anomaly r9 kind=no-open",
			"@3 anomaly r9 item=0 kind=no-open",
			"@4 anomaly r9 item=0 kind=no-open",
			"@5 preview r9 item=0 bytes=0 value=-",
		}},
		{name: "reopen of a live attempt poisons it", cfg: testConfig(), evs: []sealgate.Event{
			op("r1", "t1"), bg("r1", "0", "c0", "note"), bg("r1", "1", "c1", "note"), op("r1", "t2"),
			dl("r1", "0", "x"), cl("r1", complete), dl("r1", "0", "x"), op("r1", "t1"),
		}, want: []string{
			"@4 anomaly r1 kind=reopen",
			"@4 reject r1 item=0 reason=turn-anomaly",
			"@4 reject r1 item=1 reason=turn-anomaly",
			"@7 anomaly r1 item=0 kind=after-close",
			"@8 anomaly r1 kind=reopen",
		}},
		{name: "reopen supersedes nothing", cfg: testConfig(), evs: []sealgate.Event{
			op("r1", "t1"), bg("r1", "0", "c0", "note"), op("r2", "t1"), op("r2", "t1"), op("r1", "t1"),
		}, want: []string{
			"@3 reject r1 item=0 reason=superseded",
			"@4 anomaly r2 kind=reopen",
			"@5 anomaly r1 kind=reopen",
		}},
		{name: "after-close", cfg: testConfig(), evs: []sealgate.Event{
			op("r1", "t1"), cl("r1", complete), bg("r1", "0", "c", "note"), dl("r1", "0", ""),
			en("r1", "0"), cl("r1", complete), peek("r1", "0"),
		}, want: []string{
			"@3 anomaly r1 item=0 kind=after-close",
			"@4 anomaly r1 item=0 kind=after-close",
			"@5 anomaly r1 item=0 kind=after-close",
			"@6 anomaly r1 kind=after-close",
			"@7 preview r1 item=0 bytes=0 value=-",
		}},
		{name: "unknown-call on delta", cfg: testConfig(), evs: []sealgate.Event{
			op("r1", "t1"), bg("r1", "0", "c", "note"), dl("r1", "1", ""),
		}, want: []string{
			"@3 anomaly r1 item=1 kind=unknown-call",
			"@3 reject r1 item=0 reason=turn-anomaly",
		}},
		{name: "unknown-call on end", cfg: testConfig(), evs: []sealgate.Event{
			op("r1", "t1"), en("r1", "0"),
		}, want: []string{"@2 anomaly r1 item=0 kind=unknown-call"}},
		{name: "after-end by an empty delta", cfg: testConfig(), evs: []sealgate.Event{
			op("r1", "t1"), bg("r1", "0", "c", "note"), dl("r1", "0", "{}"), en("r1", "0"), dl("r1", "0", ""),
		}, want: []string{
			"@5 anomaly r1 item=0 kind=after-end",
			"@5 reject r1 item=0 reason=turn-anomaly",
		}},
		{name: "after-end by a second end", cfg: testConfig(), evs: []sealgate.Event{
			op("r1", "t1"), bg("r1", "0", "c", "note"), dl("r1", "0", "{}"), en("r1", "0"), en("r1", "0"),
		}, want: []string{
			"@5 anomaly r1 item=0 kind=after-end",
			"@5 reject r1 item=0 reason=turn-anomaly",
		}},
		{name: "duplicate-begin is checked before identity-conflict", cfg: testConfig(), evs: []sealgate.Event{
			op("r1", "t1"), bg("r1", "0", "c", "note"), bg("r1", "0", "c", "note"),
		}, want: []string{
			"@3 anomaly r1 item=0 kind=duplicate-begin",
			"@3 reject r1 item=0 reason=turn-anomaly",
		}},
		{name: "identity-conflict", cfg: testConfig(), evs: []sealgate.Event{
			op("r1", "t1"), bg("r1", "0", "c", "note"), bg("r1", "1", "c", "save_file"),
		}, want: []string{
			"@3 anomaly r1 item=1 kind=identity-conflict",
			"@3 reject r1 item=0 reason=turn-anomaly",
		}},
		{name: "same call id in another attempt is fine", cfg: testConfig(), evs: []sealgate.Event{
			op("r1", "t1"), bg("r1", "0", "c", "note"), op("r2", "t2"), bg("r2", "0", "c", "note"),
		}},
		{name: "too-many-calls", cfg: testConfig(tiny), evs: []sealgate.Event{
			op("r1", "t1"), bg("r1", "0", "a", "note"), bg("r1", "1", "b", "note"), bg("r1", "2", "c", "note"),
		}, want: []string{
			"@4 anomaly r1 item=2 kind=too-many-calls",
			"@4 reject r1 item=0 reason=turn-anomaly",
			"@4 reject r1 item=1 reason=turn-anomaly",
		}},
		{name: "turn-too-large", cfg: testConfig(tiny), evs: []sealgate.Event{
			op("r1", "t1"), bg("r1", "0", "a", "note"), bg("r1", "1", "b", "note"),
			dl("r1", "0", "{}"), dl("r1", "1", "{}"), dl("r1", "1", "x"),
		}, want: []string{
			"@6 anomaly r1 item=1 kind=turn-too-large",
			"@6 reject r1 item=0 reason=turn-anomaly",
			"@6 reject r1 item=1 reason=turn-anomaly",
		}},
		{name: "call-bytes is checked before turn-bytes", cfg: testConfig(tiny), evs: []sealgate.Event{
			op("r1", "t1"), bg("r1", "0", "a", "note"), bg("r1", "1", "b", "note"),
			dl("r1", "0", "{}"), dl("r1", "1", "{}  "), dl("r1", "1", "xxxxx"), en("r1", "1"),
			dl("r1", "1", "y"), dl("r1", "1", "{}"), en("r1", "0"), cl("r1", complete),
		}, want: []string{
			"@5 reject r1 item=1 reason=too-large",
			"@11 release r1 item=0 call=a tool=note key=" + argsKey("t1", "note", "{}") + " args={}",
		}},
		{name: "final-mismatch", cfg: testConfig(), evs: []sealgate.Event{
			op("r1", "t1"), bg("r1", "0", "c", "note"), dl("r1", "0", "{}"), ef("r1", "0", "{ }"),
		}, want: []string{
			"@4 anomaly r1 item=0 kind=final-mismatch",
			"@4 reject r1 item=0 reason=turn-anomaly",
		}},
		{name: "final matches byte for byte", cfg: testConfig(), evs: []sealgate.Event{
			op("r1", "t1"), bg("r1", "0", "c", "note"), dl("r1", "0", "{ }"), ef("r1", "0", "{ }"), cl("r1", complete),
		}, want: []string{
			"@5 release r1 item=0 call=c tool=note key=" + argsKey("t1", "note", "{}") + " args={}",
		}},
		{name: "empty final against no bytes", cfg: testConfig(), evs: []sealgate.Event{
			op("r1", "t1"), bg("r1", "0", "c", "note"), ef("r1", "0", ""), cl("r1", complete),
		}, want: []string{"@4 reject r1 item=0 reason=malformed-json"}},
		{name: "unknown-ack", cfg: testConfig(), evs: []sealgate.Event{
			ack("00112233aabbccdd", true), ack("00112233aabbccdd", false),
		}, want: []string{
			"@1 anomaly - kind=unknown-ack key=00112233aabbccdd",
			"@2 anomaly - kind=unknown-ack key=00112233aabbccdd",
		}},
		{name: "ack of a done key", cfg: testConfig(), pre: map[string]LedgerState{"k1": Done}, evs: []sealgate.Event{
			ack("k1", true), ack("k1", false),
		}, want: []string{
			"@1 anomaly - kind=unknown-ack key=k1",
			"@2 anomaly - kind=unknown-ack key=k1",
		}},
		{name: "dead attempt drops events and is not superseded", cfg: testConfig(), evs: []sealgate.Event{
			op("r1", "t1"), bg("r1", "0", "c", "note"), dl("r1", "7", "x"),
			bg("r1", "1", "c", "note"), dl("r1", "0", "{}"), en("r1", "0"), peek("r1", "0"),
			op("r2", "t1"), dl("r1", "0", "x"), cl("r1", failed), cl("r1", complete),
			bg("r2", "0", "c", "note"), dl("r2", "0", "{}"), en("r2", "0"), cl("r2", complete),
		}, want: []string{
			"@3 anomaly r1 item=7 kind=unknown-call",
			"@3 reject r1 item=0 reason=turn-anomaly",
			"@7 preview r1 item=0 bytes=0 value=-",
			"@11 anomaly r1 kind=after-close",
			"@15 release r2 item=0 call=c tool=note key=" + argsKey("t1", "note", "{}") + " args={}",
		}},
	} {
		g := runScenario(t, s)
		if len(g.turns) == 0 && g.Retained() != 0 {
			t.Errorf("%s: no live attempt but %d bytes retained", s.name, g.Retained())
		}
	}
}

func TestReasons(t *testing.T) {
	one := func(tool, args string, status sealgate.Status) []sealgate.Event {
		return []sealgate.Event{op("r1", "t1"), bg("r1", "0", "c", tool), dl("r1", "0", args), en("r1", "0"), cl("r1", status)}
	}
	allowPath := func(c *sealgate.Config) {
		c.Tools[0].Allow = &sealgate.Allow{Field: "path", Values: []string{"notes.md", "a b"}}
	}
	anyPath := withTool(sealgate.Tool{Name: "w", Schema: `{}`, Allow: &sealgate.Allow{Field: "path", Values: []string{"x"}}})
	for _, c := range []struct {
		name string
		cfg  sealgate.Config
		evs  []sealgate.Event
		want string
	}{
		{"incomplete", testConfig(), []sealgate.Event{op("r1", "t1"), bg("r1", "0", "c", "note"), dl("r1", "0", "{}"), cl("r1", complete)}, "incomplete"},
		{"malformed-json", testConfig(), one("note", `{"n":1,"n":2}`, complete), "malformed-json"},
		{"malformed-json: repaired-looking text", testConfig(), one("note", `{"n":1`, complete), "malformed-json"},
		{"too-deep", testConfig(withLimits(func(l *sealgate.Limits) { l.Depth = 1 })), one("note", `{"a":[]}`, complete), "too-deep"},
		{"not-object", testConfig(), one("note", ` [] `, complete), "not-object"},
		{"not-object: string", testConfig(), one("note", `"{}"`, complete), "not-object"},
		{"schema", testConfig(), one("save_file", `{"path":"x"}`, complete), "schema"},
		{"schema: integer", testConfig(), one("note", `{"n":1.5}`, complete), "schema"},
		{"schema: tiny numbers compare exactly", testConfig(withTool(sealgate.Tool{Name: "m", Schema: `{"properties":{"a":{"exclusiveMinimum":0}}}`})),
			one("m", `{"a":-1e-9999999}`, complete), "schema"},
		{"schema: unknown tool", testConfig(), one("nope", `{}`, complete), "schema"},
		{"unauthorized", testConfig(allowPath), one("save_file", `{"path":"other.md","content":""}`, complete), "unauthorized"},
		{"unauthorized: non-string", testConfig(anyPath), one("w", `{"path":["x"]}`, complete), "unauthorized"},
		{"unauthorized: missing", testConfig(anyPath), one("w", `{"Path":"x"}`, complete), "unauthorized"},
		{"turn-truncated", testConfig(), one("note", `{}`, truncated), "turn-truncated"},
		{"turn-failed", testConfig(), one("note", `{}`, failed), "turn-failed"},
		{"turn-cancelled", testConfig(), one("note", `{}`, cancelled), "turn-cancelled"},
		{"turn-disconnected", testConfig(), one("note", `{}`, disconnected), "turn-disconnected"},
		{"too-large", testConfig(withLimits(func(l *sealgate.Limits) { l.CallBytes = 2 })), one("note", `{ }`, complete), "too-large"},
	} {
		runScenario(t, scenario{name: c.name, cfg: c.cfg, evs: c.evs, want: []string{
			fmt.Sprintf("@%d reject r1 item=0 reason=%s", map[bool]int{true: 3, false: len(c.evs)}[c.want == "too-large"], c.want),
		}})
	}
	// Authorization compares after unescaping.
	runScenario(t, scenario{name: "authorized via escape", cfg: testConfig(allowPath),
		evs: one("save_file", `{"path":"a\u0020b","content":""}`, complete),
		want: []string{"@5 release r1 item=0 call=c tool=save_file key=" +
			argsKey("t1", "save_file", `{"content":"","path":"a b"}`) + ` args={"path":"a\u0020b","content":""}`}})
}

func TestDuplicatesAndLedger(t *testing.T) {
	k := argsKey("t1", "note", `{"n":1}`)
	rel := func(at int, a, item, call, args string) string {
		return fmt.Sprintf("@%d release %s item=%s call=%s tool=note key=%s args=%s", at, a, item, call, k, args)
	}
	twice := func(a, t string) []sealgate.Event {
		return []sealgate.Event{
			op(a, t), bg(a, "0", "c0", "note"), bg(a, "1", "c1", "note"),
			dl(a, "1", `{ "n" : 1.0 }`), dl(a, "0", `{"n":1}`), en(a, "1"), en(a, "0"), cl(a, complete),
		}
	}
	single := func(a, t string) []sealgate.Event {
		return []sealgate.Event{op(a, t), bg(a, "0", "c0", "note"), dl(a, "0", `{"n":1}`), en(a, "0"), cl(a, complete)}
	}
	cat := func(parts ...[]sealgate.Event) []sealgate.Event {
		var out []sealgate.Event
		for _, p := range parts {
			out = append(out, p...)
		}
		return out
	}
	for _, s := range []scenario{
		{name: "duplicate in one attempt, begin order", cfg: testConfig(), evs: twice("r1", "t1"), want: []string{
			rel(8, "r1", "0", "c0", `{"n":1}`),
			"@8 reject r1 item=1 reason=duplicate",
		}},
		{name: "ack ok keeps the key in the released set", cfg: testConfig(),
			evs:  cat(single("r1", "t1"), []sealgate.Event{ack(k, true)}, single("r2", "t1")),
			want: []string{rel(5, "r1", "0", "c0", `{"n":1}`), "@11 reject r2 item=0 reason=duplicate"}},
		{name: "the same call in a later turn is a new action", cfg: testConfig(),
			evs: cat(single("r1", "t1"), []sealgate.Event{ack(k, true)}, single("r2", "t2"), single("r3", "t1")),
			want: []string{rel(5, "r1", "0", "c0", `{"n":1}`),
				"@11 release r2 item=0 call=c0 tool=note key=" + argsKey("t2", "note", `{"n":1}`) + ` args={"n":1}`,
				"@16 reject r3 item=0 reason=duplicate"}},
		{name: "ack ok then restart: duplicate-effect", cfg: testConfig(),
			evs:  cat(single("r1", "t1"), []sealgate.Event{ack(k, true), rst()}, single("r1", "t1")),
			want: []string{rel(5, "r1", "0", "c0", `{"n":1}`), "@12 reject r1 item=0 reason=duplicate-effect"}},
		{name: "restart before ack: reconcile, twice, adds nothing", cfg: testConfig(),
			evs: cat(single("r1", "t1"), []sealgate.Event{rst()}, twice("r2", "t1"), []sealgate.Event{ack(k, false)}, single("r3", "t1")),
			want: []string{
				rel(5, "r1", "0", "c0", `{"n":1}`),
				"@14 reconcile r2 item=0 key=" + k,
				"@14 reconcile r2 item=1 key=" + k,
				rel(20, "r3", "0", "c0", `{"n":1}`),
			}},
		{name: "ack fail clears the released set", cfg: testConfig(),
			evs: cat(single("r1", "t1"), []sealgate.Event{ack(k, false), ack(k, false)}, single("r2", "t1")),
			want: []string{
				rel(5, "r1", "0", "c0", `{"n":1}`),
				"@7 anomaly - kind=unknown-ack key=" + k,
				rel(12, "r2", "0", "c0", `{"n":1}`),
			}},
		{name: "in doubt from an earlier process", cfg: testConfig(), pre: map[string]LedgerState{k: Intent},
			evs: single("r1", "t1"), want: []string{"@5 reconcile r1 item=0 key=" + k}},
		{name: "idem call mode: same turn and call id", cfg: testConfig(func(c *sealgate.Config) {
			c.Tools[1].Idem = sealgate.Idem{Mode: sealgate.IdemCall}
		}), evs: []sealgate.Event{
			op("r1", "t1"), bg("r1", "0", "c0", "note"), dl("r1", "0", `{"n":1}`), en("r1", "0"), cl("r1", complete),
			op("r2", "t1"), bg("r2", "0", "c0", "note"), dl("r2", "0", `{"n":2}`), en("r2", "0"),
			bg("r2", "1", "c1", "note"), dl("r2", "1", `{"n":1}`), en("r2", "1"), cl("r2", complete),
		}, want: []string{
			"@5 release r1 item=0 call=c0 tool=note key=" + sealgate.Key(sealgate.CallMaterial("t1", "c0")) + ` args={"n":1}`,
			"@13 reject r2 item=0 reason=duplicate",
			"@13 release r2 item=1 call=c1 tool=note key=" + sealgate.Key(sealgate.CallMaterial("t1", "c1")) + ` args={"n":1}`,
		}},
		{name: "idem fields mode: absent is null", cfg: testConfig(func(c *sealgate.Config) {
			c.Tools[1].Idem = sealgate.Idem{Mode: sealgate.IdemFields, Fields: []string{"id", "n"}}
		}), evs: []sealgate.Event{
			op("r1", "t1"),
			bg("r1", "0", "c0", "note"), dl("r1", "0", `{"n":1,"x":"a"}`), en("r1", "0"),
			bg("r1", "1", "c1", "note"), dl("r1", "1", `{"x":"b","id":null,"\u006e":1e0}`), en("r1", "1"),
			cl("r1", complete),
		}, want: []string{
			"@8 release r1 item=0 call=c0 tool=note key=" +
				sealgate.Key(sealgate.FieldsMaterial("note", [][]byte{[]byte("null"), []byte("1")})) + ` args={"n":1,"x":"a"}`,
			"@8 reject r1 item=1 reason=duplicate",
		}},
		{name: "digits beyond float64 precision collide", cfg: testConfig(withTool(sealgate.Tool{Name: "v", Schema: `{}`})), evs: []sealgate.Event{
			op("r1", "t1"),
			bg("r1", "0", "c0", "v"), dl("r1", "0", `{"v":9007199254740993}`), en("r1", "0"),
			bg("r1", "1", "c1", "v"), dl("r1", "1", `{"v":9007199254740992}`), en("r1", "1"),
			cl("r1", complete),
		}, want: []string{
			"@8 release r1 item=0 call=c0 tool=v key=" + argsKey("t1", "v", `{"v":9007199254740992}`) + ` args={"v":9007199254740993}`,
			"@8 reject r1 item=1 reason=duplicate",
		}},
	} {
		runScenario(t, s)
	}
}

func TestSupersedeRestartPeek(t *testing.T) {
	secret := withTool(sealgate.Tool{Name: "login", Schema: `{}`, Secrets: []string{"pw"}})
	for _, s := range []scenario{
		{name: "superseded", cfg: testConfig(), evs: []sealgate.Event{
			op("r1", "t1"), bg("r1", "0", "c", "note"), bg("r1", "1", "d", "note"), dl("r1", "1", "{}"), en("r1", "1"),
			op("r2", "t1"), dl("r1", "0", "{}"), peek("r1", "1"),
		}, want: []string{
			"@6 reject r1 item=0 reason=superseded",
			"@6 reject r1 item=1 reason=superseded",
			"@7 anomaly r1 item=0 kind=after-close",
			"@8 preview r1 item=1 bytes=0 value=-",
		}},
		{name: "restart forgets attempts, not the ledger", cfg: testConfig(), evs: []sealgate.Event{
			op("r1", "t1"), bg("r1", "0", "c", "note"), dl("r1", "0", "{}"), rst(),
			dl("r1", "0", "{}"), op("r1", "t1"), bg("r1", "0", "c", "note"), cl("r1", cancelled),
		}, want: []string{
			"@5 anomaly r1 item=0 kind=no-open",
			"@8 reject r1 item=0 reason=turn-cancelled",
		}},
		{name: "peek", cfg: testConfig(secret), evs: []sealgate.Event{
			op("r1", "t1"), bg("r1", "0", "c", "note"), peek("r1", "0"), dl("r1", "0", `{"n":12`),
			peek("r1", "0"), dl("r1", "0", `,"s":"ab`), peek("r1", "0"), dl("r1", "0", `"}`), en("r1", "0"),
			peek("r1", "0"), peek("r1", "9"), peek("r2", "0"),
			bg("r1", "1", "d", "login"), dl("r1", "1", `{"pw":"hunter2`), peek("r1", "1"),
			cl("r1", complete), peek("r1", "0"),
		}, want: []string{
			"@3 preview r1 item=0 bytes=0 value=-",
			"@5 preview r1 item=0 bytes=7 value={}",
			`@7 preview r1 item=0 bytes=15 value={"n":12,"s":"ab"}`,
			`@10 preview r1 item=0 bytes=17 value={"n":12,"s":"ab"}`,
			"@11 preview r1 item=9 bytes=0 value=-",
			"@12 preview r2 item=0 bytes=0 value=-",
			`@15 preview r1 item=1 bytes=14 value={"pw":"[redacted]"}`,
			"@16 release r1 item=0 call=c tool=note key=" + argsKey("t1", "note", `{"n":12,"s":"ab"}`) + ` args={"n":12,"s":"ab"}`,
			"@16 reject r1 item=1 reason=incomplete",
			"@17 preview r1 item=0 bytes=0 value=-",
		}},
		{name: "peek of a too-large call", cfg: testConfig(withLimits(func(l *sealgate.Limits) { l.CallBytes = 3 })), evs: []sealgate.Event{
			op("r1", "t1"), bg("r1", "0", "c", "note"), dl("r1", "0", `{"n":1}`), peek("r1", "0"),
		}, want: []string{
			"@3 reject r1 item=0 reason=too-large",
			"@4 preview r1 item=0 bytes=0 value=-",
		}},
	} {
		runScenario(t, s)
	}
}

// The preview is the engine's, fed the same bytes, and the bytes count is
// every byte received, not capped.
func TestPeekMatchesEngine(t *testing.T) {
	cfg := testConfig(withLimits(func(l *sealgate.Limits) { l.PreviewBytes = 5 }))
	g, _ := New(cfg, NewMemoryLedger())
	frags := []string{`{"n":`, `1, "s"`, `:"xyz`, `"}`}
	feed(t, g, []sealgate.Event{op("r1", "t1"), bg("r1", "0", "c", "note")})
	p := partial.New(cfg.Limits.Depth, cfg.Limits.PreviewBytes, nil)
	total := 0
	for _, f := range frags {
		feed(t, g, []sealgate.Event{dl("r1", "0", f)})
		p.Write([]byte(f))
		total += len(f)
		ds, _ := g.Feed(peek("r1", "0"))
		if len(ds) != 1 || ds[0].Preview != (sealgate.Preview{Bytes: total, Value: p.Snapshot()}) {
			t.Fatalf("after %q: %v; want bytes=%d value=%s", f, ds, total, p.Snapshot())
		}
	}
}

func TestPolicies(t *testing.T) {
	send := sealgate.Tool{Name: "send", Schema: `{"type":"object","required":["to"]}`, Early: true}
	ks := func(to string) string { return argsKey("t1", "send", `{"to":"`+to+`"}`) }
	for _, s := range []scenario{
		{name: "per-call: early release at end, compensated on a bad close", cfg: testConfig(perCall, withTool(send)), evs: []sealgate.Event{
			op("r1", "t1"), bg("r1", "0", "a", "send"), bg("r1", "1", "b", "note"),
			dl("r1", "0", `{"to":"x"}`), dl("r1", "1", `{}`), en("r1", "0"), en("r1", "1"), cl("r1", failed),
			ack(ks("x"), false), ack(ks("x"), false),
		}, want: []string{
			"@6 release r1 item=0 call=a tool=send key=" + ks("x") + ` args={"to":"x"}`,
			"@8 compensate r1 item=0 key=" + ks("x"),
			"@8 reject r1 item=1 reason=turn-failed",
			"@10 anomaly - kind=unknown-ack key=" + ks("x"),
		}},
		{name: "per-call: compensate on poisoning and on supersede", cfg: testConfig(perCall, withTool(send)), evs: []sealgate.Event{
			op("r1", "t1"), bg("r1", "0", "a", "send"), dl("r1", "0", `{"to":"x"}`), en("r1", "0"), dl("r1", "0", "x"),
			op("r2", "t2"), bg("r2", "0", "a", "send"), dl("r2", "0", `{"to":"y"}`), en("r2", "0"), op("r3", "t2"),
		}, want: []string{
			"@4 release r1 item=0 call=a tool=send key=" + ks("x") + ` args={"to":"x"}`,
			"@5 anomaly r1 item=0 kind=after-end",
			"@5 compensate r1 item=0 key=" + ks("x"),
			"@9 release r2 item=0 call=a tool=send key=" + argsKey("t2", "send", `{"to":"y"}`) + ` args={"to":"y"}`,
			"@10 compensate r2 item=0 key=" + argsKey("t2", "send", `{"to":"y"}`),
		}},
		{name: "per-call: early checks at end, others at close, duplicates across", cfg: testConfig(perCall, withTool(send)), evs: []sealgate.Event{
			op("r1", "t1"),
			bg("r1", "0", "a", "send"), bg("r1", "1", "b", "send"), bg("r1", "2", "c", "send"), bg("r1", "3", "d", "note"),
			dl("r1", "0", `{"to":"x"}`), dl("r1", "1", `{"to":"\u0078"}`), dl("r1", "2", `{}`), dl("r1", "3", `{}`),
			en("r1", "3"), en("r1", "1"), en("r1", "0"), en("r1", "2"), bg("r1", "4", "e", "send"),
			cl("r1", complete),
		}, want: []string{
			"@11 release r1 item=1 call=b tool=send key=" + ks("x") + ` args={"to":"\u0078"}`,
			"@12 reject r1 item=0 reason=duplicate",
			"@13 reject r1 item=2 reason=schema",
			"@15 release r1 item=3 call=d tool=note key=" + argsKey("t1", "note", "{}") + " args={}",
			"@15 reject r1 item=4 reason=incomplete",
		}},
		{name: "atomic: all good releases all", cfg: testConfig(atomic), evs: []sealgate.Event{
			op("r1", "t1"), bg("r1", "0", "a", "note"), bg("r1", "1", "b", "note"),
			dl("r1", "1", `{"n":2}`), dl("r1", "0", `{"n":1}`), en("r1", "0"), en("r1", "1"), cl("r1", complete),
		}, want: []string{
			"@8 release r1 item=0 call=a tool=note key=" + argsKey("t1", "note", `{"n":1}`) + ` args={"n":1}`,
			"@8 release r1 item=1 call=b tool=note key=" + argsKey("t1", "note", `{"n":2}`) + ` args={"n":2}`,
		}},
		{name: "atomic: one failure aborts the rest", cfg: testConfig(atomic), evs: []sealgate.Event{
			op("r1", "t1"), bg("r1", "0", "a", "note"), bg("r1", "1", "b", "note"), bg("r1", "2", "c", "note"),
			dl("r1", "0", `{"n":1}`), dl("r1", "1", `{"n":"x"}`), dl("r1", "2", `{"n":1}`),
			en("r1", "0"), en("r1", "1"), en("r1", "2"), cl("r1", complete),
		}, want: []string{
			"@11 reject r1 item=0 reason=batch-aborted",
			"@11 reject r1 item=1 reason=schema",
			"@11 reject r1 item=2 reason=duplicate",
		}},
		{name: "atomic: too-large counts as failing", cfg: testConfig(atomic, withLimits(func(l *sealgate.Limits) { l.CallBytes = 8 })), evs: []sealgate.Event{
			op("r1", "t1"), bg("r1", "0", "a", "note"), bg("r1", "1", "b", "note"),
			dl("r1", "0", `{"n":1}`), dl("r1", "1", `{"n":1000}`), en("r1", "0"), en("r1", "1"), cl("r1", complete),
		}, want: []string{
			"@5 reject r1 item=1 reason=too-large",
			"@8 reject r1 item=0 reason=batch-aborted",
		}},
		{name: "atomic: a would-be reconcile counts as failing", cfg: testConfig(atomic),
			pre: map[string]LedgerState{argsKey("t1", "note", `{"n":2}`): Intent}, evs: []sealgate.Event{
				op("r1", "t1"), bg("r1", "0", "a", "note"), bg("r1", "1", "b", "note"),
				dl("r1", "0", `{"n":1}`), dl("r1", "1", `{"n":2}`), en("r1", "0"), en("r1", "1"), cl("r1", complete),
			}, want: []string{
				"@8 reject r1 item=0 reason=batch-aborted",
				"@8 reconcile r1 item=1 key=" + argsKey("t1", "note", `{"n":2}`),
			}},
		{name: "atomic: bad close is not a batch", cfg: testConfig(atomic), evs: []sealgate.Event{
			op("r1", "t1"), bg("r1", "0", "a", "note"), dl("r1", "0", `{"n":1}`), en("r1", "0"), cl("r1", truncated),
		}, want: []string{"@5 reject r1 item=0 reason=turn-truncated"}},
	} {
		g := runScenario(t, s)
		if g.Retained() != 0 {
			t.Errorf("%s: %d bytes retained after every call was decided", s.name, g.Retained())
		}
	}
}

func TestRetained(t *testing.T) {
	g, _ := New(testConfig(), NewMemoryLedger())
	steps := []struct {
		ev   sealgate.Event
		want int
	}{
		{op("r1", "t1"), 0},
		{bg("r1", "0", "a", "note"), 0},
		{bg("r1", "1", "b", "note"), 0},
		{dl("r1", "0", `{"n":`), 5},
		{dl("r1", "1", `{}`), 7},
		{dl("r1", "0", `1}`), 9},
		{en("r1", "0"), 9},
		{op("r2", "t2"), 9},
		{bg("r2", "0", "a", "note"), 9},
		{dl("r2", "0", `[1]`), 12},
		{cl("r1", complete), 3},
		{dl("r2", "0", `x`), 4},
		{rst(), 0},
	}
	for i, s := range steps {
		if _, err := g.Feed(s.ev); err != nil {
			t.Fatal(err)
		}
		if g.Retained() != s.want {
			t.Fatalf("step %d (%s): Retained() = %d, want %d", i+1, s.ev, g.Retained(), s.want)
		}
	}
}

// flakyLedger fails one method after a number of successful calls.
type flakyLedger struct {
	*MemoryLedger
	failOn string
}

var errLedger = errors.New("disk full")

func (l *flakyLedger) State(k string) (LedgerState, error) {
	if l.failOn == "State" {
		return Absent, errLedger
	}
	return l.MemoryLedger.State(k)
}
func (l *flakyLedger) Intent(k string) error {
	if l.failOn == "Intent" {
		return errLedger
	}
	return l.MemoryLedger.Intent(k)
}
func (l *flakyLedger) Done(k string) error {
	if l.failOn == "Done" {
		return errLedger
	}
	return l.MemoryLedger.Done(k)
}
func (l *flakyLedger) Clear(k string) error {
	if l.failOn == "Clear" {
		return errLedger
	}
	return l.MemoryLedger.Clear(k)
}

func TestLedgerFailureFailsClosed(t *testing.T) {
	k := argsKey("t1", "note", `{"n":1}`)
	for _, failOn := range []string{"State", "Intent", "Done", "Clear"} {
		l := &flakyLedger{MemoryLedger: NewMemoryLedger()}
		l.keys[k] = Intent
		g, err := New(testConfig(), l)
		if err != nil {
			t.Fatal(err)
		}
		l.failOn = failOn
		evs := []sealgate.Event{
			op("r1", "t1"), bg("r1", "0", "a", "note"), dl("r1", "0", `{"n":2}`), en("r1", "0"),
			bg("r1", "1", "b", "note"), dl("r1", "1", `{"n":3}`), en("r1", "1"),
		}
		feed(t, g, evs)
		var last sealgate.Event
		switch failOn {
		case "State", "Intent":
			last = cl("r1", complete)
		case "Done":
			last = ack(k, true)
		case "Clear":
			last = ack(k, false)
		}
		ds, err := g.Feed(last)
		if failOn == "Done" || failOn == "Clear" {
			// The ack's State succeeded; the write failed.
			if !errors.Is(err, errLedger) || ds != nil {
				t.Fatalf("%s: Feed = %v, %v; want the ledger error and no decisions", failOn, ds, err)
			}
		} else if !errors.Is(err, errLedger) || ds != nil {
			t.Fatalf("%s: Feed = %v, %v; want the ledger error and no decisions", failOn, ds, err)
		}
		if strings.Contains(err.Error(), `"n"`) {
			t.Errorf("%s: error quotes arguments: %v", failOn, err)
		}
		l.failOn = ""
		ds2, err2 := g.Feed(op("r9", "t9"))
		if ds2 != nil || err2 != err {
			t.Fatalf("%s: later Feed = %v, %v; want the same error", failOn, ds2, err2)
		}
		// Deltas too, both ways in, on an attempt that was live and on one
		// never opened: the same error, nothing decided, nothing counted.
		n := g.n
		for _, d := range []struct {
			how  string
			feed func() ([]sealgate.Decision, error)
		}{
			{"Feed(delta)", func() ([]sealgate.Decision, error) { return g.Feed(dl("r1", "0", `{`)) }},
			{"FeedDelta", func() ([]sealgate.Decision, error) { return g.FeedDelta("r1", "0", []byte(`{`)) }},
			{"FeedDelta, unknown attempt", func() ([]sealgate.Decision, error) { return g.FeedDelta("r7", "0", []byte(`{`)) }},
		} {
			if ds3, err3 := d.feed(); ds3 != nil || err3 != err {
				t.Fatalf("%s: later %s = %v, %v; want the same error", failOn, d.how, ds3, err3)
			}
		}
		if g.n != n {
			t.Errorf("%s: a closed gate counted %d more events", failOn, g.n-n)
		}
		if g.Retained() != 0 {
			t.Errorf("%s: %d bytes retained by a closed gate", failOn, g.Retained())
		}
	}
}

func TestBadEvents(t *testing.T) {
	g, _ := New(testConfig(), NewMemoryLedger())
	if _, err := g.Feed(sealgate.Event{Kind: 99}); err == nil {
		t.Error("unknown event kind accepted")
	}
	feed(t, g, []sealgate.Event{op("r1", "t1")})
	if _, err := g.Feed(sealgate.Event{Kind: sealgate.Close, Attempt: "r1"}); err == nil {
		t.Error("close with no status accepted")
	}
	// Neither changed anything, nor closed the gate; both counted.
	got := feed(t, g, []sealgate.Event{bg("r1", "0", "a", "note"), cl("r1", failed)})
	if len(got) != 1 || got[0] != "@5 reject r1 item=0 reason=turn-failed" {
		t.Errorf("after bad events: %v", got)
	}
}
