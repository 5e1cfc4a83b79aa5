package main

import (
	archivezip "archive/zip"
	"bytes"
	"encoding/json"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"golang.org/x/mod/module"
	"golang.org/x/mod/zip"
)

const (
	modulePath = "github.com/sealgate/sealgate"
	proxiedAs  = "v0.1.0"
)

// treeFile is one file of the work tree, as golang.org/x/mod/zip takes it.
type treeFile struct {
	path string // slash-separated, relative to the module root
	abs  string
}

func (f treeFile) Path() string                 { return f.path }
func (f treeFile) Lstat() (os.FileInfo, error)  { return os.Lstat(f.abs) }
func (f treeFile) Open() (io.ReadCloser, error) { return os.Open(f.abs) }

// vcsNames are left out of the zip as the go command leaves them out. In a
// git worktree .git is a file, which zip.CreateFromDir would keep, so the
// tree is listed here and zip.Create does the rest of the filtering (vendor
// folders, nested modules, irregular files).
var vcsNames = map[string]bool{".git": true, ".hg": true, ".svn": true, ".bzr": true}

// moduleZip writes the work tree at root as the module zip of version v.
func moduleZip(w io.Writer, root, v string) error {
	var files []zip.File
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if vcsNames[d.Name()] {
			if d.IsDir() {
				return filepath.SkipDir
			}
			return nil
		}
		if d.IsDir() {
			return nil
		}
		rel, err := filepath.Rel(root, p)
		if err != nil {
			return err
		}
		files = append(files, treeFile{path: filepath.ToSlash(rel), abs: p})
		return nil
	})
	if err != nil {
		return err
	}
	return zip.Create(w, module.Version{Path: modulePath, Version: v}, files)
}

// writeProxy lays out a GOPROXY folder holding the work tree at root as
// modulePath@proxiedAs, and returns its file:// URL.
func writeProxy(t *testing.T, root string) string {
	t.Helper()
	proxy := t.TempDir()
	at := filepath.Join(proxy, filepath.FromSlash(modulePath), "@v")
	if err := os.MkdirAll(at, 0o755); err != nil {
		t.Fatal(err)
	}
	var z bytes.Buffer
	if err := moduleZip(&z, root, proxiedAs); err != nil {
		t.Fatal(err)
	}
	checkZip(t, z.Bytes())
	mod, err := os.ReadFile(filepath.Join(root, "go.mod"))
	if err != nil {
		t.Fatal(err)
	}
	info, _ := json.Marshal(map[string]string{"Version": proxiedAs, "Time": time.Now().UTC().Format(time.RFC3339)})
	for name, b := range map[string][]byte{
		"list": []byte(proxiedAs + "\n"), proxiedAs + ".info": info,
		proxiedAs + ".mod": mod, proxiedAs + ".zip": z.Bytes(),
	} {
		if err := os.WriteFile(filepath.Join(at, name), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return "file://" + filepath.ToSlash(proxy)
}

// checkZip holds the module zip to what the go command would publish: the
// root go.mod, no VCS metadata (in this worktree .git is a file), no nested
// module (the campaign's fake target under cmd/sealfuzz/testdata has its
// own go.mod), no vendored package.
func checkZip(t *testing.T, b []byte) {
	t.Helper()
	zr, err := archivezip.NewReader(bytes.NewReader(b), int64(len(b)))
	if err != nil {
		t.Fatal(err)
	}
	prefix := modulePath + "@" + proxiedAs + "/"
	var names []string
	for _, f := range zr.File {
		name, ok := strings.CutPrefix(f.Name, prefix)
		if !ok {
			t.Fatalf("zip entry %s is outside %s", f.Name, prefix)
		}
		names = append(names, name)
		for _, seg := range strings.Split(name, "/") {
			if seg == ".git" || seg == ".hg" || seg == ".svn" || seg == ".bzr" {
				t.Errorf("zip holds VCS metadata: %s", name)
			}
		}
		if strings.HasPrefix(name, "internal/campaign/testdata/fake/") {
			t.Errorf("zip holds the nested module's file %s", name)
		}
		if _, pkg, ok := strings.Cut("/"+name, "/vendor/"); ok && strings.Contains(pkg, "/") {
			t.Errorf("zip holds a vendored package's file %s", name)
		}
	}
	// corpus/wire was corpus/vendor, which the go command leaves out of a
	// module zip as a vendor folder: the decoded captures must ship.
	for _, want := range []string{"go.mod", "LICENSE", "docs/SPEC.md", "gate/gate.go", "examples/gatestream/main.go",
		"corpus/wire/anthropic/text-then-tool-use.scn"} {
		if !slices.Contains(names, want) {
			t.Errorf("zip lacks %s", want)
		}
	}
}

// TestModuleProxy is the adoption path without a replace directive: the
// work tree served as v0.1.0 by a file:// module proxy, fetched with go get
// into a fresh module, and the README's program built there and run on a
// capture. The module cache is a fresh one (so no earlier v0.1.0 is found
// in it); the dependencies come from the populated cache's download folder,
// which is itself a proxy, then from the real proxy.
func TestModuleProxy(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a module proxy and a fresh module cache; skipped with -short")
	}
	goCmd, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command on PATH")
	}
	body := fixture(t, capture)
	start := time.Now()
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	proxy := writeProxy(t, root)
	t.Logf("module zip and proxy: %v", time.Since(start).Round(time.Millisecond))
	cached, err := exec.Command(goCmd, "env", "GOMODCACHE").Output()
	if err != nil {
		t.Fatal(err)
	}
	downloads := "file://" + filepath.ToSlash(filepath.Join(strings.TrimSpace(string(cached)), "cache", "download"))

	app := t.TempDir()
	src := readmeProgram(t)
	if err := os.WriteFile(filepath.Join(app, "main.go"), src, 0o644); err != nil {
		t.Fatal(err)
	}
	modCache := t.TempDir()
	env := append(os.Environ(),
		"GOPROXY="+proxy+","+downloads+",https://proxy.golang.org",
		// -trimpath: without it the build cache keys each dependency by
		// its folder in the fresh module cache, and every run rebuilds
		// them all.
		"GONOSUMDB="+modulePath, "GOFLAGS=-mod=mod -trimpath",
		"GOMODCACHE="+modCache, "GOWORK=off", "GOTOOLCHAIN=local")
	run := func(args ...string) string {
		t.Helper()
		began := time.Now()
		cmd := exec.Command(goCmd, args...)
		cmd.Dir, cmd.Env = app, env
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("go %s: %v\n%s", strings.Join(args, " "), err, out)
		}
		t.Logf("go %s: %v", strings.Join(args, " "), time.Since(began).Round(time.Millisecond))
		return string(out)
	}
	defer func() {
		// The fresh cache's files are read-only: clear it (and only it,
		// by its GOMODCACHE) so that t.TempDir can remove it.
		cmd := exec.Command(goCmd, "clean", "-modcache")
		cmd.Env = env
		cmd.Run()
	}()
	run("mod", "init", "example.com/adopter")
	run("get", modulePath+"@"+proxiedAs)
	run("build", "-o", "gatestream", ".")
	cmd := exec.Command(filepath.Join(app, "gatestream"))
	cmd.Stdin = bytes.NewReader(body)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("the README's program: %v\n%s", err, out)
	}
	if string(out) != wantRun {
		t.Errorf("the README's program, built from the proxy, printed %q, want %q", out, wantRun)
	}
	t.Logf("proxy, go get, build and run: %v", time.Since(start).Round(time.Millisecond))
}
