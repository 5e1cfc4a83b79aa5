package machine

import "testing"

// TestActionTable: every action has a name of its own (rapid keys the map
// of steps by name, and a second entry of one name would replace the
// first) and a step, and the check after each step and the actions that
// open attempts and make calls are there.
func TestActionTable(t *testing.T) {
	seen := map[string]bool{}
	for _, a := range actions {
		if seen[a.name] {
			t.Errorf("action %q is listed twice", a.name)
		}
		seen[a.name] = true
		if a.step == nil {
			t.Errorf("action %q has no step", a.name)
		}
	}
	for _, n := range []string{"", "open", "turn", "call"} {
		if !seen[n] {
			t.Errorf("action %q is missing", n)
		}
	}
}
