package campaign

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"

	"github.com/sealgate/sealgate"
	"github.com/sealgate/sealgate/check"
	"github.com/sealgate/sealgate/internal/fuzzkit"
	"github.com/sealgate/sealgate/internal/fuzztarget"
	"github.com/sealgate/sealgate/internal/gen"
	"github.com/sealgate/sealgate/internal/machine"
	"github.com/sealgate/sealgate/internal/reduce"
	"github.com/sealgate/sealgate/internal/zoo"
	"github.com/sealgate/sealgate/scn"
)

// libFuzzerRE matches the name of an input libFuzzer wrote (a crash, a
// timeout...), after an artifact prefix that may name the target
// (.ci/cflite-local writes TARGET-crash-SHA1).
var libFuzzerRE = regexp.MustCompile(`^(?:(Fuzz[A-Za-z0-9]+)-)?(?:crash|timeout|oom|leak|slow-unit)-[0-9a-f]{40}$`)

// LoadFailure reads a failing scenario: a .scn file, an input that go
// fuzz wrote under testdata/fuzz/TARGET/ (the target is the folder's name),
// or a libFuzzer input of target libTarget (when empty, the target its
// name gives, for a libFuzzer artifact). chk replays FuzzGateVsModel's
// machine reading (see FuzzScenario).
func LoadFailure(path, libTarget string, chk *check.Checker) (sealgate.Config, []sealgate.Event, error) {
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
		cfg, evs, err := FuzzScenario(libTarget, args, chk)
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
		cfg, evs, err := FuzzScenario(target, args, chk)
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

// FuzzScenario turns the arguments of one of the suite's fuzz targets into
// a scenario. FuzzGateVsModel's machine reading is one run of the state
// machine, which machine.Replay plays again with chk's gate, up to the
// first step that fails (the whole run if none does); the other readings
// and targets fuzztarget.FromFuzzArgs decodes.
func FuzzScenario(target string, args []any, chk *check.Checker) (sealgate.Config, []sealgate.Event, error) {
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

// GenericSeed finds the input of a failing seed that go fuzz reports on
// line, when it is one of FuzzGateVsModel's generic seeds (fuzzkit.Seeds(n),
// which the target adds first; n is what SEALGATE_FUZZ_SEED said). Other
// seeds (corpus files, testdata/fuzz files) are not found.
func GenericSeed(line string, n int64) (target, name string, input []byte, ok bool) {
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

// FuzzFile is an input in go fuzz's corpus file format, for a target of one
// []byte argument.
func FuzzFile(input []byte) []byte {
	return []byte(fmt.Sprintf("go test fuzz v1\n[]byte(%q)\n", input))
}

// ReduceFile reduces a failing input and renders the result as .scn text.
func ReduceFile(path, libTarget string) ([]byte, *reduce.Result, error) {
	chk, err := zoo.FromEnv()
	if err != nil {
		return nil, nil, err
	}
	cfg, evs, err := LoadFailure(path, libTarget, chk)
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
