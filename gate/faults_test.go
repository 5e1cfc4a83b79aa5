package gate

import (
	"fmt"
	"strings"
	"testing"

	"github.com/sealgate/sealgate"
	"github.com/sealgate/sealgate/internal/zoo/faults"
)

// The deliberate bugs of internal/faults must be what the zoo and the power
// benchmark say they are: each switch changes the one thing it names, and
// the helpers behind them do what their comments say. (Written to cover
// the fault code, which the suite never switches on, for mutation testing:
// docs/research/power/mutants.md.)

func TestFaultHelpers(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{`{"a":"x`, `{"a":"x"}`},
		{`{"a":[1,{"b":"c\"d`, `{"a":[1,{"b":"c\"d"}]}`},
		{`{"a":"x\`, `{"a":"x"}`},
		{`{"a\\":[1],"b":[`, `{"a\\":[1],"b":[]}`},
		{`["}]",{`, `["}]",{}]`},
		{`]}[`, `]}[]`},
		{`{"a":1}`, `{"a":1}`},
		{``, ``},
	} {
		if got := string(repairJSON([]byte(c.in))); got != c.want {
			t.Errorf("repairJSON(%s) = %s, want %s", c.in, got, c.want)
		}
	}
	for _, c := range []struct {
		in, want string
		ok       bool
	}{
		{`{"a":1,"a":2} tail`, `{"a":2}`, true},
		{`{"n":NaN,"m":[Infinity]}`, `{"m":[0],"n":0}`, true},
		{`{"a":`, ``, false},
	} {
		got, ok := lenientText([]byte(c.in))
		if string(got) != c.want || ok != c.ok {
			t.Errorf("lenientText(%s) = %s, %v; want %s, %v", c.in, got, ok, c.want, c.ok)
		}
	}
	in := `{"token" : "abc","x":"token","pw":"s","a.b":"y","axb":"z"}`
	want := `{"token":"[redacted]","x":"token","pw":"[redacted]","a.b":"[redacted]","axb":"z"}`
	if got := string(redactFragment([]string{"token", "pw", "a.b"}, []byte(in))); got != want {
		t.Errorf("redactFragment = %s, want %s", got, want)
	}
	if got := topSecrets([][]string{{"a"}, {"b", "c"}, {"d"}}); strings.Join(got, ",") != "a,d" {
		t.Errorf("topSecrets = %v", got)
	}
	var none *tool
	if none.secretsOrNil() != nil {
		t.Errorf("a nil tool has secrets")
	}
	if got := (&tool{secrets: [][]string{{"a"}}}).secretsOrNil(); len(got) != 1 {
		t.Errorf("secretsOrNil = %v", got)
	}
}

// TestFaultsBuild: faults.New builds the real gate with the switches on,
// and refuses what New refuses.
func TestFaultsBuild(t *testing.T) {
	g, err := faults.New(testConfig(), faults.Set{EmptyAsObject: true})
	if err != nil || g == nil {
		t.Fatalf("faults.New: %v, %v", g, err)
	}
	if gg, ok := g.(*Gate); !ok || !gg.faults.EmptyAsObject {
		t.Fatalf("faults.New built %T without its switch", g)
	}
	bad := testConfig()
	bad.Tools[0].Schema = `{"type":`
	if g, err := faults.New(bad, faults.Set{}); err == nil || g != nil {
		t.Fatalf("faults.New accepted a refused configuration: %v, %v", g, err)
	}
}

func TestFaultSwitches(t *testing.T) {
	rel := func(at int, turn, a, item, call, args string) string {
		return fmt.Sprintf("@%d release %s item=%s call=%s tool=note key=%s args=%s", at, a, item, call, argsKey(turn, "note", args), args)
	}
	cases := []struct {
		name string
		set  faults.Set
		evs  []sealgate.Event
		want []string
	}{
		{"reuse-superseded: only a superseded call's bytes", faults.Set{ReuseSuperseded: true}, []sealgate.Event{
			op("r1", "t1"), bg("r1", "0", "c1", "note"), dl("r1", "0", `{"n":`),
			op("r2", "t1"), bg("r2", "0", "c2", "note"), dl("r2", "0", `1}`), en("r2", "0"), cl("r2", complete),
			op("r3", "t2"), bg("r3", "0", "c3", "note"), dl("r3", "0", `{"n":`), cl("r3", truncated),
			op("r4", "t3"), bg("r4", "0", "c4", "note"), dl("r4", "0", `{"n":2}`), en("r4", "0"), cl("r4", complete),
		}, []string{"@4 reject r1 item=0 reason=superseded", rel(8, "t1", "r2", "0", "c2", `{"n":1}`),
			"@12 reject r3 item=0 reason=turn-truncated", rel(17, "t3", "r4", "0", "c4", `{"n":2}`)}},
		{"stale-across-attempts", faults.Set{StaleAcrossAttempts: true}, []sealgate.Event{
			op("r1", "t1"), bg("r1", "0", "c1", "note"), dl("r1", "0", `{"n":`), cl("r1", truncated),
			op("r2", "t2"), bg("r2", "0", "c2", "note"), dl("r2", "0", `1}`), en("r2", "0"), cl("r2", complete),
		}, []string{"@4 reject r1 item=0 reason=turn-truncated", rel(9, "t2", "r2", "0", "c2", `{"n":1}`)}},
		{"key-by-tool: same tool shares", faults.Set{KeyByTool: true}, []sealgate.Event{
			op("r1", "t1"), bg("r1", "0", "c1", "note"), bg("r1", "1", "c2", "note"),
			dl("r1", "0", `{"n":`), dl("r1", "1", `2}`), en("r1", "0"), cl("r1", complete),
		}, []string{rel(7, "t1", "r1", "0", "c1", `{"n":2}`)}},
		{"release-when-parses: objects that parse", faults.Set{ReleaseWhenParses: true}, []sealgate.Event{
			op("r1", "t1"), bg("r1", "0", "c1", "note"), dl("r1", "0", `{"n":`), dl("r1", "0", `1}`),
			bg("r1", "1", "c2", "note"), dl("r1", "1", `[1]`), en("r1", "1"), cl("r1", complete),
		}, []string{rel(4, "t1", "r1", "0", "c1", `{"n":1}`), "@8 reject r1 item=1 reason=not-object"}},
		{"disconnected-is-complete: only disconnected", faults.Set{DisconnectedIsComplete: true}, []sealgate.Event{
			op("r1", "t1"), bg("r1", "0", "c1", "note"), dl("r1", "0", `{"n":1}`), en("r1", "0"), cl("r1", disconnected),
			op("r2", "t2"), bg("r2", "0", "c2", "note"), dl("r2", "0", `{"n":2}`), en("r2", "0"), cl("r2", truncated),
		}, []string{rel(5, "t1", "r1", "0", "c1", `{"n":1}`), "@10 reject r2 item=0 reason=turn-truncated"}},
		{"repair-on-disconnect: only disconnected, only unended", faults.Set{RepairOnDisconnect: true}, []sealgate.Event{
			op("r1", "t1"), bg("r1", "0", "c1", "note"), dl("r1", "0", `{"n":1`), cl("r1", disconnected),
			op("r2", "t2"), bg("r2", "0", "c2", "note"), dl("r2", "0", `{"n":2`), cl("r2", failed),
		}, []string{rel(4, "t1", "r1", "0", "c1", `{"n":1}`), "@8 reject r2 item=0 reason=turn-failed"}},
		{"empty-as-object: only empty", faults.Set{EmptyAsObject: true}, []sealgate.Event{
			op("r1", "t1"), bg("r1", "0", "c1", "note"), en("r1", "0"),
			bg("r1", "1", "c2", "note"), dl("r1", "1", `[1]`), en("r1", "1"), cl("r1", complete),
		}, []string{rel(7, "t1", "r1", "0", "c1", `{}`), "@7 reject r1 item=1 reason=not-object"}},
	}
	for _, c := range cases {
		g, err := New(testConfig(), NewMemoryLedger())
		if err != nil {
			t.Fatal(err)
		}
		g.faults = c.set
		var got []string
		for _, ev := range c.evs {
			// Not feed: a repaired buffer is longer than the bytes
			// counted, so Retained is off under that fault.
			ds, err := g.Feed(ev)
			if err != nil {
				t.Fatalf("%s: Feed(%s): %v", c.name, ev, err)
			}
			for _, d := range ds {
				got = append(got, d.String())
			}
		}
		if strings.Join(got, "\n") != strings.Join(c.want, "\n") {
			t.Errorf("%s:\ngot:\n  %s\nwant:\n  %s", c.name, strings.Join(got, "\n  "), strings.Join(c.want, "\n  "))
		}
	}
}
