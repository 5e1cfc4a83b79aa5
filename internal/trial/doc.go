// Package trial is the suite's one pipeline for putting a subject on
// trial: the corpus, then the rapid state machine, then generated streams
// for a time budget. `sealfuzz test -gate` runs it against a gate process,
// `sealfuzz peers` against the SDKs' idioms and `sealfuzz power` against
// the zoo's bugs; each command only says what it does with a stream, so
// the three read the same corpus and draw from the same generators.
package trial
