// Package control is the project's own gate as the stdio protocol's
// server side sees it (stdiogate.Control): the real gate over a journal
// ledger that outlives the process, so that a restart keeps it.
package control

import (
	"github.com/sealgate/sealgate"
	"github.com/sealgate/sealgate/check"
	"github.com/sealgate/sealgate/gate"
)

// Open builds the real gate for cfg over the journal at ledgerPath,
// claiming the whole SPEC; fsync syncs the journal at every change. The
// subject is an io.Closer that closes the journal.
func Open(cfg sealgate.Config, ledgerPath string, fsync bool) (check.Subject, error) {
	l, err := openJournal(ledgerPath, fsync)
	if err != nil {
		return nil, err
	}
	g, err := gate.New(cfg, l)
	if err != nil {
		l.Close()
		return nil, err
	}
	return subject{g, l}, nil
}

// subject is the real gate over its journal; FeedDelta and Retained are
// the gate's.
type subject struct {
	*gate.Gate
	journal *journal
}

func (subject) Capabilities() check.Capabilities { return check.FullCapabilities() }

// Close closes the journal at the end of the run.
func (s subject) Close() error { return s.journal.Close() }
