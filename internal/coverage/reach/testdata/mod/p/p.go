// Package p is reach's fixture: exported functions and methods of every
// shape, some executed by its test and some not.
package p

import "example.com/reachfix/p/internal/q"

// W re-exports q.V: its exported methods are p's.
type W = q.V

// F is executed by the test.
func F() int { return 1 }

// G is never executed.
func G() int {
	if F() > 1 {
		return 3
	}
	return 2
}

// T is an exported type.
type T struct{}

// M is executed, though its body is empty.
func (T) M() {}

// N is never executed.
func (*T) N() {
}

type u struct{}

// Load is an exported method of an unexported type, never executed.
func (u) Load() {}

func helper() int { return 4 }

// S is generic.
type S[K comparable] struct{}

// Get is executed.
func (S[K]) Get() int { return helper() }

// H runs only its first statement in the test.
func H(b bool) int {
	if b {
		return 1
	}
	return 0
}
