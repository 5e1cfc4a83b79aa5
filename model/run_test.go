package model

import (
	"strconv"
	"strings"
	"testing"

	"github.com/sealgate/sealgate"
)

// ev parses one event written as its scenario line (SPEC section 10); it
// is test scaffolding, not the scn package.
func ev(t *testing.T, line string) sealgate.Event {
	t.Helper()
	w := strings.Fields(line)
	val := func(i int, key string) string {
		if i >= len(w) || !strings.HasPrefix(w[i], key+"=") {
			t.Fatalf("event %q: want %s= at %d", line, key, i)
		}
		return strings.TrimPrefix(w[i], key+"=")
	}
	quoted := func(s string) []byte {
		u, err := strconv.Unquote(s)
		if err != nil {
			t.Fatalf("event %q: %v", line, err)
		}
		return []byte(u)
	}
	switch w[0] {
	case "open":
		return sealgate.OpenEvent(w[1], val(2, "turn"))
	case "begin":
		return sealgate.BeginEvent(w[1], val(2, "item"), val(3, "call"), val(4, "tool"))
	case "delta":
		_, rest, _ := strings.Cut(line, " item=")
		_, q, _ := strings.Cut(rest, " ")
		return sealgate.DeltaEvent(w[1], val(2, "item"), quoted(q))
	case "end":
		if _, f, ok := strings.Cut(line, " final="); ok {
			return sealgate.EndFinalEvent(w[1], val(2, "item"), quoted(f))
		}
		return sealgate.EndEvent(w[1], val(2, "item"))
	case "close":
		s, ok := sealgate.ParseStatus(val(2, "status"))
		if !ok {
			t.Fatalf("event %q: bad status", line)
		}
		return sealgate.CloseEvent(w[1], s)
	case "ack":
		return sealgate.AckEvent(w[1], w[2] == "ok")
	case "restart":
		return sealgate.RestartEvent()
	case "peek":
		return sealgate.PeekEvent(w[1], val(2, "item"))
	}
	t.Fatalf("event %q: unknown word", line)
	return sealgate.Event{}
}

func argsKey(turn, tool, canonical string) string {
	return sealgate.Key(sealgate.ArgsMaterial(turn, tool, []byte(canonical)))
}

const saveSchema = `{"type":"object","required":["path","content"],"properties":{"path":{"type":"string"},"content":{"type":"string"}},"additionalProperties":false}`

func saveCfg() sealgate.Config {
	c := sealgate.DefaultConfig()
	c.Tools = []sealgate.Tool{{Name: "save_file", Schema: saveSchema,
		Allow: &sealgate.Allow{Field: "path", Values: []string{"notes.md", "b c"}}}}
	return c
}

// run runs the model on events and compares its decision lines.
func run(t *testing.T, name string, cfg sealgate.Config, events string, want ...string) {
	t.Helper()
	var evs []sealgate.Event
	for _, l := range strings.Split(strings.TrimSpace(events), "\n") {
		if l = strings.TrimSpace(l); l != "" {
			evs = append(evs, ev(t, l))
		}
	}
	var got []string
	for _, d := range Run(cfg, evs) {
		got = append(got, d.String())
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("%s:\ngot:\n  %s\nwant:\n  %s", name, strings.Join(got, "\n  "), strings.Join(want, "\n  "))
	}
}

func TestRunSeed(t *testing.T) {
	run(t, "seed", saveCfg(), `
		open r1 turn=t1
		begin r1 item=0 call=call_1 tool=save_file
		delta r1 item=0 "{\"path\":\"notes.md\",\"content\":\"Topic confirmed."
		close r1 status=disconnected`,
		"@4 reject r1 item=0 reason=turn-disconnected")
}

func TestRunRelease(t *testing.T) {
	k := argsKey("t1", "save_file", `{"content":"a\u001fb","path":"notes.md"}`)
	run(t, "release compacted, escapes kept", saveCfg(), `
		open r1 turn=t1
		begin r1 item=0 call=c1 tool=save_file
		delta r1 item=0 "{ \"path\" : \"notes\\u002emd\",\n"
		delta r1 item=0 "\"content\":\"a\\u001F"
		delta r1 item=0 ""
		delta r1 item=0 "b\" }"
		end r1 item=0 final="{ \"path\" : \"notes\\u002emd\",\n\"content\":\"a\\u001Fb\" }"
		close r1 status=complete`,
		`@8 release r1 item=0 call=c1 tool=save_file key=`+k+` args={"path":"notes\u002emd","content":"a\u001Fb"}`)
}

