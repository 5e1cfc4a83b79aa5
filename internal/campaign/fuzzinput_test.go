package campaign

import (
	"bytes"
	"crypto/sha1"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/sealgate/sealgate/internal/fuzzkit"
	"github.com/sealgate/sealgate/internal/gen"
	"github.com/sealgate/sealgate/internal/reduce"
	"github.com/sealgate/sealgate/internal/zoo"
)

// TestMachineInputReduces: a failing input of FuzzGateVsModel's machine
// reading, as go fuzz reports a failing generic seed (no file) and as it
// writes a found input under testdata/fuzz, is replayed into its events
// and reduced like any other failure.
func TestMachineInputReduces(t *testing.T) {
	chk := zoo.ReleaseAtEnd.Checker()
	dir := filepath.Join(t.TempDir(), "FuzzGateVsModel")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	for i, in := range fuzzkit.Seeds(0) {
		if gen.ReadingOf(in) != gen.Machine {
			continue
		}
		target, name, input, ok := GenericSeed(fmt.Sprintf("failure while testing seed corpus entry: FuzzGateVsModel/seed#%d", i), 0)
		if !ok || target != "FuzzGateVsModel" || name != fmt.Sprintf("seed#%d", i) || !bytes.Equal(input, in) {
			t.Fatalf("seed#%d: GenericSeed = %q, %q, %d bytes, %v", i, target, name, len(input), ok)
		}
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, FuzzFile(input), 0o644); err != nil {
			t.Fatal(err)
		}
		cfg, evs, err := LoadFailure(path, "", chk)
		if err != nil {
			t.Fatal(err)
		}
		if chk.All(cfg, evs) == nil {
			continue // this seed's run does not show the bug
		}
		res, err := reduce.Reduce(cfg, evs, chk.All, reduce.Options{})
		if err != nil {
			t.Fatal(err)
		}
		if len(res.Events) > 6 {
			t.Errorf("reduced to %d events, want at most 6:\n%s", len(res.Events), reduce.Text(res.Config, res.Events, res.Err))
		}
		return
	}
	t.Fatal("no machine-reading seed catches release-at-end")
}

func TestGenericSeedOnlyGeneric(t *testing.T) {
	n := len(fuzzkit.Seeds(0))
	for _, line := range []string{
		fmt.Sprintf("failure while testing seed corpus entry: FuzzGateVsModel/seed#%d", n),
		"failure while testing seed corpus entry: FuzzChunking/seed#0",
		"failure while testing seed corpus entry: FuzzGateVsModel/0fa9d68f9ffe16a9",
		"fuzz: elapsed: 3s, execs: 507 (169/sec), new interesting: 39 (total: 81)",
	} {
		if _, _, _, ok := GenericSeed(line, 0); ok {
			t.Errorf("%q: taken for a generic seed", line)
		}
	}
}

// TestLibFuzzerInputLoads: an input of the libFuzzer build (the shim's
// layout, as a crash file holds it) loads into the same scenario as the
// same arguments in go fuzz's file format, named by -target or by an
// artifact prefix, and a libFuzzer file of no named target is refused.
func TestLibFuzzerInputLoads(t *testing.T) {
	chk := zoo.ReleaseAtEnd.Checker()
	dir := t.TempDir()
	goDir := filepath.Join(dir, "FuzzGateVsModel")
	if err := os.MkdirAll(goDir, 0o755); err != nil {
		t.Fatal(err)
	}
	seeds := fuzzkit.Seeds(0)
	for i, in := range []([]byte){seeds[0], seeds[len(seeds)-1], seeds[10], append([]byte{1}, "open a turn=t\n----\n"...)} {
		goFile := filepath.Join(goDir, fmt.Sprintf("in%d", i))
		if err := os.WriteFile(goFile, FuzzFile(in), 0o644); err != nil {
			t.Fatal(err)
		}
		wantCfg, wantEvs, wantErr := LoadFailure(goFile, "", chk)
		lib, err := fuzzkit.Encode(in)
		if err != nil {
			t.Fatal(err)
		}
		sum := fmt.Sprintf("%x", sha1.Sum(lib))
		named := filepath.Join(dir, "FuzzGateVsModel-crash-"+sum)
		bare := filepath.Join(dir, "crash-"+sum)
		for _, p := range []string{named, bare} {
			if err := os.WriteFile(p, lib, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		for _, c := range []struct{ path, target string }{{named, ""}, {bare, "FuzzGateVsModel"}} {
			cfg, evs, err := LoadFailure(c.path, c.target, chk)
			if (err == nil) != (wantErr == nil) || !reflect.DeepEqual(cfg, wantCfg) || !reflect.DeepEqual(evs, wantEvs) {
				t.Fatalf("input %d from %s: %d events (%v), want %d (%v)", i, filepath.Base(c.path), len(evs), err, len(wantEvs), wantErr)
			}
		}
		if _, _, err := LoadFailure(bare, "", chk); err == nil {
			t.Fatalf("%s loaded without a target", bare)
		}
	}
}
