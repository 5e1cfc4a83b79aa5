// Package faults holds the deliberate bugs that the suite's own tests (and
// the bug zoo) switch on inside the real gate, to prove that the suite
// catches them. It is internal to the module: no user of package gate can
// import it, so no bug can be turned on in production.
package faults

import (
	"errors"

	"sealgate"
)

// Set is a choice of bugs; the zero Set is the correct gate.
type Set struct {
	// ReleaseAtEnd decides every call at its own end, as if every tool
	// were early under per-call: the "execute before the turn is known
	// good" pattern (real-bugs.md P5).
	ReleaseAtEnd bool
}

// Gate is what a faulty gate offers the checks.
type Gate interface {
	Feed(sealgate.Event) ([]sealgate.Decision, error)
	Retained() int
}

var build func(sealgate.Config, Set) (Gate, error)

// Register is called by package gate when it is initialized.
func Register(f func(sealgate.Config, Set) (Gate, error)) { build = f }

// New builds the real gate, over a fresh in-memory ledger, with the bugs in
// s switched on. The caller must import sealgate/gate.
func New(cfg sealgate.Config, s Set) (Gate, error) {
	if build == nil {
		return nil, errors.New("faults: package sealgate/gate is not linked in")
	}
	return build(cfg, s)
}
