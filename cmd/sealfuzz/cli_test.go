package main

import (
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/sealgate/sealgate/internal/zoo"
)

// TestSubcommandHelp: every command's -h exits 0 and lists each of its
// flags with a default, zero defaults included.
func TestSubcommandHelp(t *testing.T) {
	for _, tc := range []struct {
		args  []string
		flags []string
	}{
		{[]string{"-h"}, []string{"for", "slice", "targets", "workers", "dir", "minimize", "regress", "stop", "fixed", "cache"}},
		{[]string{"help"}, []string{"for", "stop"}},
		{[]string{"replay", "-h"}, []string{"print", "model", "update", "wire", "config"}},
		{[]string{"reduce", "-h"}, []string{"o", "target"}},
		{[]string{"power", "-h"}, []string{"seeds", "checks", "fuzz-cap", "fuzz-minimize", "fuzz-seeds", "techniques", "bugs", "out", "note"}},
		{[]string{"help", "power"}, []string{"seeds", "note"}},
		{[]string{"shared", "-h"}, nil},
		{[]string{"test", "-h"}, []string{"gate", "for", "timeout", "corpus", "checks", "machine-for", "seed", "reduce-tries", "streams", "workers", "o", "cpuprofile"}},
		{[]string{"throughput", "-h"}, []string{"n", "corpus", "zoo"}},
		{[]string{"peers", "-h"}, []string{"for", "seed", "machine", "corpus", "out", "bodies", "tries", "peers", "replay", "list"}},
	} {
		var out, errb bytes.Buffer
		if code := run(tc.args, &out, &errb); code != 0 {
			t.Errorf("%v: exit %d, want 0; stderr %s", tc.args, code, errb.String())
			continue
		}
		help := out.String()
		entries := flagEntries(help)
		for _, f := range tc.flags {
			text, ok := entries[f]
			if !ok {
				t.Errorf("%v: flag -%s not listed:\n%s", tc.args, f, help)
			} else if !strings.Contains(text, "(default") {
				t.Errorf("%v: flag -%s has no default: %q", tc.args, f, text)
			}
		}
		if len(tc.flags) > 2 && len(entries) != len(tc.flags) {
			t.Errorf("%v: %d flags listed, want %d:\n%s", tc.args, len(entries), len(tc.flags), help)
		}
	}
	var out, errb bytes.Buffer
	if code := run([]string{"replay", "-nosuch"}, &out, &errb); code != 2 || !strings.Contains(errb.String(), "-update") {
		t.Errorf("a bad flag: exit %d, stderr %q; want 2 and replay's help", code, errb.String())
	}
}

var flagLine = regexp.MustCompile(`^  -(\S+)`)

// flagEntries maps each flag of a help text to its description.
func flagEntries(help string) map[string]string {
	m := map[string]string{}
	name := ""
	for _, l := range strings.Split(help, "\n") {
		if f := flagLine.FindStringSubmatch(l); f != nil {
			name = f[1]
			m[name] = ""
		} else if name != "" && strings.HasPrefix(l, "    \t") {
			m[name] += l
		} else {
			name = ""
		}
	}
	return m
}

// lossyScenario is caught by the zoo bug release-when-parses: the text
// parses, the connection drops, and only the broken gate releases it.
const lossyScenario = `tool save_file {"type":"object"}
open r1 turn=t1
begin r1 item=0 call=call_1 tool=save_file
delta r1 item=0 "{\"path\":\"notes.md\"}"
close r1 status=disconnected
----
@4 reject r1 item=0 reason=turn-disconnected
`