func TestRunSealReasons(t *testing.T) {
	open := "open r1 turn=t1\nbegin r1 item=0 call=c1 tool=save_file\n"
	one := func(name string, cfg sealgate.Config, args, reason string) {
		t.Helper()
		run(t, name, cfg, open+"delta r1 item=0 "+strconv.Quote(args)+"\nend r1 item=0\nclose r1 status=complete",
			"@5 reject r1 item=0 reason="+reason)
	}
	one("malformed", saveCfg(), `{"path":"notes.md","content":"x",}`, "malformed-json")
	one("lone surrogate", saveCfg(), `{"path":"notes.md","content":"\ud800"}`, "malformed-json")
	one("duplicate name", saveCfg(), `{"path":"notes.md","content":"x","p\u0061th":"b c"}`, "malformed-json")
	one("overflow", saveCfg(), `{"path":"notes.md","content":"x","n":1e400}`, "malformed-json")
	shallow := saveCfg()
	shallow.Limits.Depth = 1
	one("too deep", shallow, `{"path":"notes.md","content":{}}`, "too-deep")
	one("malformed before too deep", shallow, `{"path":"notes.md" "content":{}}`, "malformed-json")
	one("too deep before malformed", shallow, `{"content":[1,,],"path":"notes.md"}`, "too-deep")
	one("not an object", saveCfg(), `["notes.md"]`, "not-object")
	one("not an object either", saveCfg(), ` "x" `, "not-object")
	one("schema", saveCfg(), `{"path":"notes.md","content":1}`, "schema")
	one("schema extra", saveCfg(), `{"path":"notes.md","content":"x","more":1}`, "schema")
	one("unauthorized", saveCfg(), `{"path":"/etc/passwd","content":"x"}`, "unauthorized")
	noSchema := saveCfg()
	noSchema.Tools[0].Schema = `{}`
	one("unauthorized missing", noSchema, `{"content":"x"}`, "unauthorized")
	one("unauthorized not a string", noSchema, `{"path":["notes.md"],"content":"x"}`, "unauthorized")
	one("unauthorized nested", noSchema, `{"x":{"path":"notes.md"}}`, "unauthorized")
	run(t, "incomplete", saveCfg(), open+"delta r1 item=0 \"{}\"\nclose r1 status=complete",
		"@4 reject r1 item=0 reason=incomplete")
	run(t, "unknown tool", saveCfg(), `
		open r1 turn=t1
		begin r1 item=0 call=c1 tool=nope
		delta r1 item=0 "{}"
		end r1 item=0
		close r1 status=complete`,
		"@5 reject r1 item=0 reason=schema")
	// exact decimals: 0.30000000000000001 is above 0.3 though it is the same double
	num := sealgate.DefaultConfig()
	num.Tools = []sealgate.Tool{{Name: "t", Schema: `{"properties":{"x":{"maximum":0.3}}}`}}
	run(t, "decimal maximum", num, `
		open r1 turn=t1
		begin r1 item=0 call=c1 tool=t
		delta r1 item=0 "{\"x\":0.30000000000000001}"
		end r1 item=0
		begin r1 item=1 call=c2 tool=t
		delta r1 item=1 "{\"x\":0.30}"
		end r1 item=1
		close r1 status=complete`,
		"@8 reject r1 item=0 reason=schema",
		"@8 release r1 item=1 call=c2 tool=t key="+argsKey("t1", "t", `{"x":0.3}`)+` args={"x":0.30}`)
}

