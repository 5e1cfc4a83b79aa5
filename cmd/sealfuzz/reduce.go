package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"

	"github.com/sealgate/sealgate"
	"github.com/sealgate/sealgate/check"
	"github.com/sealgate/sealgate/internal/fuzztarget"
	"github.com/sealgate/sealgate/internal/fuzzkit"
	"github.com/sealgate/sealgate/internal/gen"
	"github.com/sealgate/sealgate/internal/machine"
	"github.com/sealgate/sealgate/internal/reduce"
	"github.com/sealgate/sealgate/scn"
	"github.com/sealgate/sealgate/internal/zoo"
)

// libFuzzerRE matches the name of an input libFuzzer wrote (a crash, a
// timeout...), after an artifact prefix that may name the target
// (.ci/cflite-local writes TARGET-crash-SHA1).
var libFuzzerRE = regexp.MustCompile(`^(?:(Fuzz[A-Za-z0-9]+)-)?(?:crash|timeout|oom|leak|slow-unit)-[0-9a-f]{40}$`)

// loadFailure reads a failing scenario: a .scn file, an input that go
// fuzz wrote under testdata/fuzz/TARGET/ (the target is the folder's name),
// or a libFuzzer input of target libTarget (when empty, the target its
// name gives, for a libFuzzer artifact). chk replays FuzzGateVsModel's
// machine reading (see fuzzScenario).
func loadFailure(path, libTarget string, chk *check.Checker) (sealgate.Config, []sealgate.Event, error) {
	src, err := os.ReadFile(path)
	if err != nil {
		return sealgate.Config{}, nil, err
	}
	if m := libFuzzerRE.FindStringSubmatch(filepath.Base(path)); libTarget == "" && m != nil {
		if libTarget = m[1]; libTarget == "" {
			return sealgate.Config{}, nil, fmt.Errorf("%s: a libFuzzer input of no named target; say which with -target", path)
		}
	}
	if libTarget != "" {
		args, err := fuzztarget.LibFuzzerArgs(libTarget, src)
		if err != nil {
			return sealgate.Config{}, nil, fmt.Errorf("%s: %v", path, err)
		}
		cfg, evs, err := fuzzScenario(libTarget, args, chk)
		if err != nil {
			return cfg, nil, fmt.Errorf("%s: %v; rerun it with the libFuzzer binary %s", path, err, libTarget)
		}
		return cfg, evs, nil
	}
	if strings.HasPrefix(string(src), "go test fuzz v1") {
		args, err := fuzzkit.ParseFuzzFile(src)
		if err != nil {
			return sealgate.Config{}, nil, fmt.Errorf("%s: %v", path, err)
		}
		target := filepath.Base(filepath.Dir(path))
		cfg, evs, err := fuzzScenario(target, args, chk)
		if err != nil {
			return cfg, nil, fmt.Errorf("%s: %v; rerun it with go test -run=%s/%s", path, err, target, filepath.Base(path))
		}
		return cfg, evs, nil
	}
	s, err := scn.Parse(path, src)
	if err != nil {
		return sealgate.Config{}, nil, err
	}
	cfg, err := s.Config()
	if err != nil {
		return cfg, nil, fmt.Errorf("%s: the configuration is refused (%v); nothing to reduce", path, err)
	}
	return cfg, s.Events, nil
}

// fuzzScenario turns the arguments of one of the suite's fuzz targets into
// a scenario. FuzzGateVsModel's machine reading is one run of the state
// machine, which machine.Replay plays again with chk's gate, up to the
// first step that fails (the whole run if none does); the other readings
// and targets fuzztarget.FromFuzzArgs decodes.
func fuzzScenario(target string, args []any, chk *check.Checker) (sealgate.Config, []sealgate.Event, error) {
	if target == "FuzzGateVsModel" && len(args) == 1 {
		if b, ok := args[0].([]byte); ok && gen.ReadingOf(b) == gen.Machine {
			f, err := machine.Replay(chk, b[1:])
			if err != nil {
				return sealgate.Config{}, nil, err
			}
			return f.Config, f.Events, nil
		}
	}
	cfg, evs, ok := fuzztarget.FromFuzzArgs(target, args)
	if !ok {
		return cfg, nil, fmt.Errorf("not a gate scenario (target %q)", target)
	}
	return cfg, evs, nil
}

// seedRE matches go fuzz's report of a seed input that fails while it
// gathers its baseline (no file is written for a seed).
var seedRE = regexp.MustCompile(`failure while testing seed corpus entry: (\S+)/seed#(\d+)$`)