// TestReplayHonoursFaults: replay plants SEALGATE_FAULTS's bug as reduce
// does, so a reduced file shows the planted bug's diff.
func TestReplayHonoursFaults(t *testing.T) {
	file := filepath.Join(t.TempDir(), "mine.scn")
	if err := os.WriteFile(file, []byte(lossyScenario), 0o644); err != nil {
		t.Fatal(err)
	}
	var out, errb bytes.Buffer
	if code := run([]string{"replay", file}, &out, &errb); code != 0 {
		t.Fatalf("the correct gate: exit %d\n%s%s", code, out.String(), errb.String())
	}
	t.Setenv(zoo.FaultsEnv, "release-when-parses")
	out.Reset()
	errb.Reset()
	if code := run([]string{"replay", file}, &out, &errb); code != 1 || !strings.Contains(out.String(), "FAIL") ||
		!strings.Contains(out.String(), "gate and model disagree") {
		t.Errorf("with the bug planted: exit %d, want 1 and the diff:\n%s", code, out.String())
	}
	if !strings.Contains(errb.String(), "release-when-parses") {
		t.Errorf("replay does not say which bug is planted: %q", errb.String())
	}
	if code := run([]string{"replay", "-update", file}, &out, &errb); code != 2 {
		t.Errorf("-update with a planted bug: exit %d, want 2 (refused)", code)
	}
	t.Setenv(zoo.FaultsEnv, "no-such-bug")
	errb.Reset()
	if code := run([]string{"replay", file}, &out, &errb); code != 2 || !strings.Contains(errb.String(), "no such bug") {
		t.Errorf("an unknown bug: exit %d, stderr %q", code, errb.String())
	}
	errb.Reset()
	if code := run([]string{"-for", "1s"}, &out, &errb); code != 2 || !strings.Contains(errb.String(), "no such bug") {
		t.Errorf("the campaign with an unknown bug: exit %d, stderr %q; want it refused before building", code, errb.String())
	}
}

// TestSharedNotice: without ../shared one line names what is skipped and
// how to get it; CI=true makes it fatal; the variables point elsewhere.
func TestSharedNotice(t *testing.T) {
	root := filepath.Join(t.TempDir(), "sealgate")
	if err := os.MkdirAll(root, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, "go.mod"), []byte("module example.com/m\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Setenv("SEALGATE_JSONTESTSUITE", "")
	t.Setenv("SEALGATE_VENDOR_FIXTURES", "")
	t.Chdir(root)
	t.Setenv("CI", "")
	var out, errb bytes.Buffer
	if !sharedNotice(&out, &errb) {
		t.Fatal("outside CI a missing ../shared stopped the run")
	}
	line := out.String()
	for _, want := range []string{"JSONTestSuite", "vendor captures", "TestSealTextJSONTestSuite", "TestVendorCorpus", "TestModuleProxy", "../shared", "SEALGATE_JSONTESTSUITE", "SEALGATE_VENDOR_FIXTURES"} {
		if !strings.Contains(line, want) {
			t.Errorf("the notice lacks %q: %s", want, line)
		}
	}
	if strings.Count(line, "\n") != 1 {
		t.Errorf("the notice is not one line: %q", line)
	}
	t.Setenv("CI", "true")
	out.Reset()
	if sharedNotice(&out, &errb) || !strings.Contains(errb.String(), "CI=true") {
		t.Errorf("in CI a missing ../shared did not stop the run: %q", errb.String())
	}
	if code := run([]string{"shared"}, &out, &errb); code != 1 {
		t.Errorf("sealfuzz shared in CI without ../shared: exit %d, want 1", code)
	}
	t.Setenv("SEALGATE_JSONTESTSUITE", root)
	t.Setenv("SEALGATE_VENDOR_FIXTURES", root)
	out.Reset()
	if !sharedNotice(&out, &errb) || out.Len() != 0 {
		t.Errorf("with both found elsewhere: %q", out.String())
	}
}

// TestDocListsCommands: the package doc's overview is the table's, so that
// go doc shows every command; and every command answers -h.
func TestDocListsCommands(t *testing.T) {
	src, err := os.ReadFile("doc.go")
	if err != nil {
		t.Fatal(err)
	}
	var doc strings.Builder
	for _, l := range strings.Split(string(src), "\n") {
		if rest, ok := strings.CutPrefix(l, "//\t"); ok {
			doc.WriteString("  " + rest + "\n")
		}
	}
	over := usage()
	want := over[strings.Index(over, "\n")+1 : strings.Index(over, "\n\n")+1]
	if doc.String() != want {
		t.Errorf("doc.go's overview differs from the table's:\n%s\nwant:\n%s", doc.String(), want)
	}
	for _, c := range commands {
		if c.name == "" {
			continue
		}
		var out, errb bytes.Buffer
		if code := run([]string{c.name, "-h"}, &out, &errb); code != 0 || !strings.Contains(out.String(), "sealfuzz "+c.name) {
			t.Errorf("%s -h: exit %d, help %q", c.name, code, out.String())
		}
	}
}
