package fuzztarget

import (
	"fmt"
	"strings"
	"testing"

	"github.com/sealgate/sealgate/check"
	"github.com/sealgate/sealgate/internal/fuzzkit"
	"github.com/sealgate/sealgate/internal/gen"
	"github.com/sealgate/sealgate/internal/zoo"
)

// shimT fails as the libFuzzer shim's T does: Errorf and Fatalf panic.
type shimT struct{}

type failed string

func (shimT) Helper()                           {}
func (shimT) Errorf(format string, args ...any) { panic(failed(fmt.Sprintf(format, args...))) }
func (shimT) Fatalf(format string, args ...any) { panic(failed(fmt.Sprintf(format, args...))) }

// run calls body as a harness would and returns its failure, or "".
func run(body func(fuzzkit.TB)) (msg string) {
	defer func() {
		if r := recover(); r != nil {
			f, ok := r.(failed)
			if !ok {
				panic(r)
			}
			msg = string(f)
		}
	}()
	body(shimT{})
	return ""
}

// TestGateVsModelWithoutTestingT: the machine reading works without a
// *testing.T (ReplayMachine): the generic machine seeds pass on the real
// gate, one of them fails with release-at-end planted and prints a
// scenario to reduce, bits too few for a configuration are skipped, and
// every call is counted.
func TestGateVsModelWithoutTestingT(t *testing.T) {
	buggy := zoo.ReleaseAtEnd.Checker()
	before := fuzzkit.Count("FuzzGateVsModel")
	calls, caught := 0, ""
	for _, in := range fuzzkit.Seeds(0) {
		if gen.ReadingOf(in) != gen.Machine {
			continue
		}
		calls += 2
		if msg := run(func(tb fuzzkit.TB) { GateVsModel(tb, check.Default, ReplayMachine(check.Default), in) }); msg != "" {
			t.Fatalf("the real gate fails a generic seed: %s", msg)
		}
		if msg := run(func(tb fuzzkit.TB) { GateVsModel(tb, buggy, ReplayMachine(buggy), in) }); msg != "" && caught == "" {
			caught = msg
		}
	}
	if !strings.Contains(caught, "reduce with: go run ./cmd/sealfuzz reduce") || !strings.Contains(caught, "----") {
		t.Fatalf("release-at-end: no machine seed failed with a scenario; got %q", caught)
	}
	calls++
	if msg := run(func(tb fuzzkit.TB) { GateVsModel(tb, buggy, ReplayMachine(buggy), []byte{2}) }); msg != "" {
		t.Fatalf("an input without bits failed: %s", msg)
	}
	if got := fuzzkit.Count("FuzzGateVsModel") - before; got != int64(calls) {
		t.Fatalf("counted %d execs of %d", got, calls)
	}
}

// TestLibFuzzerArgs: a libFuzzer input reads back into the target's
// arguments; an unknown target and an input the shim would skip are errors.
func TestLibFuzzerArgs(t *testing.T) {
	in, err := fuzzkit.Encode([]byte(`{"a":1}`), []byte{3, 1}, uint8(9))
	if err != nil {
		t.Fatal(err)
	}
	args, err := LibFuzzerArgs("FuzzChunking", in)
	if err != nil || string(args[0].([]byte)) != `{"a":1}` || string(args[1].([]byte)) != "\x03\x01" || args[2].(uint8) != 9 {
		t.Fatalf("LibFuzzerArgs = %v, %v", args, err)
	}
	if _, err := LibFuzzerArgs("FuzzNothing", in); err == nil || !strings.Contains(err.Error(), "FuzzGateVsModel") {
		t.Fatalf("unknown target: %v, want an error listing the targets", err)
	}
	if _, err := LibFuzzerArgs("FuzzGateVsModel", []byte{0, 0}); err == nil || !strings.Contains(err.Error(), "skips") {
		t.Fatalf("short input: %v", err)
	}
}

// TestForFuzzingFullChecks: fuzzing samples the costliest checks, and
// SEALGATE_CHECKS=full turns the sampling off; the checker it starts from
// is left as it was.
func TestForFuzzingFullChecks(t *testing.T) {
	t.Setenv(fuzzkit.ChecksEnv, "")
	if got := ForFuzzing(check.Default); got.Sample != FuzzSample || check.Default.Sample != 0 {
		t.Fatalf("fuzzing: Sample %d (Default's %d), want %d (0)", got.Sample, check.Default.Sample, FuzzSample)
	}
	t.Setenv(fuzzkit.ChecksEnv, "full")
	if got := ForFuzzing(check.Default); got.Sample > 1 {
		t.Fatalf("with %s=full: Sample %d, want every check", fuzzkit.ChecksEnv, got.Sample)
	}
	if fuzzkit.GoFuzzWorker() {
		t.Fatal("plain go test taken for a go fuzz worker")
	}
}