func TestRunDuplicateAndLedger(t *testing.T) {
	k := argsKey("t1", "save_file", `{"content":"a","path":"notes.md"}`)
	rel := func(at, att, item, call, args string) string {
		return "@" + at + " release " + att + " item=" + item + " call=" + call + " tool=save_file key=" + k + " args=" + args
	}
	two := `
		open r1 turn=t1
		begin r1 item=0 call=c1 tool=save_file
		delta r1 item=0 "{\"path\":\"notes.md\",\"content\":\"a\"}"
		end r1 item=0
		begin r1 item=1 call=c2 tool=save_file
		delta r1 item=1 "{\"content\":\"\\u0061\",\"path\":\"notes.md\"}"
		end r1 item=1
		close r1 status=complete`
	run(t, "duplicate in one attempt", saveCfg(), two,
		rel("8", "r1", "0", "c1", `{"path":"notes.md","content":"a"}`),
		"@8 reject r1 item=1 reason=duplicate")
	run(t, "duplicate across attempts, ack ok keeps it", saveCfg(), two+`
		ack `+k+` ok
		open r2 turn=t1
		begin r2 item=0 call=c3 tool=save_file
		delta r2 item=0 "{\"path\":\"notes.md\",\"content\":\"a\"}"
		end r2 item=0
		close r2 status=complete`,
		rel("8", "r1", "0", "c1", `{"path":"notes.md","content":"a"}`),
		"@8 reject r1 item=1 reason=duplicate",
		"@14 reject r2 item=0 reason=duplicate")
	run(t, "the same call in a later turn is a new action", saveCfg(), two+`
		ack `+k+` ok
		open r2 turn=t2
		begin r2 item=0 call=c3 tool=save_file
		delta r2 item=0 "{\"path\":\"notes.md\",\"content\":\"a\"}"
		end r2 item=0
		close r2 status=complete`,
		rel("8", "r1", "0", "c1", `{"path":"notes.md","content":"a"}`),
		"@8 reject r1 item=1 reason=duplicate",
		"@14 release r2 item=0 call=c3 tool=save_file key="+argsKey("t2", "save_file", `{"content":"a","path":"notes.md"}`)+` args={"path":"notes.md","content":"a"}`)
	again := `
		open r2 turn=t1
		begin r2 item=0 call=c3 tool=save_file
		delta r2 item=0 "{\"path\":\"notes.md\",\"content\":\"a\"}"
		end r2 item=0
		begin r2 item=1 call=c4 tool=save_file
		delta r2 item=1 "{\"path\":\"notes.md\",\"content\":\"a\"}"
		end r2 item=1
		close r2 status=complete`
	run(t, "restart: intent reconciles, twice", saveCfg(), two+"\nrestart"+again,
		rel("8", "r1", "0", "c1", `{"path":"notes.md","content":"a"}`),
		"@8 reject r1 item=1 reason=duplicate",
		"@17 reconcile r2 item=0 key="+k,
		"@17 reconcile r2 item=1 key="+k)
	run(t, "restart: done is duplicate-effect", saveCfg(), two+"\nack "+k+" ok\nrestart"+again,
		rel("8", "r1", "0", "c1", `{"path":"notes.md","content":"a"}`),
		"@8 reject r1 item=1 reason=duplicate",
		"@18 reject r2 item=0 reason=duplicate-effect",
		"@18 reject r2 item=1 reason=duplicate-effect")
	run(t, "ack fail clears the key", saveCfg(), two+"\nack "+k+" fail"+again,
		rel("8", "r1", "0", "c1", `{"path":"notes.md","content":"a"}`),
		"@8 reject r1 item=1 reason=duplicate",
		rel("17", "r2", "0", "c3", `{"path":"notes.md","content":"a"}`),
		"@17 reject r2 item=1 reason=duplicate")
	run(t, "ack fail after restart clears the ledger", saveCfg(), two+"\nrestart\nack "+k+" fail"+again,
		rel("8", "r1", "0", "c1", `{"path":"notes.md","content":"a"}`),
		"@8 reject r1 item=1 reason=duplicate",
		rel("18", "r2", "0", "c3", `{"path":"notes.md","content":"a"}`),
		"@18 reject r2 item=1 reason=duplicate")
	run(t, "unknown ack: absent, then done", saveCfg(), two+"\nack 0123456789abcdef ok\nack "+k+" ok\nack "+k+" ok\nack "+k+" fail",
		rel("8", "r1", "0", "c1", `{"path":"notes.md","content":"a"}`),
		"@8 reject r1 item=1 reason=duplicate",
		"@9 anomaly - kind=unknown-ack key=0123456789abcdef",
		"@11 anomaly - kind=unknown-ack key="+k,
		"@12 anomaly - kind=unknown-ack key="+k)
	// digits beyond float64 precision collapse in the key, not in the release
	n := sealgate.DefaultConfig()
	n.Tools = []sealgate.Tool{{Name: "n", Schema: `{}`}}
	kn := argsKey("t1", "n", `{"x":9007199254740992}`)
	run(t, "precision collapse", n, `
		open r1 turn=t1
		begin r1 item=0 call=c1 tool=n
		delta r1 item=0 "{\"x\":9007199254740993}"
		end r1 item=0
		begin r1 item=1 call=c2 tool=n
		delta r1 item=1 "{\"x\":9007199254740992.0}"
		end r1 item=1
		close r1 status=complete`,
		"@8 release r1 item=0 call=c1 tool=n key="+kn+` args={"x":9007199254740993}`,
		"@8 reject r1 item=1 reason=duplicate")
}

