// Package sealgate is the shared vocabulary of the sealgate suite: the
// normalized events that protocol adapters produce, the configuration a gate
// is built from, the decisions it answers with, and the few pure helpers that
// both the real gate (package gate) and the reference model (package model)
// need by definition (compaction, idempotency keys, secret paths).
//
// It holds no gate logic. The gate and the model never import each other;
// they meet only here, so that a difference between them is a real
// disagreement about the contract, not shared code agreeing with itself.
//
// The contract is docs/SPEC.md in this module
// (https://github.com/sealgate/sealgate/blob/main/docs/SPEC.md); "SPEC
// section N" in any doc comment of the module means a section of it.
//
// Data flows one way: vendor bytes → wire → Event → gate/model → Decision →
// check.
package sealgate
