// Command sealfuzz is the suite's front door: the fuzzing campaign, and the
// commands that replay, reduce and measure.
//
// Usage:
//
//	sealfuzz [flags]                 the fuzzing campaign (the main job); failures are
//	                                 reduced into corpus/regress/CHECK.scn
//	sealfuzz replay [flags] PATH...  replay .scn files (folders are searched for *.scn)
//	sealfuzz reduce [flags] FILE     reduce a failing .scn, testdata/fuzz or libFuzzer input
//	sealfuzz power [flags]           measure how fast each technique finds each zoo bug;
//	                                 writes docs/research/power/power.md and power.png
//	sealfuzz shared                  say which tests skip for want of ../shared
//	sealfuzz test -gate 'CMD ARGS'   check a gate process that speaks the stdio protocol
//	                                 (docs/protocol.md) with every check that applies
//	sealfuzz peers [flags]           the official SDKs' tool-call idioms under the suite;
//	                                 writes docs/research/peers/
//	sealfuzz coverage [flags]        the share of SPEC feature pairs each generator reaches
//	sealfuzz reach [flags] [DIR...]  fail when the fixed-input tests never execute an exported
//	                                 function of gate or wire (or of DIR...)
//	sealfuzz exhaust [flags]         check every event sequence up to -events long over a
//	                                 small alphabet (docs/research/exhaust.md); -zoo: per zoo bug
//	sealfuzz throughput [flags]      execs per CPU-second of the fuzz bodies, and where
//	                                 one exec's checking time goes
//
// Each command's -h lists its flags with their defaults; `sealfuzz help CMD`
// is the same. SEALGATE_FAULTS=BUG plants a zoo bug in the gate for the
// campaign, replay and reduce.
//
// Each command is one value of the table in main.go; its logic lives in the
// package it belongs to (internal/campaign, internal/replay,
// internal/coverage, internal/coverage/reach, internal/exhaust,
// internal/throughput), and its file here holds its flags and one call.
package main