func TestRunIdemModes(t *testing.T) {
	cfg := sealgate.DefaultConfig()
	cfg.Tools = []sealgate.Tool{
		{Name: "c", Schema: `{}`, Idem: sealgate.Idem{Mode: sealgate.IdemCall}},
		{Name: "f", Schema: `{}`, Idem: sealgate.Idem{Mode: sealgate.IdemFields, Fields: []string{"id", "v"}}},
	}
	kc := sealgate.Key(sealgate.CallMaterial("t1", "x"))
	kf := sealgate.Key(sealgate.FieldsMaterial("f", [][]byte{[]byte(`{"a":1,"b":"é"}`), []byte("null")}))
	run(t, "call and fields", cfg, `
		open r1 turn=t1
		begin r1 item=0 call=x tool=c
		delta r1 item=0 "{\"a\":1}"
		end r1 item=0
		begin r1 item=1 call=y tool=f
		delta r1 item=1 "{\"id\":{\"b\":\"\\u00e9\",\"a\":1.0},\"w\":1}"
		end r1 item=1
		begin r1 item=2 call=z tool=f
		delta r1 item=2 "{\"v\":null,\"id\":{\"a\":1,\"b\":\"é\"},\"w\":2}"
		end r1 item=2
		close r1 status=complete
		open r2 turn=t1
		begin r2 item=0 call=x tool=c
		delta r2 item=0 "{\"a\":2}"
		end r2 item=0
		close r2 status=complete`,
		"@11 release r1 item=0 call=x tool=c key="+kc+` args={"a":1}`,
		"@11 release r1 item=1 call=y tool=f key="+kf+` args={"id":{"b":"\u00e9","a":1.0},"w":1}`,
		"@11 reject r1 item=2 reason=duplicate",
		"@16 reject r2 item=0 reason=duplicate")
}

func TestRunEndingBadly(t *testing.T) {
	body := `
		open r1 turn=t1
		begin r1 item=0 call=c1 tool=save_file
		delta r1 item=0 "{\"path\":\"notes.md\",\"content\":\"a\"}"
		end r1 item=0
		begin r1 item=1 call=c2 tool=save_file
		`
	for _, s := range []string{"truncated", "failed", "cancelled", "disconnected"} {
		run(t, s, saveCfg(), body+"close r1 status="+s,
			"@6 reject r1 item=0 reason=turn-"+s,
			"@6 reject r1 item=1 reason=turn-"+s)
	}
	run(t, "superseded", saveCfg(), body+"open r2 turn=t1\nbegin r1 item=2 call=c3 tool=save_file\nclose r1 status=complete",
		"@6 reject r1 item=0 reason=superseded",
		"@6 reject r1 item=1 reason=superseded",
		"@7 anomaly r1 item=2 kind=after-close",
		"@8 anomaly r1 kind=after-close")
	run(t, "other turn not superseded", saveCfg(), body+"open r2 turn=t2\nclose r1 status=cancelled",
		"@7 reject r1 item=0 reason=turn-cancelled",
		"@7 reject r1 item=1 reason=turn-cancelled")
	run(t, "poisoned: dropped, first close silent, then after-close", saveCfg(), body+`
		delta r1 item=9 "x"
		delta r1 item=0 "x"
		begin r1 item=5 call=c5 tool=save_file
		close r1 status=complete
		close r1 status=complete
		open r2 turn=t1`,
		"@6 anomaly r1 item=9 kind=unknown-call",
		"@6 reject r1 item=0 reason=turn-anomaly",
		"@6 reject r1 item=1 reason=turn-anomaly",
		"@10 anomaly r1 kind=after-close")
	run(t, "dead attempt is not superseded", saveCfg(), body+`
		delta r1 item=9 "x"
		open r2 turn=t1
		begin r2 item=0 call=c1 tool=save_file
		close r1 status=failed
		close r1 status=failed`,
		"@6 anomaly r1 item=9 kind=unknown-call",
		"@6 reject r1 item=0 reason=turn-anomaly",
		"@6 reject r1 item=1 reason=turn-anomaly",
		"@10 anomaly r1 kind=after-close")
	run(t, "restart forgets live attempts", saveCfg(), body+`
		restart
		delta r1 item=1 "{}"
		open r1 turn=t1
		begin r1 item=0 call=c1 tool=save_file
		close r1 status=failed`,
		"@7 anomaly r1 item=1 kind=no-open",
		"@10 reject r1 item=0 reason=turn-failed")
}

