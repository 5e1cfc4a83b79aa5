//go:build ignore

package p

// Ignored is in a file that never builds.
func Ignored() {}
