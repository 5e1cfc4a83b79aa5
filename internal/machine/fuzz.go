package machine

import (
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"

	"pgregory.net/rapid"

	"github.com/sealgate/sealgate/check"
)

// The machine under go fuzz: FuzzGateVsModel's machine reading hands the
// fuzzer's bytes to rapid.MakeFuzz(Fuzz(chk)), which uses them as
// rapid's bitstream, so every input the fuzzer mutates is one coherent run
// of the state machine, checked when it is over. rapid reads the bytes
// eight at a time, as little-endian words (the last one zero-padded), one
// word per draw; when they run out before the run ends, the steps completed
// are checked and rapid skips the input.
//
// Replay runs the same machine on the same bytes outside go test, so that
// a failing input go fuzz wrote under testdata/fuzz can be turned back
// into its events and reduced. rapid.MakeFuzz needs a *testing.T, which
// only go test makes; the one other way rapid takes a given bitstream is
// its fail file (-rapid.failfile, the way rapid reproduces a failure), so
// Replay writes the words to a temporary fail file and runs rapid.Check
// on it. Both ways draw the same values from the same words, under the
// same -rapid.steps (rapid's default, 30, unless RAPID_STEPS says
// otherwise) and -short (off outside go test).

// failFileVersion is the format tag of rapid v1.3.0's fail files (its
// unexported rapidVersion); rapid ignores a fail file with another tag,
// which Replay reports (TestReplayMatchesMakeFuzz notices an upgrade).
const failFileVersion = "v0.4.8"

// ErrNoConfig is Replay's answer when the bits run out before the machine
// has a configuration: an input with nothing to check, which a fuzz
// target skips.
var ErrNoConfig = errors.New("the bits ran out before the machine had a configuration")

// Replay runs the state machine once on bits, a rapid bitstream as
// rapid.MakeFuzz reads a fuzz input, and checks it with chk as Fuzz does.
// The result holds the configuration and the events checked: the whole
// run, or the steps completed before the bits ran out; Err says why they
// fail, or is nil. A run that fails outside the checks (a panic in the
// gate, say) has rapid's report in Err.
func Replay(chk *check.Checker, bits []byte) (*Failure, error) {
	huntMu.Lock()
	defer huntMu.Unlock()
	initFlags()
	file, err := os.CreateTemp("", "sealgate-replay-*.fail")
	if err != nil {
		return nil, err
	}
	defer os.Remove(file.Name())
	// Up to 19 bytes a word ("0x" and 16 hex digits, a newline), written
	// with strconv: an input of 32 KiB is 4096 words.
	b := make([]byte, 0, 64+19*((len(bits)+7)/8))
	b = fmt.Appendf(b, "# FuzzGateVsModel machine reading, %d bytes\n%s#0\n", len(bits), failFileVersion)
	for len(bits) > 0 {
		var w [8]byte
		n := copy(w[:], bits)
		bits = bits[n:]
		b = append(strconv.AppendUint(append(b, "0x"...), binary.LittleEndian.Uint64(w[:]), 16), '\n')
	}
	if _, err := file.Write(b); err != nil {
		file.Close()
		return nil, err
	}
	if err := file.Close(); err != nil {
		return nil, err
	}
	// No random runs after the fail file (checks 0), no fail file written.
	restore, err := setFlags(map[string]string{
		"rapid.failfile": file.Name(), "rapid.checks": "0", "rapid.nofailfile": "true", "rapid.shrinktime": "1ns",
	})
	if err != nil {
		return nil, err
	}
	defer restore()
	var failed, seen Failure
	rec := &Recorder{}
	rapid.Check(rec, run(chk, &failed, &seen, fuzzed))
	switch log := strings.TrimSpace(rec.Out.String()); {
	case failed.Err != nil:
		return &failed, nil
	case strings.Contains(log, "ignoring fail file"):
		return nil, errors.New("rapid did not replay the bitstream: " + log)
	case seen.Config.Tools == nil:
		return nil, ErrNoConfig
	}
	out := &Failure{Config: seen.Config, Events: append(seen.Events[:0:0], seen.Events...)}
	if rec.Failed() {
		// Not a check: a panic (in the gate, say) or rapid giving up.
		out.Err = errors.New(rapidFailure(rec.Out.String()))
	}
	return out, nil
}

// rapidFailure picks rapid's report of a failure out of its log.
func rapidFailure(log string) string {
	for _, l := range strings.Split(log, "\n") {
		if strings.HasPrefix(l, "[rapid] failed") || strings.HasPrefix(l, "[rapid] panic") || strings.HasPrefix(l, "[rapid] flaky") {
			return l
		}
	}
	return "rapid failed: " + strings.TrimSpace(log)
}