func TestRunAnomalies(t *testing.T) {
	start := `
		open r1 turn=t1
		begin r1 item=0 call=c1 tool=save_file
		delta r1 item=0 "{}"
		`
	poisoned := []string{"@4 reject r1 item=0 reason=turn-anomaly"}
	cases := []struct {
		name, events, anomaly string
		poisons               bool
	}{
		{"no-open begin", `begin r9 item=0 call=c tool=save_file`, "@4 anomaly r9 item=0 kind=no-open", false},
		{"no-open close", `close r9 status=complete`, "@4 anomaly r9 kind=no-open", false},
		{"no-open end", `end r9 item=3 final="x"`, "@4 anomaly r9 item=3 kind=no-open", false},
		{"reopen live", `open r1 turn=t2`, "@4 anomaly r1 kind=reopen", true},
		{"unknown-call delta", `delta r1 item=1 "x"`, "@4 anomaly r1 item=1 kind=unknown-call", true},
		{"unknown-call empty delta", `delta r1 item=1 ""`, "@4 anomaly r1 item=1 kind=unknown-call", true},
		{"unknown-call end", `end r1 item=1`, "@4 anomaly r1 item=1 kind=unknown-call", true},
		{"duplicate-begin", `begin r1 item=0 call=c9 tool=save_file`, "@4 anomaly r1 item=0 kind=duplicate-begin", true},
		{"duplicate-begin before identity", `begin r1 item=0 call=c1 tool=x`, "@4 anomaly r1 item=0 kind=duplicate-begin", true},
		{"identity-conflict", `begin r1 item=1 call=c1 tool=save_file`, "@4 anomaly r1 item=1 kind=identity-conflict", true},
		{"final-mismatch", `end r1 item=0 final="{ }"`, "@4 anomaly r1 item=0 kind=final-mismatch", true},
		{"unknown-ack", `ack ffffffffffffffff fail`, "@4 anomaly - kind=unknown-ack key=ffffffffffffffff", false},
	}
	for _, c := range cases {
		want := []string{c.anomaly}
		if c.poisons {
			want = append(want, poisoned...)
		}
		run(t, c.name, saveCfg(), start+c.events, want...)
	}
	run(t, "after-end", saveCfg(), start+"end r1 item=0\ndelta r1 item=0 \"\"",
		"@5 anomaly r1 item=0 kind=after-end", "@5 reject r1 item=0 reason=turn-anomaly")
	run(t, "after-end on end", saveCfg(), start+"end r1 item=0\nend r1 item=0",
		"@5 anomaly r1 item=0 kind=after-end", "@5 reject r1 item=0 reason=turn-anomaly")
	run(t, "after-close", saveCfg(), start+"close r1 status=cancelled\ndelta r1 item=0 \"x\"\nopen r1 turn=t1",
		"@4 reject r1 item=0 reason=turn-cancelled",
		"@5 anomaly r1 item=0 kind=after-close",
		"@6 anomaly r1 kind=reopen")
	few := saveCfg()
	few.Limits.Calls = 1
	run(t, "too-many-calls", few, start+"begin r1 item=1 call=c2 tool=save_file",
		"@4 anomaly r1 item=1 kind=too-many-calls", "@4 reject r1 item=0 reason=turn-anomaly")
	small := saveCfg()
	small.Limits.TurnBytes = 5
	run(t, "turn-too-large", small, start+"begin r1 item=1 call=c2 tool=save_file\ndelta r1 item=1 \"123\"\ndelta r1 item=1 \"4\"",
		"@6 anomaly r1 item=1 kind=turn-too-large",
		"@6 reject r1 item=0 reason=turn-anomaly",
		"@6 reject r1 item=1 reason=turn-anomaly")
	run(t, "turn-bytes exactly reached is fine", small, start+"begin r1 item=1 call=c2 tool=save_file\ndelta r1 item=1 \"123\"\nclose r1 status=failed",
		"@6 reject r1 item=0 reason=turn-failed",
		"@6 reject r1 item=1 reason=turn-failed")
	run(t, "reopen of a dead attempt only reports", saveCfg(), start+"delta r1 item=7 \"\"\nopen r1 turn=t1\nclose r1 status=complete\nopen r1 turn=t1",
		"@4 anomaly r1 item=7 kind=unknown-call",
		"@4 reject r1 item=0 reason=turn-anomaly",
		"@5 anomaly r1 kind=reopen",
		"@7 anomaly r1 kind=reopen")
}

