package coverage_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/sealgate/sealgate"
	"github.com/sealgate/sealgate/internal/coverage"
	"github.com/sealgate/sealgate/model"
	"github.com/sealgate/sealgate/scn"
)

// extract parses a scenario (configuration and event lines, no expected
// part), runs the model on it and returns the features it reached.
func extract(t *testing.T, src string) coverage.Set {
	t.Helper()
	s, err := scn.Parse("case.scn", []byte(strings.TrimLeft(src, "\n")+"----\n"))
	if err != nil {
		t.Fatal(err)
	}
	cfg, err := s.Config()
	if err != nil {
		t.Fatal(err)
	}
	ds := model.Run(cfg, s.Events)
	if coverage.Refused(ds) {
		t.Fatalf("configuration refused: %s", ds[0].Text)
	}
	return coverage.Extract(cfg, s.Events, ds)
}

// key is the idempotency key of an idem-args tool with the empty-object
// schema, for ack lines.
func key(t *testing.T, tool, turn, args string) string {
	t.Helper()
	k, err := model.IdemKey(sealgate.Tool{Name: tool, Schema: `{}`}, turn, "", []byte(args))
	if err != nil {
		t.Fatal(err)
	}
	return k
}

type featureCase struct {
	name      string
	src       string
	want, not []string
}

