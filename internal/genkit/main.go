// Command genkit is the peer process of firebase/genkit for `sealfuzz
// peers`: genkit.Generate's own tool loop, streaming on, over its OpenAI
// (compat_oai) and Anthropic plugins, driven over a loopback server that
// serves the body under test one SSE event per read, and a raw control.
// It speaks the peer-process protocol (internal/peers/child.go) itself and
// does not import the core: genkit's dependencies (invopop/jsonschema
// v0.13 for dotprompt) cannot share a build with the core module's.
package main

import (
	"os"
	"runtime/debug"
)

func main() {
	os.Exit(serve(os.Stdin, os.Stdout, all()))
}

// all lists the idioms this process serves, each with the version of its
// module this binary was built with.
func all() []*idiom {
	ids := append(genkitIdioms(), rawIdioms()...)
	versions := map[string]string{}
	if bi, ok := debug.ReadBuildInfo(); ok {
		for _, d := range bi.Deps {
			versions[d.Path] = d.Version
		}
	}
	for _, id := range ids {
		id.Version = versions[id.Module] // the project's own controls: empty, the parent names its version
	}
	return ids
}