func TestRunTooLarge(t *testing.T) {
	cfg := saveCfg()
	cfg.Limits.CallBytes = 40
	run(t, "too-large", cfg, `
		open r1 turn=t1
		begin r1 item=0 call=c1 tool=save_file
		delta r1 item=0 "{\"path\":\"notes.md\",\"content\":\"aaaaa"
		delta r1 item=0 "aaaaaa\"}"
		delta r1 item=0 "more"
		peek r1 item=0
		end r1 item=0 final="nothing like it"
		delta r1 item=0 "x"
		end r1 item=0`,
		"@4 reject r1 item=0 reason=too-large",
		"@6 preview r1 item=0 bytes=0 value=-",
		"@9 anomaly r1 item=0 kind=after-end")
	cfg.Limits.TurnBytes = 40
	run(t, "too-large bytes are not counted in the turn", cfg, `
		open r1 turn=t1
		begin r1 item=0 call=c1 tool=save_file
		delta r1 item=0 "{\"path\":\"notes.md\",\"content\":\"aaaaa"
		delta r1 item=0 "aaaaaa\"}"
		begin r1 item=1 call=c2 tool=save_file
		delta r1 item=1 "{}"
		end r1 item=1
		close r1 status=complete`,
		"@4 reject r1 item=0 reason=too-large",
		"@8 reject r1 item=1 reason=schema")
	run(t, "call-bytes exactly reached is fine", cfg, `
		open r1 turn=t1
		begin r1 item=0 call=c1 tool=save_file
		delta r1 item=0 "{\"path\":\"notes.md\",\"content\":\"aaaaa"
		delta r1 item=0 "aaa\"}"
		end r1 item=0
		close r1 status=complete`,
		"@6 release r1 item=0 call=c1 tool=save_file key="+argsKey("t1", "save_file", `{"content":"aaaaaaaa","path":"notes.md"}`)+
			` args={"path":"notes.md","content":"aaaaaaaa"}`)
}

func TestRunAtomic(t *testing.T) {
	cfg := saveCfg()
	cfg.Batch = sealgate.Atomic
	ka := argsKey("t1", "save_file", `{"content":"a","path":"notes.md"}`)
	kb := argsKey("t1", "save_file", `{"content":"b","path":"notes.md"}`)
	body := `
		open r1 turn=t1
		begin r1 item=0 call=c1 tool=save_file
		delta r1 item=0 "{\"path\":\"notes.md\",\"content\":\"a\"}"
		end r1 item=0
		begin r1 item=1 call=c2 tool=save_file
		delta r1 item=1 "{\"path\":\"notes.md\",\"content\":\"b\"}"
		end r1 item=1
		`
	run(t, "all pass", cfg, body+"close r1 status=complete",
		"@8 release r1 item=0 call=c1 tool=save_file key="+ka+` args={"path":"notes.md","content":"a"}`,
		"@8 release r1 item=1 call=c2 tool=save_file key="+kb+` args={"path":"notes.md","content":"b"}`)
	run(t, "one fails", cfg, body+"begin r1 item=2 call=c3 tool=save_file\nclose r1 status=complete",
		"@9 reject r1 item=0 reason=batch-aborted",
		"@9 reject r1 item=1 reason=batch-aborted",
		"@9 reject r1 item=2 reason=incomplete")
	run(t, "duplicate within the batch fails it, and nothing is recorded", cfg, body+`
		begin r1 item=2 call=c3 tool=save_file
		delta r1 item=2 "{\"path\":\"notes.md\",\"content\":\"a\"}"
		end r1 item=2
		close r1 status=complete
		ack `+ka+` ok`,
		"@11 reject r1 item=0 reason=batch-aborted",
		"@11 reject r1 item=1 reason=batch-aborted",
		"@11 reject r1 item=2 reason=duplicate",
		"@12 anomaly - kind=unknown-ack key="+ka)
	small := cfg
	small.Limits.CallBytes = 35
	run(t, "too-large counts as failing, gets no second decision", small, body+`
		begin r1 item=2 call=c3 tool=save_file
		delta r1 item=2 "{\"path\":\"notes.md\",\"content\":\"aaaaaaaaaaaaaaaaaa\"}"
		end r1 item=2
		close r1 status=complete`,
		"@9 reject r1 item=2 reason=too-large",
		"@11 reject r1 item=0 reason=batch-aborted",
		"@11 reject r1 item=1 reason=batch-aborted")
	run(t, "reconcile counts as failing", cfg, `
		open r0 turn=t1
		begin r0 item=0 call=c0 tool=save_file
		delta r0 item=0 "{\"path\":\"notes.md\",\"content\":\"a\"}"
		end r0 item=0
		close r0 status=complete
		restart`+body+"close r1 status=complete",
		"@5 release r0 item=0 call=c0 tool=save_file key="+ka+` args={"path":"notes.md","content":"a"}`,
		"@14 reconcile r1 item=0 key="+ka,
		"@14 reject r1 item=1 reason=batch-aborted")
}

