package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sealgate/sealgate/internal/coverage/reach"
)

// TestReachCommand runs sealfuzz reach on gate and wire against profiles
// written here from their own source: one block per exported function,
// all executed, passes; the same with one count at 0 fails, naming that
// function by file:line; a profile over another package is an error.
func TestReachCommand(t *testing.T) {
	var funcs []reach.Func
	for _, d := range []string{"gate", "wire"} {
		fs, err := reach.Exported(reach.Package{Dir: filepath.Join("..", "..", d), ImportPath: "github.com/sealgate/sealgate/" + d, Show: d})
		if err != nil {
			t.Fatal(err)
		}
		funcs = append(funcs, fs...)
	}
	if len(funcs) < 20 {
		t.Fatalf("only %d exported functions in gate and wire", len(funcs))
	}
	dir := t.TempDir()
	profile := func(name string, zero int) string {
		var b strings.Builder
		b.WriteString("mode: set\n")
		for i, f := range funcs {
			count := 1
			if i == zero {
				count = 0
			}
			fmt.Fprintf(&b, "%s:%d.%d,%d.%d 1 %d\n", f.File, f.From.Line, f.From.Col, f.To.Line, f.To.Col-1, count)
		}
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	var out, errb bytes.Buffer
	if code := run([]string{"reach", "-profile", profile("all.cover", -1)}, &out, &errb); code != 0 {
		t.Fatalf("every function executed: exit %d\n%s%s", code, out.String(), errb.String())
	}
	if want := fmt.Sprintf("reach: 0 of %d never executed\n", len(funcs)); !strings.HasSuffix(out.String(), want) {
		t.Fatalf("output %q lacks %q", out.String(), want)
	}
	last := funcs[len(funcs)-1]
	out.Reset()
	if code := run([]string{"reach", "-profile", profile("one.cover", len(funcs)-1)}, &out, &errb); code != 1 {
		t.Fatalf("one function not executed: exit %d\n%s", code, out.String())
	}
	if want := last.Pos + ": " + last.Name + " is never executed\n"; !strings.Contains(out.String(), want) {
		t.Fatalf("output %q lacks %q", out.String(), want)
	}
	out.Reset()
	if code := run([]string{"reach", "-profile", profile("all.cover", -1), "guard"}, &out, &errb); code != 2 || !strings.Contains(errb.String(), "no block in the body") {
		t.Fatalf("guard against a gate and wire profile: exit %d, stderr %q", code, errb.String())
	}
	errb.Reset()
	if code := run([]string{"reach", "-h"}, &out, &errb); code != 0 {
		t.Fatalf("reach -h: exit %d", code)
	}
	if _, ok := flagEntries(out.String())["profile"]; !ok {
		t.Errorf("reach -h does not list -profile")
	}
}
