package stdiogate

import (
	"github.com/sealgate/sealgate"
	"github.com/sealgate/sealgate/check"
	"github.com/sealgate/sealgate/gate"
)

// RealGate is the project's own gate as a Backend, over a journal ledger
// at each run's ledger path; fsync syncs the journal at every change.
func RealGate(fsync bool) Backend { return realGate{fsync: fsync} }

type realGate struct{ fsync bool }

// Capabilities: the real gate claims the whole SPEC.
func (realGate) Capabilities() check.Capabilities { return check.FullCapabilities() }

func (b realGate) Open(cfg sealgate.Config, path string) (Gate, func() error, error) {
	l, err := openJournal(path, b.fsync)
	if err != nil {
		return nil, nil, err
	}
	g, err := gate.New(cfg, l)
	if err != nil {
		l.Close()
		return nil, nil, err
	}
	return g, l.Close, nil
}