func TestRunPerCall(t *testing.T) {
	cfg := saveCfg()
	cfg.Release = sealgate.PerCall
	cfg.Tools[0].Early = true
	cfg.Tools = append(cfg.Tools, sealgate.Tool{Name: "late", Schema: `{}`})
	ka := argsKey("t1", "save_file", `{"content":"a","path":"notes.md"}`)
	kl := argsKey("t1", "late", `{}`)
	body := `
		open r1 turn=t1
		begin r1 item=0 call=c1 tool=save_file
		begin r1 item=1 call=c2 tool=late
		delta r1 item=1 "{}"
		end r1 item=1
		delta r1 item=0 "{\"path\":\"notes.md\",\"content\":\"a\"}"
		peek r1 item=0
		end r1 item=0
		peek r1 item=0
		begin r1 item=2 call=c3 tool=save_file
		delta r1 item=2 "[]"
		end r1 item=2
		`
	early := []string{
		`@7 preview r1 item=0 bytes=33 value={"path":"notes.md","content":"a"}`,
		"@8 release r1 item=0 call=c1 tool=save_file key=" + ka + ` args={"path":"notes.md","content":"a"}`,
		"@9 preview r1 item=0 bytes=0 value=-",
		"@12 reject r1 item=2 reason=not-object",
	}
	run(t, "complete", cfg, body+"close r1 status=complete",
		append(early, "@13 release r1 item=1 call=c2 tool=late key="+kl+" args={}")...)
	run(t, "disconnected: compensate", cfg, body+"close r1 status=disconnected\nack "+ka+" fail",
		append(early, "@13 compensate r1 item=0 key="+ka, "@13 reject r1 item=1 reason=turn-disconnected")...)
	run(t, "poisoned: compensate", cfg, body+"delta r1 item=0 \"x\"",
		append(early, "@13 anomaly r1 item=0 kind=after-end", "@13 compensate r1 item=0 key="+ka, "@13 reject r1 item=1 reason=turn-anomaly")...)
	run(t, "superseded: compensate", cfg, body+"open r2 turn=t1",
		append(early, "@13 compensate r1 item=0 key="+ka, "@13 reject r1 item=1 reason=superseded")...)
}

func TestRunPeek(t *testing.T) {
	cfg := saveCfg()
	cfg.Tools[0].Secrets = []string{"content"}
	cfg.Limits.PreviewBytes = 12
	run(t, "peek", cfg, `
		peek r1 item=0
		open r1 turn=t1
		peek r1 item=0
		begin r1 item=0 call=c1 tool=save_file
		peek r1 item=0
		delta r1 item=0 "{\"path\":\"notes.md\",\"content\":\"secret"
		peek r1 item=0
		end r1 item=0
		peek r1 item=0
		delta r1 item=5 "x"
		peek r1 item=0
		peek r9 item=0`,
		"@1 preview r1 item=0 bytes=0 value=-",
		"@3 preview r1 item=0 bytes=0 value=-",
		"@5 preview r1 item=0 bytes=0 value=-",
		`@7 preview r1 item=0 bytes=36 value={"path":"not"}`,
		`@9 preview r1 item=0 bytes=36 value={"path":"not"}`,
		"@10 anomaly r1 item=5 kind=unknown-call",
		"@10 reject r1 item=0 reason=turn-anomaly",
		"@11 preview r1 item=0 bytes=0 value=-",
		"@12 preview r9 item=0 bytes=0 value=-")
	cfg.Limits.PreviewBytes = 100
	run(t, "secret", cfg, `
		open r1 turn=t1
		begin r1 item=0 call=c1 tool=save_file
		delta r1 item=0 "{\"path\":\"notes.md\",\"content\":\"sec"
		peek r1 item=0`,
		`@4 preview r1 item=0 bytes=33 value={"path":"notes.md","content":"[redacted]"}`)
}