// genericSeed finds the input of a failing seed that go fuzz reports on
// line, when it is one of FuzzGateVsModel's generic seeds (fuzzkit.Seeds(n),
// which the target adds first; n is what SEALGATE_FUZZ_SEED said). Other
// seeds (corpus files, testdata/fuzz files) are not found.
func genericSeed(line string, n int64) (target, name string, input []byte, ok bool) {
	m := seedRE.FindStringSubmatch(strings.TrimSpace(line))
	if m == nil || m[1] != "FuzzGateVsModel" {
		return "", "", nil, false
	}
	i, err := strconv.Atoi(m[2])
	seeds := fuzzkit.Seeds(n)
	if err != nil || i >= len(seeds) {
		return "", "", nil, false
	}
	return m[1], "seed#" + m[2], seeds[i], true
}

// fuzzFile is an input in go fuzz's corpus file format, for a target of one
// []byte argument.
func fuzzFile(input []byte) []byte {
	return []byte(fmt.Sprintf("go test fuzz v1\n[]byte(%q)\n", input))
}

// reduceFile reduces a failing input and renders the result as .scn text.
func reduceFile(path, libTarget string) ([]byte, *reduce.Result, error) {
	chk, err := zoo.FromEnv()
	if err != nil {
		return nil, nil, err
	}
	cfg, evs, err := loadFailure(path, libTarget, chk)
	if err != nil {
		return nil, nil, err
	}
	res, err := reduce.Reduce(cfg, evs, chk.All, reduce.Options{})
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %v", path, err)
	}
	out, err := reduce.Scenario(res.Config, res.Events, res.Err)
	return out, res, err
}

func reduceMain(args []string, stdout, stderr io.Writer) int {
	fs := newFlagSet("reduce", `usage: sealfuzz reduce [flags] FILE

Shrinks a failing input (a .scn file, a go fuzz input under
testdata/fuzz/TARGET/, or a libFuzzer input: -target, or a file named
TARGET-crash-SHA1) to a short scenario that fails the same check.
SEALGATE_FAULTS=BUG reduces against the gate with that zoo bug planted.
`, stderr)
	out := fs.String("o", "", "write the reduced scenario here instead of standard output")
	target := fs.String("target", "", "FILE is an input of this target's libFuzzer binary (a crash file of .clusterfuzzlite/build.sh's FuzzGateVsModel, say)")
	if done, code := parseFlags(fs, args, stdout, stderr); done {
		return code
	}
	if fs.NArg() != 1 {
		fmt.Fprintf(stderr, "sealfuzz reduce: want one FILE\n%s", usage)
		return 2
	}
	text, res, err := reduceFile(fs.Arg(0), *target)
	if err != nil {
		fmt.Fprintf(stderr, "sealfuzz reduce: %v\n", err)
		return 1
	}
	fmt.Fprintf(stderr, "reduced to %d events in %d tries: %v\n", len(res.Events), res.Tries, res.Err)
	if *out == "" {
		stdout.Write(text)
		return 0
	}
	if err := os.WriteFile(*out, text, 0o644); err != nil {
		fmt.Fprintf(stderr, "sealfuzz reduce: %v\n", err)
		return 1
	}
	return 0
}

// collect moves a crasher out of testdata/fuzz (so the target can keep
// fuzzing: go fuzz replays testdata first and would stop on it again),
// reduces it, and saves one scenario per failing check in c.regress. why,
// when not empty, is added to the failure's note.
func (c *campaign) collect(target, dir, crasher, message, why string) {
	f := failure{target: target, input: crasher}
	defer func() {
		if why != "" {
			if f.note != "" {
				f.note += "; "
			}
			f.note += why
		}
		c.fails = append(c.fails, f)
	}()
	keep := filepath.Join(dir, ".sealfuzz", "crashers", filepath.Base(filepath.Dir(crasher)), filepath.Base(crasher))
	if err := os.MkdirAll(filepath.Dir(keep), 0o755); err == nil {
		if err := os.Rename(crasher, keep); err == nil {
			f.input = keep
		}
	}
	text, res, err := reduceFile(f.input, "")
	if err != nil {
		f.check = firstLine(message)
		f.note = "not reduced: " + err.Error()
		return
	}
	f.check = reduce.ID(res.Err)
	name := filepath.Join(c.regress, strings.ToLower(f.check)+".scn")
	if _, err := os.Stat(name); err == nil {
		f.note = "same check as " + name + " (kept the earlier one)"
		return
	} else if !errors.Is(err, os.ErrNotExist) {
		f.note = err.Error()
		return
	}
	if err := os.MkdirAll(c.regress, 0o755); err != nil {
		f.note = err.Error()
		return
	}
	if err := os.WriteFile(name, text, 0o644); err != nil {
		f.note = err.Error()
		return
	}
	f.regress = name
}

func firstLine(s string) string {
	for _, l := range strings.Split(s, "\n") {
		if l = strings.TrimSpace(l); l != "" && !strings.HasPrefix(l, "---") {
			return l
		}
	}
	return "failed"
}
