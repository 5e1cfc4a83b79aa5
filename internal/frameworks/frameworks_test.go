package main

import (
	"os"
	"testing"

	"github.com/sealgate/sealgate"
	"github.com/sealgate/sealgate/internal/peers"
	"github.com/sealgate/sealgate/wire"
)

var runner *peers.Runner

func TestMain(m *testing.M) {
	runner = peers.NewRunner()
	code := m.Run()
	runner.Close()
	os.Exit(code)
}

// oneCall is one complete call to get_weather with the given fragments,
// and the close the body ends with.
func oneCall(st sealgate.Status, fragments ...string) []sealgate.Event {
	evs := []sealgate.Event{sealgate.OpenEvent("r1", "t1"), sealgate.BeginEvent("r1", "x", "call_1", "get_weather")}
	for _, f := range fragments {
		evs = append(evs, sealgate.DeltaEvent("r1", "x", []byte(f)))
	}
	return append(evs, sealgate.EndEvent("r1", "x"), sealgate.CloseEvent("r1", st))
}

func build(t *testing.T, p wire.Protocol, evs []sealgate.Event, f peers.Fault) peers.Body {
	t.Helper()
	b, ok := peers.Build(p, evs, f)
	if !ok {
		t.Fatalf("%s cannot carry %v", p, evs)
	}
	return b
}

// TestCompleteCallRunsOnce: every idiom runs a complete call once, with its
// own bytes, and breaks nothing: the framework is wired to the server.
func TestCompleteCallRunsOnce(t *testing.T) {
	for _, p := range all() {
		t.Run(p.Name, func(t *testing.T) {
			out, err := runner.Run(p, build(t, p.Protocol, oneCall(sealgate.Complete, `{"city":`, `"Paris"}`), peers.Fault{}))
			if err != nil {
				t.Fatal(err)
			}
			if len(out.Releases) != 1 || string(out.Releases[0].Args) != `{"city":"Paris"}` || out.Releases[0].Tool != "get_weather" {
				t.Fatalf("releases %+v, want get_weather {\"city\":\"Paris\"} once (error %v)", out.Releases, out.SDKErr)
			}
			if v := peers.Judge(out); v != nil {
				t.Fatalf("a complete call: %v", v)
			}
		})
	}
}