// cases are hand-written scenarios, each with features it must reach and
// near misses it must not (a reversed pair is not a pair, three exponent
// digits are not many).
func cases(t *testing.T) []featureCase {
	kA := key(t, "t", "t1", `{"a":1}`)
	kB := key(t, "t", "t1", `{"b":2}`)
	return []featureCase{
		{name: "empty", src: `
tool t {}
`, want: []string{"policy:after-turn", "policy:independent", "config:idem-args"},
			not: []string{"event:open", "config:tools-several", "secret:name", "limit:calls-set"}},
		{name: "config", src: `
tool save_file {"type":"object","properties":{"path":{"type":"string","pattern":"^[a-z.]+$","enum":["notes.md","b.md"]},"n":{"type":"number","minimum":0},"c":{"const":1},"u":{"type":"array","uniqueItems":true},"r":{"$ref":"#/$defs/x"}},"$defs":{"x":{"type":"string"}}}
allow save_file path notes.md b.md
idem save_file fields:path,n
tool login {"type":"object"}
secret login /auth/key
secret login /auth/user
secret login /a~1b
tool calc {"type":"object"}
idem calc call
limit call-bytes=1000 turn-bytes=2000 calls=5 depth=10 preview-bytes=100
open r1 turn=t1
begin r1 item=0 call=c1 tool=save_file
delta r1 item=0 "{\"path\":\"notes.md\",\"n\":1}"
end r1 item=0
close r1 status=complete
`, want: []string{"config:schema-const", "config:schema-enum", "config:schema-pattern", "config:schema-bounds",
			"config:schema-unique-items", "config:schema-ref", "config:allow", "config:allow-several", "config:idem-fields",
			"config:idem-fields-several", "config:idem-call", "config:tools-several", "secret:pointer", "secret:nested-pointer",
			"secret:pointer-escape", "secret:two-paths-one-member", "limit:call-bytes-set", "limit:turn-bytes-set",
			"limit:calls-set", "limit:depth-set", "limit:preview-bytes-set", "decision:release", "event:open", "event:begin",
			"event:delta", "event:end", "event:close", "status:complete"},
			not: []string{"secret:name", "config:early", "keys:two-released", "value:whitespace"}},
		{name: "near misses of config", src: `
tool calc {"type":"object","properties":{"minimum":{"type":"number"},"const":{}}}
idem calc call
allow calc op add
tool login {"type":"object"}
idem login call
secret login token
secret login /auth/key
`, want: []string{"secret:name", "secret:pointer", "secret:nested-pointer", "config:allow"},
			not: []string{"config:schema-bounds", "config:schema-const", "config:idem-args", "secret:two-paths-one-member",
				"secret:pointer-escape", "config:allow-several"}},
		{name: "valid value shapes", src: `
tool t {}
open r1 turn=t1
begin r1 item=0 call=c1 tool=t
delta r1 item=0 "{\"a\":\"\\\"\\\\\\/\\b\\f\\n\\r\\t\",\"b\":\"\\u00e9\\u00E9\",\"c\":\"\\ud83d\\ude00\",\"d\":\"é😀\",\"n\":[1.5,-0,1e5,12345678901234567890,1e-400], \"t\":true,\"x\":{\"y\":{}}}"
end r1 item=0
close r1 status=complete
`, want: []string{"value:escape-short", "value:escape-solidus", "value:escape-u", "value:escape-u-uppercase",
			"value:surrogate-pair", "value:non-ascii", "value:four-byte-rune", "value:fraction", "value:negative-zero",
			"value:exponent", "value:long-mantissa", "value:inexact-integer", "value:underflow", "value:literal",
			"value:array", "value:nested", "value:whitespace", "decision:release"},
			not: []string{"value:surrogate-pair-reversed", "value:lone-surrogate", "value:long-exponent", "value:overflow",
				"value:duplicate-name", "value:duplicate-name-escaped", "value:escaped-name", "value:bad-escape",
				"value:noncharacter-bmp", "value:noncharacter-supplementary", "value:invalid-utf8", "value:empty-object",
				"reason:malformed-json"}},
		{name: "broken value shapes", src: `
tool t {}
open r1 turn=t1
begin r1 item=0 call=c1 tool=t
delta r1 item=0 "{\"s\":\"\\udc00\\ud800\",\"z\":\"\\uFDD0\",\"w\":\"\\udbff\\udfff\",\"q\":\"\\x\",\"e\":1e1000,\"k\":1,\"\\u006b\":2,\"k\":3,\"c\":\"\x01\xff\xed\xa0\x80\"}"
end r1 item=0
begin r1 item=1 call=c2 tool=t
delta r1 item=1 "\xef\xbb\xbf{}"
end r1 item=1
begin r1 item=2 call=c3 tool=t
delta r1 item=2 "{}"
end r1 item=2
close r1 status=complete
`, want: []string{"value:surrogate-pair-reversed", "value:lone-surrogate", "value:noncharacter-bmp",
			"value:noncharacter-supplementary", "value:bad-escape", "value:long-exponent", "value:overflow",
			"value:duplicate-name", "value:duplicate-name-escaped", "value:escaped-name", "value:control-char",
			"value:invalid-utf8", "value:surrogate-utf8", "value:bom", "value:empty-object", "reason:malformed-json"},
			not: []string{"value:whitespace", "value:nested", "value:array"}},
		{name: "stream shapes", src: `
tool t {}
open r1 turn=t1
begin r1 item=0 call=c1 tool=t
begin r1 item=1 call=c2 tool=t
delta r1 item=0 "{\"a\":\"\xe4"
delta r1 item=1 "{\"b\":\"\\"
delta r1 item=0 "\xbd\xa0\"}"
delta r1 item=1 "u00e9\"}"
delta r1 item=0 ""
peek r1 item=1
end r1 item=0 final="{\"a\":\"你\"}"
end r1 item=1
begin r1 item=2 call=c3 tool=nope
end r1 item=2
peek r1 item=9
close r1 status=complete
`, want: []string{"stream:split-rune", "stream:split-escape", "stream:interleaved", "stream:delta-empty",
			"stream:end-final", "stream:end-final-match", "stream:unknown-tool", "stream:call-no-bytes", "stream:peek-empty",
			"decision:preview", "event:peek", "reason:malformed-json"},
			not: []string{"stream:two-live-attempts", "anomaly:final-mismatch", "stream:restart-mid-stream"}},
		{name: "secret peek", src: `
tool login {"type":"object"}
secret login token
open r1 turn=t1
begin r1 item=0 call=c1 tool=login
delta r1 item=0 "{\"token\":\"abc"
peek r1 item=0
`, want: []string{"secret:peek-redacted", "secret:name", "decision:preview"},
			not: []string{"secret:pointer", "stream:peek-empty"}},
		{name: "limits at their edges", src: `
tool t {}
limit call-bytes=8 turn-bytes=16 calls=2 depth=2 preview-bytes=4
open r1 turn=t1
begin r1 item=0 call=c1 tool=t
delta r1 item=0 "{\"a\""
peek r1 item=0
delta r1 item=0 ":[]}"
end r1 item=0
begin r1 item=1 call=c2 tool=t
delta r1 item=1 "{\"b\":[]}"
end r1 item=1
close r1 status=complete
`, want: []string{"limit:call-bytes-edge", "limit:turn-bytes-edge", "limit:calls-edge", "limit:depth-edge",
			"limit:preview-bytes-edge", "keys:two-in-one-attempt", "keys:two-released"},
			not: []string{"limit:call-bytes-hit", "limit:turn-bytes-hit", "limit:calls-hit", "limit:depth-hit",
				"limit:preview-bytes-hit", "reason:too-large", "reason:too-deep", "anomaly:turn-too-large", "anomaly:too-many-calls"}},
		{name: "limits passed", src: `
tool t {}
limit call-bytes=8 turn-bytes=12 calls=2 depth=1 preview-bytes=4
open r1 turn=t1
begin r1 item=0 call=c1 tool=t
delta r1 item=0 "{\"a\":[1]}"
end r1 item=0
close r1 status=complete
open r2 turn=t2
begin r2 item=0 call=c1 tool=t
delta r2 item=0 "{\"a\":[]}"
peek r2 item=0
end r2 item=0
close r2 status=complete
open r3 turn=t3
begin r3 item=0 call=c1 tool=t
delta r3 item=0 "{\"a\":1}"
begin r3 item=1 call=c2 tool=t
begin r3 item=2 call=c3 tool=t
open r4 turn=t4
begin r4 item=0 call=c1 tool=t
delta r4 item=0 "{\"a\":1}"
end r4 item=0
close r4 status=complete
open r5 turn=t4
begin r5 item=0 call=c1 tool=t
delta r5 item=0 "{\"a\":1}"
begin r5 item=1 call=c2 tool=t
delta r5 item=1 "{\"b\":2}"
`, want: []string{"limit:call-bytes-hit", "limit:turn-bytes-hit", "limit:calls-hit", "limit:depth-hit",
			"limit:preview-bytes-hit", "reason:too-large", "reason:too-deep", "anomaly:turn-too-large", "anomaly:too-many-calls",
			"reason:turn-anomaly"},
			not: []string{"supersede:regeneration-at-budget", "supersede"}},
		{name: "supersede", src: `
tool send {"type":"object"}
tool t {"type":"object"}
early send
policy release=per-call
limit turn-bytes=14
open r1 turn=t1
begin r1 item=0 call=c0 tool=send
delta r1 item=0 "{\"to\":\"a\"}"
end r1 item=0
open r2 turn=t1
begin r2 item=0 call=c0 tool=send
delta r2 item=0 "{\"to\":\"a\"}"
begin r2 item=1 call=c1 tool=t
delta r2 item=1 "{}  "
open r3 turn=t1
open r4 turn=t2
delta r4 item=7 "x"
open r5 turn=t2
restart
`, want: []string{"supersede", "supersede:chain", "supersede:compensate", "supersede:regenerated-call",
			"supersede:regeneration-at-budget", "supersede:dead-not-superseded", "stream:two-live-attempts",
			"stream:restart-mid-stream", "decision:compensate", "policy:per-call", "config:early", "reason:superseded",
			"anomaly:unknown-call", "event:restart", "limit:turn-bytes-edge"},
			not: []string{"policy:after-turn"}},
		{name: "reopen compensates without a supersede", src: `
tool send {"type":"object"}
early send
policy release=per-call
open r1 turn=t1
begin r1 item=0 call=c0 tool=send
delta r1 item=0 "{}"
end r1 item=0
open r1 turn=t1
`, want: []string{"decision:compensate", "anomaly:reopen", "config:early"},
			not: []string{"supersede:compensate", "supersede"}},
		{name: "acks and keys", src: fmt.Sprintf(`
tool t {}
open r1 turn=t1
begin r1 item=0 call=c1 tool=t
delta r1 item=0 "{\"a\":1}"
end r1 item=0
begin r1 item=1 call=c2 tool=t
delta r1 item=1 "{\"b\":2}"
end r1 item=1
close r1 status=complete
ack %[1]s fail
open r2 turn=t1
begin r2 item=0 call=c1 tool=t
delta r2 item=0 "{\"a\":1}"
end r2 item=0
close r2 status=complete
restart
open r3 turn=t1
begin r3 item=0 call=c1 tool=t
delta r3 item=0 "{\"b\":2}"
end r3 item=0
begin r3 item=1 call=c2 tool=t
delta r3 item=1 "{\"b\":2}"
end r3 item=1
close r3 status=complete
ack %[2]s ok
ack %[2]s ok
open r4 turn=t1
begin r4 item=0 call=c1 tool=t
delta r4 item=0 "{\"b\":2}"
end r4 item=0
close r4 status=complete
`, kA, kB), want: []string{"ack:fail", "ack:fail-second-key-held", "ack:fail-rereleased", "ack:after-restart", "ack:ok",
			"keys:two-released", "keys:two-in-one-attempt", "keys:reconcile-shared", "decision:reconcile", "event:ack",
			"anomaly:unknown-ack", "reason:duplicate-effect"},
			not: []string{"stream:restart-mid-stream"}},
		{name: "ack fail alone", src: fmt.Sprintf(`
tool t {}
open r1 turn=t1
begin r1 item=0 call=c1 tool=t
delta r1 item=0 "{\"a\":1}"
end r1 item=0
close r1 status=complete
ack %[1]s fail
`, kA), want: []string{"ack:fail"},
			not: []string{"ack:fail-second-key-held", "ack:fail-rereleased", "ack:after-restart", "keys:two-released", "anomaly:unknown-ack"}},
		{name: "statuses and reasons", src: `
tool save {"type":"object","required":["p"]}
allow save p ok
open r1 turn=t1
begin r1 item=0 call=c1 tool=save
delta r1 item=0 "{\"p\":\"no\"}"
end r1 item=0
begin r1 item=1 call=c2 tool=save
delta r1 item=1 "{}"
end r1 item=1
begin r1 item=2 call=c3 tool=save
delta r1 item=2 "[1]"
end r1 item=2
begin r1 item=3 call=c4 tool=save
delta r1 item=3 "{\"p\":\"ok\"}"
end r1 item=3
begin r1 item=4 call=c5 tool=save
delta r1 item=4 "{\"p\":\"ok\"}"
end r1 item=4
begin r1 item=5 call=c6 tool=save
close r1 status=complete
open r2 turn=t2
begin r2 item=0 call=c1 tool=save
close r2 status=truncated
open r3 turn=t3
begin r3 item=0 call=c1 tool=save
close r3 status=failed
open r4 turn=t4
begin r4 item=0 call=c1 tool=save
close r4 status=cancelled
open r5 turn=t5
begin r5 item=0 call=c1 tool=save
close r5 status=disconnected
close r5 status=complete
delta ghost item=0 "{}"
open r6 turn=t6
open r6 turn=t6
open r7 turn=t7
begin r7 item=0 call=c1 tool=save
begin r7 item=0 call=c2 tool=save
open r8 turn=t8
begin r8 item=0 call=c1 tool=save
begin r8 item=1 call=c1 tool=save
open r9 turn=t9
begin r9 item=0 call=c1 tool=save
end r9 item=0
end r9 item=0
open r10 turn=t10
begin r10 item=0 call=c1 tool=save
delta r10 item=0 "{}"
end r10 item=0 final="{ }"
`, want: []string{"reason:unauthorized", "reason:schema", "reason:not-object", "reason:duplicate", "reason:incomplete",
			"reason:turn-truncated", "reason:turn-failed", "reason:turn-cancelled", "reason:turn-disconnected",
			"reason:turn-anomaly", "status:truncated", "status:failed", "status:cancelled", "status:disconnected",
			"anomaly:after-close", "anomaly:no-open", "anomaly:reopen", "anomaly:duplicate-begin",
			"anomaly:identity-conflict", "anomaly:after-end", "anomaly:final-mismatch", "decision:reject", "decision:anomaly"},
			not: []string{"stream:end-final-match", "reason:batch-aborted", "policy:atomic", "stream:interleaved"}},
		{name: "atomic", src: `
tool t {"type":"object","required":["a"]}
policy batch=atomic
open r1 turn=t1
begin r1 item=0 call=c1 tool=t
delta r1 item=0 "{\"a\":1}"
end r1 item=0
begin r1 item=1 call=c2 tool=t
delta r1 item=1 "{}"
end r1 item=1
close r1 status=complete
`, want: []string{"policy:atomic", "reason:batch-aborted", "reason:schema"},
			not: []string{"policy:independent", "decision:release"}},
	}
}

