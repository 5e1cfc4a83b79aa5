package fuzztarget

import (
	"fmt"
	"sort"
	"strings"

	"github.com/sealgate/sealgate/internal/fuzzkit"
)

// argKinds are the argument kinds of the root targets' fuzz functions,
// for reading a libFuzzer input back into them.
var argKinds = map[string][]any{
	"FuzzGateVsModel":  {[]byte(nil)},
	"FuzzStrictJSON":   {[]byte(nil), uint8(0)},
	"FuzzChunking":     {[]byte(nil), []byte(nil), uint8(0)},
	"FuzzScenarioText": {[]byte(nil)},
}

// LibFuzzerArgs reads an input of target's libFuzzer binary (a crash file
// libFuzzer wrote, say: the raw bytes the shim decodes, not go fuzz's
// "go test fuzz v1" text) into the arguments the target's body was given.
func LibFuzzerArgs(target string, data []byte) ([]any, error) {
	kinds, ok := argKinds[target]
	if !ok {
		var names []string
		for n := range argKinds {
			names = append(names, n)
		}
		sort.Strings(names)
		return nil, fmt.Errorf("no libFuzzer target %q (have %s)", target, strings.Join(names, ", "))
	}
	args, ok, err := fuzzkit.Decode(data, kinds...)
	if err != nil {
		return nil, err
	}
	if !ok {
		return nil, fmt.Errorf("%d bytes are too few for %s's arguments: the libFuzzer shim skips this input", len(data), target)
	}
	return args, nil
}
