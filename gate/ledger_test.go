package gate

import "testing"

// TestLedgerStateString names the three states and any other value.
func TestLedgerStateString(t *testing.T) {
	for s, want := range map[LedgerState]string{Absent: "absent", Intent: "intent", Done: "done", 7: "ledger-state(7)"} {
		if got := s.String(); got != want {
			t.Errorf("LedgerState(%d).String() = %q, want %q", uint8(s), got, want)
		}
	}
}