// TestExtractFeatures: each hand-written scenario reaches the features it
// was written for and none of its near misses.
func TestExtractFeatures(t *testing.T) {
	for _, c := range cases(t) {
		t.Run(c.name, func(t *testing.T) {
			got := extract(t, c.src)
			for _, f := range c.want {
				if !coverage.Known(coverage.Feature(f)) {
					t.Errorf("%s is not a catalog feature", f)
				}
				if !got[coverage.Feature(f)] {
					t.Errorf("%s not detected; got %v", f, got.Sorted())
				}
			}
			for _, f := range c.not {
				if !coverage.Known(coverage.Feature(f)) {
					t.Errorf("%s is not a catalog feature", f)
				}
				if got[coverage.Feature(f)] {
					t.Errorf("%s detected, but the scenario does not reach it", f)
				}
			}
			for f := range got {
				if !coverage.Known(f) {
					t.Errorf("extracted %s, which is not in the catalog", f)
				}
			}
		})
	}
}

// TestEveryFeatureDetectedAndAbsent: every catalog feature is detected by
// some hand-written case and absent from another, so no detector is
// missing or constant.
func TestEveryFeatureDetectedAndAbsent(t *testing.T) {
	seen, absent := coverage.Set{}, coverage.Set{}
	for _, c := range cases(t) {
		got := extract(t, c.src)
		for _, f := range c.want {
			seen[coverage.Feature(f)] = true
		}
		for _, s := range coverage.Catalog() {
			if !got[s.Name] {
				absent[s.Name] = true
			}
		}
	}
	for _, s := range coverage.Catalog() {
		if !seen[s.Name] {
			t.Errorf("no case is written to reach %s (%s)", s.Name, s.Means)
		}
		if !absent[s.Name] {
			t.Errorf("every case reaches %s: its detector cannot fail", s.Name)
		}
	}
}

// TestRefusedHasNoFeatures: a refused configuration decides nothing, so
// it reaches nothing.
func TestRefusedHasNoFeatures(t *testing.T) {
	cfg := sealgate.DefaultConfig()
	cfg.Tools = []sealgate.Tool{{Name: "t", Schema: `{}`, Early: true}}
	evs := []sealgate.Event{sealgate.OpenEvent("r1", "t1")}
	ds := model.Run(cfg, evs)
	if !coverage.Refused(ds) {
		t.Fatalf("early under after-turn not refused: %v", ds)
	}
	if got := coverage.Extract(cfg, evs, ds); len(got) != 0 {
		t.Fatalf("refused configuration reached %v", got.Sorted())
	}
}
