// Package check is the checking core of the suite: it runs one
// (configuration, events) pair through the real gate and the reference
// model and says, as an error value, what disagrees. It imports neither
// testing nor rapid, so go fuzz, rapid, the sealfuzz campaign and
// libFuzzer-style harnesses all call the same code.
package check
