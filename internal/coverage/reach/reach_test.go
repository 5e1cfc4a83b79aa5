package reach

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const fixture = "testdata/mod"

// fixtureWant is what the fixture's test leaves unexecuted: a function, a
// pointer method with an empty body, an exported method of an unexported
// type, a method of a type p re-exports by an alias. F, M (empty body),
// the generic Get, H (partly run) and W.Shown are executed; helper and
// q's unexported method are not exported, Ignored does not build, and q.U
// is not re-exported.
const fixtureWant = `p/p.go:14: G is never executed
p/p.go:28: T.N is never executed
p/p.go:34: u.Load is never executed
p/internal/q/q.go:11: W.Hidden is never executed
reach: 4 of 9 never executed
`

func TestExportedReadsTheSource(t *testing.T) {
	fs, err := Exported(Package{Dir: filepath.Join(fixture, "p"), ImportPath: "example.com/reachfix/p", Show: "p"})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, f := range fs {
		got = append(got, f.Pos+" "+f.Name)
	}
	want := "p/p.go:11 F,p/p.go:14 G,p/p.go:25 T.M,p/p.go:28 T.N,p/p.go:34 u.Load,p/p.go:42 S.Get,p/p.go:45 H," +
		"p/internal/q/q.go:8 W.Shown,p/internal/q/q.go:11 W.Hidden"
	if strings.Join(got, ",") != want {
		t.Fatalf("got  %s\nwant %s", strings.Join(got, ","), want)
	}
	if fs[1].File != "example.com/reachfix/p/p.go" || fs[1].From != (Point{14, 14}) || fs[1].To != (Point{19, 2}) {
		t.Fatalf("G: %+v", fs[1])
	}
	if fs[8].File != "example.com/reachfix/p/internal/q/q.go" {
		t.Fatalf("W.Hidden: %+v", fs[8])
	}
}

// TestFixtureProfile: a profile in which four exported functions have no
// executed block fails the check, naming each by file:line.
func TestFixtureProfile(t *testing.T) {
	var out, log bytes.Buffer
	n, err := Command{Root: fixture, Dirs: []string{"p"}, Profiles: []string{"testdata/p.cover"}}.Run(&out, &log)
	if err != nil {
		t.Fatal(err)
	}
	if n != 4 || !strings.HasSuffix(out.String(), fixtureWant) {
		t.Fatalf("%d never executed:\n%s\nwant:\n%s", n, out.String(), fixtureWant)
	}
}

// TestProfilesAreUnited: a second profile that executes G takes it off the
// list; a block counts when any profile ran it.
func TestProfilesAreUnited(t *testing.T) {
	more := filepath.Join(t.TempDir(), "more.cover")
	os.WriteFile(more, []byte("mode: set\nexample.com/reachfix/p/p.go:14.14,15.13 1 1\n"), 0o644)
	var out bytes.Buffer
	n, err := Command{Root: fixture, Dirs: []string{"p"}, Profiles: []string{"testdata/p.cover", more}}.Run(&out, &out)
	if err != nil || n != 3 || strings.Contains(out.String(), " G is") {
		t.Fatalf("%d, %v:\n%s", n, err, out.String())
	}
}

// TestMeasureRunsTheLayers: without profiles the command runs its layers
// with go test, with coverage of q as well as p, and finds the same four.
func TestMeasureRunsTheLayers(t *testing.T) {
	if testing.Short() {
		t.Skip("runs go test in the fixture module")
	}
	var out, log bytes.Buffer
	n, err := Command{Root: fixture, Dirs: []string{"p"}, Layers: []Layer{{"p's tests", []string{"./p"}}}}.Run(&out, &log)
	if err != nil {
		t.Fatalf("%v\n%s", err, log.String())
	}
	if n != 4 || !strings.HasSuffix(out.String(), fixtureWant) || !strings.Contains(out.String(), "against p's tests (go test ./p)") {
		t.Fatalf("%d never executed:\n%s", n, out.String())
	}
	n, err = Command{Root: fixture, Dirs: []string{"p"}, Layers: []Layer{{"no such test", []string{"-run", "^TestNone$", "./nothere"}}}}.Run(&out, &log)
	if err == nil || !strings.Contains(err.Error(), `layer "no such test"`) {
		t.Fatalf("a layer whose go test fails: %d, %v", n, err)
	}
}

// TestBadInputsAreNamed: a profile that does not cover the package, a
// malformed profile, a missing one and a folder outside the module are
// errors that say so, never a verdict.
func TestBadInputsAreNamed(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) string {
		p := filepath.Join(dir, name)
		os.WriteFile(p, []byte(text), 0o644)
		return p
	}
	cases := []struct {
		c    Command
		want string
	}{
		{Command{Root: fixture, Dirs: []string{"p"}, Profiles: []string{write("other.cover", "mode: set\nexample.com/other/x.go:1.1,2.2 1 1\n")}},
			"no block in the body of 9 function(s)"},
		{Command{Root: fixture, Dirs: []string{"p"}, Profiles: []string{write("bad.cover", "mode: set\nnot a block\n")}},
			"coverage profile " + filepath.Join(dir, "bad.cover")},
		{Command{Root: fixture, Dirs: []string{"p"}, Profiles: []string{filepath.Join(dir, "none.cover")}}, "none.cover"},
		{Command{Root: fixture, Dirs: []string{"../p"}, Profiles: []string{"testdata/p.cover"}}, "not inside the module"},
		{Command{Root: fixture, Dirs: []string{"q"}, Profiles: []string{"testdata/p.cover"}}, "q"},
		{Command{Root: dir, Dirs: []string{"p"}, Profiles: []string{"testdata/p.cover"}}, "go.mod"},
		{Command{Root: fixture, Profiles: []string{"testdata/p.cover"}}, "no package folder"},
	}
	for i, c := range cases {
		var out bytes.Buffer
		_, err := c.c.Run(&out, &out)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("case %d: error %v, want one containing %q", i, err, c.want)
		}
	}
}
