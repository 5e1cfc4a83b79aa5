package sealgate_test

import (
	"fmt"
	"math/rand"
	"strings"
	"testing"

	"github.com/sealgate/sealgate"
	"github.com/sealgate/sealgate/check"
)

// fragments mixes valid JSON pieces, escapes, split runes and garbage, so
// that random sequences reach every seal check.
var fragments = [][]byte{
	[]byte(`{"path":"notes.md","content":"`), []byte(`hello`), []byte(`"}`), []byte(`{}`),
	[]byte(`{"path":"a","content":"b"}`), []byte(`{"path":"notes.md","content":"x"}`),
	[]byte(`[1,2]`), []byte(`{"a":{"b":[`), []byte(`]}}`), []byte(`\u00e9`), []byte(`\ud83d`),
	[]byte(`\ude00`), []byte("\xe4\xbd"), []byte("\xa0"), []byte("\xff"), []byte(` `), []byte(``),
	[]byte(`,`), []byte(`"token":"s3cr3t"`), []byte(`1e999`), []byte(`NaN`), []byte(`{"a":1,"a":2}`),
	[]byte(`tru`), []byte(`e`), []byte(`"`), []byte(`\`), []byte(`{"path":"notes.md","content":"日期"}`),
}

const saveFile = `{"type":"object","required":["path","content"],"properties":{"path":{"type":"string"},"content":{"type":"string"}},"additionalProperties":false}`

func randomConfig(r *rand.Rand) sealgate.Config {
	cfg := sealgate.DefaultConfig()
	cfg.Tools = []sealgate.Tool{
		{Name: "save_file", Schema: saveFile},
		{Name: "any", Schema: `{"type":"object"}`, Secrets: []string{"token", "/a/b"}},
	}
	if r.Intn(3) == 0 {
		cfg.Tools[0].Allow = &sealgate.Allow{Field: "path", Values: []string{"notes.md"}}
	}
	switch r.Intn(3) {
	case 1:
		cfg.Tools[1].Idem = sealgate.Idem{Mode: sealgate.IdemCall}
	case 2:
		cfg.Tools[1].Idem = sealgate.Idem{Mode: sealgate.IdemFields, Fields: []string{"a", "token"}}
	}
	switch r.Intn(3) {
	case 1:
		cfg.Release = sealgate.PerCall
		cfg.Tools[1].Early = r.Intn(2) == 0
	case 2:
		cfg.Batch = sealgate.Atomic
	}
	if r.Intn(2) == 0 {
		cfg.Limits = sealgate.Limits{CallBytes: 1 + r.Intn(80), TurnBytes: 1 + r.Intn(200),
			Calls: 1 + r.Intn(4), Depth: 1 + r.Intn(4), PreviewBytes: 1 + r.Intn(60)}
	}
	return cfg
}

func randomEvents(r *rand.Rand, n int) []sealgate.Event {
	pick := func(xs ...string) string { return xs[r.Intn(len(xs))] }
	evs := make([]sealgate.Event, 0, n)
	for len(evs) < n {
		a, item := pick("r1", "r2", "r3"), pick("0", "1", "2")
		switch r.Intn(10) {
		case 0:
			evs = append(evs, sealgate.OpenEvent(a, pick("t1", "t2")))
		case 1:
			evs = append(evs, sealgate.BeginEvent(a, item, pick("c1", "c2", "c3"), pick("save_file", "any", "nope")))
		case 2, 3, 4:
			evs = append(evs, sealgate.DeltaEvent(a, item, fragments[r.Intn(len(fragments))]))
		case 5:
			if r.Intn(4) == 0 {
				evs = append(evs, sealgate.EndFinalEvent(a, item, fragments[r.Intn(len(fragments))]))
			} else {
				evs = append(evs, sealgate.EndEvent(a, item))
			}
		case 6:
			evs = append(evs, sealgate.CloseEvent(a, sealgate.Status(1+r.Intn(5))))
		case 7:
			evs = append(evs, sealgate.PeekEvent(a, item))
		case 8:
			evs = append(evs, sealgate.AckEvent(pick("0000000000000000", "ffffffffffffffff"), r.Intn(2) == 0))
		case 9:
			if r.Intn(4) == 0 {
				evs = append(evs, sealgate.RestartEvent())
			}
		}
	}
	return evs
}

// TestRandomSequencesAgree feeds random event lists to the gate and the
// model: neither may panic, and they must produce the same decisions.
func TestRandomSequencesAgree(t *testing.T) {
	n := 3000
	if testing.Short() {
		n = 300
	}
	for seed := int64(0); seed < int64(n); seed++ {
		r := rand.New(rand.NewSource(seed))
		cfg := randomConfig(r)
		evs := randomEvents(r, 1+r.Intn(40))
		var res check.Result
		func() {
			defer func() {
				if p := recover(); p != nil {
					t.Fatalf("seed %d: panic: %v\nevents:\n%s", seed, p, eventLines(evs))
				}
			}()
			res = check.Default.Run(cfg, evs)
		}()
		if err := res.Agree(); err != nil {
			t.Fatalf("seed %d: %v\nevents:\n%s", seed, err, eventLines(evs))
		}
	}
}

func eventLines(evs []sealgate.Event) string {
	s := ""
	for i, e := range evs {
		s += fmt.Sprintf("%3d  %s\n", i+1, e)
	}
	return s
}

// TestSchemaNumbersExact: schema checks see a number's exact value whatever
// its spelling. A 1 MB literal worth exactly 1e-300, written with an
// exponent past a million (which the schema library cannot hold), is
// released by both implementations and is a duplicate of 1e-300 written
// short.
func TestSchemaNumbersExact(t *testing.T) {
	long := "1" + strings.Repeat("0", 999701) + "e-1000001"
	cfg := sealgate.DefaultConfig()
	cfg.Tools = []sealgate.Tool{{Name: "m", Schema: `{"type":"object","properties":{"n":{"exclusiveMinimum":0,"maximum":1e-299}}}`}}
	evs := []sealgate.Event{
		sealgate.OpenEvent("r1", "t1"),
		sealgate.BeginEvent("r1", "0", "c0", "m"),
		sealgate.DeltaEvent("r1", "0", []byte(`{"n":`+long+`}`)),
		sealgate.EndEvent("r1", "0"),
		sealgate.BeginEvent("r1", "1", "c1", "m"),
		sealgate.DeltaEvent("r1", "1", []byte(`{"n":1e-300}`)),
		sealgate.EndEvent("r1", "1"),
		sealgate.CloseEvent("r1", sealgate.Complete),
	}
	res := check.Default.Run(cfg, evs)
	if err := res.Agree(); err != nil {
		t.Fatal(err)
	}
	if len(res.Gate) != 2 || res.Gate[0].Kind != sealgate.Release || res.Gate[1].Reason != sealgate.Duplicate {
		t.Fatalf("want a release and a duplicate, got %v / %v", res.Gate[0].Kind, res.Gate[1])
	}
}
