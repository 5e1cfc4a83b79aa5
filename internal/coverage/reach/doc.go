// Package reach finds the exported functions and methods of a package that
// a set of tests never executes. The functions are read from the source
// (go/ast), the executions from go test coverage profiles, so a new entry
// point is checked the day it is written, with no list to keep.
//
// The suite runs it over gate and wire with the fixed-input layers (tests
// whose inputs are written down or drawn from pinned seeds): an entry point
// that only random search reaches is one whose regression a run may miss.
// docs/suite.md says which layers count and why.
package reach
