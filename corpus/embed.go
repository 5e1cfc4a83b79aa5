// Package corpus is the suite's scenarios (*.scn), built into the module so
// that a sealfuzz installed alone (go install .../cmd/sealfuzz@VERSION) runs
// them from any folder, with no clone beside it. The folders stay the
// source of truth: tests and `sealfuzz test -corpus DIR` read them in place.
package corpus

import (
	"embed"
	"io/fs"
)

// Every scenario folder; TestEmbedsEveryScenario fails when a new folder
// with scenarios is missing here.
//
//go:embed evidence grammar peers seed spec wire zoo
var files embed.FS

// FS is the corpus, each file at its path under corpus/ ("seed/x.scn").
func FS() fs.FS { return files }