func TestRunRefused(t *testing.T) {
	bad := map[string]func(c *sealgate.Config){
		"early without per-call": func(c *sealgate.Config) { c.Tools[0].Early = true },
		"atomic per-call":        func(c *sealgate.Config) { c.Release, c.Batch = sealgate.PerCall, sealgate.Atomic },
		"zero limit":             func(c *sealgate.Config) { c.Limits.Depth = 0 },
		"schema not JSON":        func(c *sealgate.Config) { c.Tools[0].Schema = `{"type":"object",}` },
		"schema duplicate name":  func(c *sealgate.Config) { c.Tools[0].Schema = `{"type":"object","type":"string"}` },
		"schema noncharacter":    func(c *sealgate.Config) { c.Tools[0].Schema = `{"title":"\uFFFF"}` },
		"schema empty":           func(c *sealgate.Config) { c.Tools[0].Schema = `` },
		"schema other draft": func(c *sealgate.Config) {
			c.Tools[0].Schema = `{"$schema":"http://json-schema.org/draft-07/schema#"}`
		},
		"schema $schema with fragment": func(c *sealgate.Config) {
			c.Tools[0].Schema = `{"$schema":"https://json-schema.org/draft/2020-12/schema#"}`
		},
		"schema does not compile": func(c *sealgate.Config) { c.Tools[0].Schema = `{"type":"thing"}` },
		"schema bad pattern":      func(c *sealgate.Config) { c.Tools[0].Schema = `{"pattern":"(?=x)"}` },
		"schema external ref":     func(c *sealgate.Config) { c.Tools[0].Schema = `{"$ref":"other.json"}` },
		"schema dangling ref":     func(c *sealgate.Config) { c.Tools[0].Schema = `{"$ref":"#/$defs/none"}` },
		"bad secret pointer":      func(c *sealgate.Config) { c.Tools[0].Secrets = []string{"/a~2"} },
	}
	for name, f := range bad {
		cfg := saveCfg()
		f(&cfg)
		got := Run(cfg, []sealgate.Event{sealgate.OpenEvent("r1", "t1")})
		if len(got) != 1 || got[0].Kind != sealgate.Refused || got[0].At != 0 || got[0].Text == "" {
			t.Errorf("%s: got %v", name, got)
		}
	}
	good := map[string]string{
		"2020-12 $schema": `{"$schema":"https://json-schema.org/draft/2020-12/schema","type":"object"}`,
		"internal ref":    `{"$ref":"#/$defs/a","$defs":{"a":{"type":"object"}}}`,
		"format":          `{"properties":{"path":{"format":"email"}}}`,
		"true":            `true`,
	}
	for name, schema := range good {
		cfg := saveCfg()
		cfg.Tools[0].Schema = schema
		got := Run(cfg, []sealgate.Event{ev(t, "open r1 turn=t1"), ev(t, "begin r1 item=0 call=c tool=save_file"),
			ev(t, `delta r1 item=0 "{\"path\":\"notes.md\"}"`), ev(t, "end r1 item=0"), ev(t, "close r1 status=complete")})
		if len(got) != 1 || got[0].Kind != sealgate.Release {
			t.Errorf("%s: got %v", name, got)
		}
	}
}

// A number the validator's big.Rat cannot hold fails the schema instead of
// crashing the model (see model.md).
func TestRunHugeExponent(t *testing.T) {
	cfg := sealgate.DefaultConfig()
	cfg.Tools = []sealgate.Tool{{Name: "n", Schema: `{"properties":{"x":{"minimum":0}}}`}}
	run(t, "huge exponent", cfg, `
		open r1 turn=t1
		begin r1 item=0 call=c1 tool=n
		delta r1 item=0 "{\"x\":1e-1000001}"
		end r1 item=0
		begin r1 item=1 call=c2 tool=n
		delta r1 item=1 "{\"x\":0.0e-9999999}"
		end r1 item=1
		close r1 status=complete`,
		"@8 release r1 item=0 call=c1 tool=n key="+argsKey("t1", "n", `{"x":0}`)+` args={"x":1e-1000001}`,
		"@8 reject r1 item=1 reason=duplicate")
}
