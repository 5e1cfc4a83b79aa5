package check_test

import (
	"fmt"

	"github.com/sealgate/sealgate"
	"github.com/sealgate/sealgate/check"
	"github.com/sealgate/sealgate/gate"
	"github.com/sealgate/sealgate/scn"
)

// myScenario is a user's own case, written in the .scn format (docs/SPEC.md
// section 10): a call whose connection drops after its text parses.
const myScenario = `tool save_file {"type":"object","required":["path"]}
open r1 turn=t1
begin r1 item=0 call=call_1 tool=save_file
delta r1 item=0 "{\"path\":\"notes.md\"}"
close r1 status=disconnected
----
@4 reject r1 item=0 reason=turn-disconnected
`

// The checking core on a user's own scenario: the real gate and the
// reference model run it, every invariant of the catalog is checked, and
// the gate's decisions are compared with the ones the file expects.
func ExampleChecker_RunScenario() {
	s, err := scn.Parse("mine.scn", []byte(myScenario))
	if err != nil {
		fmt.Println(err)
		return
	}
	cfg, err := s.Config()
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("checks:", check.All(cfg, s.Events))
	r := check.Default.RunScenario(s)
	fmt.Println("gate == model:", r.Agree())
	fmt.Println("gate == expected:", check.Compare("expected", s.Expect, "gate", r.Gate))
	// Output:
	// checks: <nil>
	// gate == model: <nil>
	// gate == expected: <nil>
}

// lossy is a gate under test with a planted bug: it drops every reject, as
// an adapter that logged only releases would. Around the real gate, it
// claims the whole SPEC, so its decisions must be the model's.
type lossy struct{ g *gate.Gate }

func (lossy) Capabilities() check.Capabilities { return check.FullCapabilities() }
func (l lossy) Retained() int                  { return l.g.Retained() }

func (l lossy) Feed(ev sealgate.Event) ([]sealgate.Decision, error) {
	ds, err := l.g.Feed(ev)
	var kept []sealgate.Decision
	for _, d := range ds {
		if d.Kind != sealgate.Reject {
			kept = append(kept, d)
		}
	}
	return kept, err
}

// Any gate can be held to the suite as a check.Subject: here the scenario
// above catches the planted bug, and the violation names the invariant,
// the event and the decisions that differ.
func ExampleChecker() {
	s, _ := scn.Parse("mine.scn", []byte(myScenario))
	cfg, _ := s.Config()
	c := check.NewChecker(func(cfg sealgate.Config) (check.Subject, error) {
		g, err := gate.New(cfg, gate.NewMemoryLedger())
		if err != nil {
			return nil, err
		}
		return lossy{g}, nil
	})
	fmt.Println(c.All(cfg, s.Events))
	// Output:
	// I12 gate == model: event 4: decision 1 differs: gate says (nothing); model says @4 reject r1 item=0 reason=turn-disconnected
}
