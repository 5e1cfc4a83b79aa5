package peers

import (
	"github.com/sealgate/sealgate"
	"github.com/sealgate/sealgate/check"
	"github.com/sealgate/sealgate/wire"
)

// Config is the configuration a peer is judged under: every tool the body
// names, schema {"type":"object"}, the default policy, as `sealfuzz replay
// -wire` declares them.
func Config(events []sealgate.Event) sealgate.Config { return wire.ToolsConfig(events) }

// Capabilities is what an SDK idiom can express: releases only, of the
// events a vendor body carries (no peek, ack or restart), with fragments
// that never split a rune (the SDKs decode them from JSON strings). The
// checks that need more do not apply (check.Checks), so a violation is never
// a missing capability.
func Capabilities() check.Capabilities { return check.Capabilities{} }

// replayed is one recorded peer run as a check.Subject: each event is
// answered with the releases the peer made at it. The checker feeds it the
// body's own normalized events, whose positions the releases were placed
// at, so the subject says exactly what the peer did.
type replayed struct {
	byAt map[int][]sealgate.Decision
	n    int
}

func (r *replayed) Capabilities() check.Capabilities { return Capabilities() }

func (r *replayed) Feed(sealgate.Event) ([]sealgate.Decision, error) {
	r.n++
	return r.byAt[r.n], nil
}

// Judge says which check an outcome breaks, or nil: check's catalog as it
// applies to a subject with the peer's capabilities (I1, I2, I3's release
// half, I4's release half, I7 within the run, I11's double verdicts,
// SEAL), over the body's normalized events and the peer's releases; then
// whether the peer itself failed (SUBJECT).
func Judge(out Outcome) error {
	byAt := map[int][]sealgate.Decision{}
	for _, d := range out.Releases {
		byAt[d.At] = append(byAt[d.At], d)
	}
	chk := check.NewChecker(func(sealgate.Config) (check.Subject, error) {
		return &replayed{byAt: byAt}, nil
	})
	if err := check.Invariants(chk.Record(Config(out.Meaning.Events), out.Meaning.Events)); err != nil {
		return err
	}
	if out.Subject != nil {
		return &check.Violation{ID: "SUBJECT", Name: "the subject failed", Msg: out.Subject.Error()}
	}
	return nil
}
