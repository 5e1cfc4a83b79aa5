// Package gen generates the suite's scenarios: configurations, argument
// documents and event streams, from fuzzer bytes (the gofuzz reading) or
// from rapid's draws (the state machine of package machine), so that go
// fuzz, the sealfuzz campaign, its reducer and the machine all grow the
// same shapes.
//
// Every generator takes its choices from a Chooser, so one generator
// serves every source of choices. Generation steers toward the stream
// shapes that matter (calls that grow real JSON documents in fragments,
// interleaved, cut, re-opened, restarted) rather than uniform noise, which
// would almost never reach a release.
//
// The files, one per role: chooser.go (where choices come from),
// fixed.go (the fixed configurations and documents), swarm.go (a run's
// generated features and configuration), schemas.go (the generated tools'
// schemas), documents.go (argument documents grown for a tool),
// writer.go (the JSON text writer, in a run's value shapes),
// validjson.go (strictly valid I-JSON objects), gofuzz.go (the gofuzz
// reading of fuzzer bytes), hidden.go (the shapes of the bug classes the
// generators once missed, which they are measured on) and rapiddraws.go (what the rapid machine
// draws for a run, a call's tool and its document).
package gen
