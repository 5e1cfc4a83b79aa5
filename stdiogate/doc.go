// Package stdiogate puts a gate in any language under the suite: a JSON
// Lines protocol on the gate's stdin and stdout (docs/protocol.md), a
// Client that runs such a gate as a check.Subject, and Serve, which puts a
// Go gate (a Backend, such as Control, the project's own) behind the
// protocol. The lines themselves are encoded and decoded in one internal
// package, so the client and Serve cannot drift apart.
package stdiogate
