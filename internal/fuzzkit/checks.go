package fuzzkit

import (
	"flag"
	"os"
)

// ChecksEnv, set to "full", makes every fuzz body run every check on every
// input, as plain go test and the corpus replay always do. Without it a
// body that is fuzzing may run its costliest checks on a sample of inputs
// (check.Checker.Sample); a campaign re-runs each new corpus entry with
// SEALGATE_CHECKS=full, so every input that added coverage is judged by
// every check.
const ChecksEnv = "SEALGATE_CHECKS"

// FullChecks reports whether ChecksEnv asks for every check.
func FullChecks() bool { return os.Getenv(ChecksEnv) == "full" }

// GoFuzzWorker reports whether this process is a go test -fuzz worker: the
// processes that run the fuzzing inputs (the cached corpus's baseline and
// new inputs). The seed corpus that go test runs before fuzzing, and plain
// go test, run in the main process, where this is false.
func GoFuzzWorker() bool {
	f := flag.Lookup("test.fuzzworker")
	return f != nil && f.Value.String() == "true"
}
