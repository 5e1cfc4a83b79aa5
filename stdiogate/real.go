package stdiogate

import (
	"github.com/sealgate/sealgate"
	"github.com/sealgate/sealgate/check"
	"github.com/sealgate/sealgate/gate"
)

// Control is the project's own gate as a Backend, the control every other
// gate is compared with: over a journal ledger at each run's ledger path,
// claiming the whole SPEC. fsync syncs the journal at every change.
func Control(fsync bool) Backend {
	return func(cfg sealgate.Config, ledgerPath string) (check.Subject, error) {
		l, err := openJournal(ledgerPath, fsync)
		if err != nil {
			return nil, err
		}
		g, err := gate.New(cfg, l)
		if err != nil {
			l.Close()
			return nil, err
		}
		return control{g, l}, nil
	}
}

// control is the real gate over its journal, as a subject; FeedDelta and
// Retained are the gate's.
type control struct {
	*gate.Gate
	journal *journal
}

func (control) Capabilities() check.Capabilities { return check.FullCapabilities() }

// Close closes the journal at the end of the run.
func (c control) Close() error { return c.journal.Close() }
