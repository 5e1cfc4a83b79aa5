// Package peers puts other gates where the project's gate stands: the
// official Go SDKs' tool-call idioms, each driven through the SDK's real
// HTTP and SSE path against a loopback server that serves a vendor body one
// SSE event at a time. An adapter reports what the idiom would execute, with
// the bytes it would execute, as release decisions tied to the normalized
// event that caused them, so the suite's invariants judge an SDK exactly as
// they judge the gate.
//
// A body is built from normalized events (Normalize, then wire.Encode), then
// a byte-level fault (Fault) may cut, drop or inject SSE events that the
// encoder cannot express. What the body means is decided by decoding it
// with wire, never by the SDK under test.
//
// Idioms whose code cannot live in this module (the Go agent frameworks,
// other SDK versions, the JavaScript SDKs) run in peer processes that speak
// JSON lines (child.go): the process serves each body one event per read
// and reports what ran and where it stood; everything else (the bodies,
// the faults, the meaning, the judge, the reducer, the report) stays here,
// one pipeline for every peer.
//
// This package may import the SDKs; gate, wire, the vocabulary and the
// ledger never do.
package peers
