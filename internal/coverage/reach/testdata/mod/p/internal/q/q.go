// Package q holds a type p re-exports by an alias.
package q

// V is re-exported as p.W.
type V struct{}

// Shown is executed, through p.W.
func (V) Shown() string { return "v" }

// Hidden is never executed.
func (V) Hidden() {}

func (V) unexported() {}

// U is not re-exported: its methods are not p's.
type U struct{}

// Other is not p's, and never executed.
func (U) Other() {}
