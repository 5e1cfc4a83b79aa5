// Package check is the checking core of the suite: it runs one
// (configuration, events) pair through a gate under test (a Subject: the
// real gate by default, a gate process, an SDK idiom) and the reference
// model, and says, as an error value, what disagrees, holding each subject
// only to the Capabilities it claims. It imports neither testing nor
// rapid, so go fuzz, rapid, the sealfuzz commands and libFuzzer-style
// harnesses all call the same code.
package check
