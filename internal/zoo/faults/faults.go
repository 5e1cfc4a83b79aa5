// Package faults holds the deliberate bugs that the suite's own tests (and
// the bug zoo) switch on inside the real gate, to prove that the suite
// catches them. It is internal to the module: no user of package gate can
// import it, so no bug can be turned on in production.
package faults

import (
	"errors"

	"github.com/sealgate/sealgate"
)

// Set is a choice of bugs; the zero Set is the correct gate. Each switch
// reproduces one failure pattern of the project's research notes
// (shared/research/real-bugs.md, not shipped with the module), and
// package zoo says which findings.
type Set struct {
	// ReleaseAtEnd decides every call at its own end, as if every tool
	// were early under per-call (P5: execute before the turn is known good).
	ReleaseAtEnd bool
	// RepairOnDisconnect closes open strings and containers of unfinished
	// calls at close disconnected and seals them as if complete (P1).
	RepairOnDisconnect bool
	// ReleaseWhenParses seals a call as soon as its buffer parses as an
	// object, without waiting for its end (P2).
	ReleaseWhenParses bool
	// CloseReleasesAll takes any close, whatever its status, as the end of
	// every call and the success of the turn (P4).
	CloseReleasesAll bool
	// KeyByTool keys buffers by tool name: a second call of the same tool
	// in an attempt shares the first one's buffer (P3).
	KeyByTool bool
	// StaleAcrossAttempts keys buffers by item across attempts: a call
	// starts with the bytes of the last call decided on its item (P8).
	StaleAcrossAttempts bool
	// ReuseSuperseded starts a call with the bytes of the superseded
	// attempt's undecided call on the same item (P8).
	ReuseSuperseded bool
	// AppendAfterEnd appends a delta that comes after its call's end (P6).
	AppendAfterEnd bool
	// IgnoreFinal never compares an end's final with the bytes (P12).
	IgnoreFinal bool
	// LenientJSON parses like encoding/json v1 plus NaN: duplicate names
	// (the last wins), trailing text ignored, then re-serializes (P9).
	LenientJSON bool
	// EmptyAsObject seals a call that received no bytes as {} (P14).
	EmptyAsObject bool
	// ForgetLedgerOnRestart keeps de-duplication in memory only: a restart
	// loses the ledger too (P7).
	ForgetLedgerOnRestart bool
	// NoCompensate never compensates an early release whose attempt ends
	// badly.
	NoCompensate bool
	// LeakSplitSecret redacts secrets per fragment, by pattern, instead of
	// in the parsed preview: a secret split across deltas leaks (P10).
	LeakSplitSecret bool
	// Unbounded ignores call-bytes and turn-bytes (P11).
	Unbounded bool
	// DisconnectedIsComplete takes close disconnected for close complete
	// (P5: a dropped socket taken for success).
	DisconnectedIsComplete bool

	// The bugs below need a combination the fixed vocabulary of
	// the generators rarely or never draws: state spanning two keys or two
	// attempts, or a configuration or value outside the usual shapes.

	// AckFailClearsAll empties the whole released set at an ack fail
	// instead of removing the one key: one key's failure re-opens every
	// other key's duplicate check (P7).
	AckFailClearsAll bool
	// AckOkForgetsRelease drops the key from the released set at ack ok
	// too, as if the set held only calls awaiting an ack (P7).
	AckOkForgetsRelease bool
	// TurnBytesPerTurn counts turn-bytes per turn, not per attempt: a
	// regeneration starts with the byte count of the attempt it
	// supersedes (P8, P11).
	TurnBytesPerTurn bool
	// CallBytesByItem counts call-bytes per item across attempts: a
	// regeneration's call starts with the byte count of the superseded
	// attempt's undecided call on the same item (P8, P11).
	CallBytesByItem bool
	// FirstSecretPerMember keeps, of several secret pointers through one
	// top-level member, only the first: the others show in previews (P10).
	FirstSecretPerMember bool
	// NoncharBMPOnly checks the seal's strings for the BMP noncharacters
	// only (U+FDD0..U+FDEF, U+FFFE, U+FFFF), missing the last two code
	// points of planes 1 to 16 (P9).
	NoncharBMPOnly bool
	// KeyNumbersParseFloat canonicalizes the idempotency key's numbers
	// with strconv.ParseFloat on the literal as written, which misplaces
	// the decimal point of mantissas past 800 digits (P9).
	KeyNumbersParseFloat bool
	// FieldsRawNames finds the members of a fields: key by their names as
	// written, escapes and all: "\u006e" is not the field n (P9).
	FieldsRawNames bool
}

// Gate is what a faulty gate offers the checks: the real gate's entry
// points.
type Gate interface {
	Feed(sealgate.Event) ([]sealgate.Decision, error)
	FeedDelta(attempt, item string, b []byte) ([]sealgate.Decision, error)
	Retained() int
}

var build func(sealgate.Config, Set) (Gate, error)

// Register is called by package gate when it is initialized.
func Register(f func(sealgate.Config, Set) (Gate, error)) { build = f }

// New builds the real gate, over a fresh in-memory ledger, with the bugs in
// s switched on. The caller must import github.com/sealgate/sealgate/gate.
func New(cfg sealgate.Config, s Set) (Gate, error) {
	if build == nil {
		return nil, errors.New("faults: package github.com/sealgate/sealgate/gate is not linked in")
	}
	return build(cfg, s)
}
