package partial

import (
	"bytes"
	"encoding/json"
	"io"
	"math"
	"strconv"
	"strings"

	"github.com/go-json-experiment/json/jsontext"

	"github.com/sealgate/sealgate/internal/fuzzkit"
)

// The bodies of this package's fuzz targets and the oracles they use, in
// plain code so that both go test -fuzz (fuzz_test.go, changes_test.go) and
// the libFuzzer harnesses (libfuzzer_test.go, built with the gofuzz tag)
// run them. The package is internal to gate/, so package fuzztarget cannot
// import it, and go-118-fuzz-build's generated main may import it only
// when built from a directory under gate/ (.clusterfuzzlite/build.sh
// builds these two from this one). Nothing here is reachable from the
// parser's API; the linker leaves it out of programs.

var (
	partialExecs = fuzzkit.NewCounter("FuzzPartial")
	watchExecs   = fuzzkit.NewCounter("FuzzWatch")
)

// fuzzPartial is FuzzPartial: check at up to four cuts that cutBits picks.
func fuzzPartial(t fuzzkit.TB, in []byte, cutBits uint64, depth uint8) {
	t.Helper()
	partialExecs.Add()
	if len(in) > 4096 {
		return
	}
	var cuts []int
	for k := 0; k < 4; k++ {
		if len(in) > 0 {
			cuts = append(cuts, int(cutBits>>(16*k)&0xFFFF)%(len(in)+1))
		}
	}
	check(t, in, cuts, int(depth%8)+1)
}

// fuzzWatch is FuzzWatch: watchRun at the cuts cutBits picks, and byte by
// byte with a small byte limit.
func fuzzWatch(t fuzzkit.TB, in []byte, cutBits uint64, depth uint8) {
	t.Helper()
	watchExecs.Add()
	if len(in) > 4096 {
		return
	}
	var chunks [][]byte
	last := 0
	for k := 0; k < 4 && len(in) > 0; k++ {
		c := int(cutBits>>(16*k)&0xFFFF) % (len(in) + 1)
		if c >= last {
			chunks = append(chunks, in[last:c])
			last = c
		}
	}
	chunks = append(chunks, in[last:])
	watchRun(t, New(int(depth%8)+1, 1<<30, fuzzSecrets), chunks)
	watchRun(t, New(int(depth%8)+1, int(cutBits%97)+1, fuzzSecrets), bytewise(in))
}

// strictValid is an independent oracle for SPEC section 5's grammar plus the
// depth limit: jsontext's strict defaults (one value, valid UTF-8, paired
// surrogates, no duplicate names) plus noncharacters, finite numbers, depth.
func strictValid(b []byte, depth int) bool {
	if !jsontext.Value(b).IsValid() {
		return false
	}
	d := jsontext.NewDecoder(bytes.NewReader(b))
	for {
		tok, err := d.ReadToken()
		if err == io.EOF {
			return true
		}
		if err != nil {
			return false
		}
		switch tok.Kind() {
		case '{', '[':
			if d.StackDepth() > depth {
				return false
			}
		case '"':
			for _, r := range tok.String() {
				if (r >= 0xFDD0 && r <= 0xFDEF) || r&0xFFFF == 0xFFFE || r&0xFFFF == 0xFFFF {
					return false
				}
			}
		case '0':
			f, _ := strconv.ParseFloat(tok.String(), 64)
			if math.IsInf(f, 0) {
				return false
			}
		}
	}
}

// reference computes V for a complete, strictly valid text by plain
// recursive descent: compacted, secrets redacted.
func reference(doc []byte, secrets [][]string) string {
	var out strings.Builder
	var value func(b []byte, paths [][]string) []byte
	skipWS := func(b []byte) []byte { return bytes.TrimLeft(b, " \t\r\n") }
	str := func(b []byte) (raw, rest []byte) {
		i := 1
		for b[i] != '"' {
			if b[i] == '\\' {
				i++
			}
			i++
		}
		return b[:i+1], b[i+1:]
	}
	value = func(b []byte, paths [][]string) []byte {
		b = skipWS(b)
		switch b[0] {
		case '"':
			raw, rest := str(b)
			out.Write(raw)
			return rest
		case '{', '[':
			obj := b[0] == '{'
			out.WriteByte(b[0])
			b = skipWS(b[1:])
			first := true
			for b[0] != '}' && b[0] != ']' {
				if !first {
					out.WriteByte(',')
					b = skipWS(b[1:])
				}
				first = false
				if !obj {
					b = skipWS(value(b, nil))
					continue
				}
				raw, rest := str(b)
				var name string
				if err := json.Unmarshal(raw, &name); err != nil {
					panic(err)
				}
				out.Write(raw)
				out.WriteByte(':')
				b = skipWS(rest)[1:]
				secret := false
				var child [][]string
				for _, p := range paths {
					if p[0] == name {
						if len(p) == 1 {
							secret = true
						} else {
							child = append(child, p[1:])
						}
					}
				}
				if secret {
					n := out.Len()
					b = skipWS(value(b, nil))
					s := out.String()[:n]
					out.Reset()
					out.WriteString(s)
					out.WriteString(redacted)
					continue
				}
				b = skipWS(value(b, child))
			}
			out.WriteByte(b[0])
			return b[1:]
		}
		i := 0
		for i < len(b) && strings.IndexByte("+-.0123456789eEtrufalsn", b[i]) >= 0 {
			i++
		}
		out.Write(b[:i])
		return b[i:]
	}
	top := skipWS(doc)
	if len(top) > 0 && top[0] == '{' {
		value(doc, secrets)
	} else {
		value(doc, nil)
	}
	return out.String()
}

var fuzzSecrets = [][]string{{"s"}, {"o", "s"}, {"a/b", "~"}}

// check runs the shared properties on one input: no panic, chunking
// invariance at the given cuts and byte by byte, a strictly valid snapshot,
// and agreement with the oracle and the reference on complete texts.
func check(t fuzzkit.TB, in []byte, cuts []int, depth int) {
	t.Helper()
	one := New(depth, 1<<30, fuzzSecrets)
	one.Write(in)
	want := one.Snapshot()
	if want != "-" && !strictValid([]byte(want), depth) {
		t.Fatalf("%q: snapshot %s is not strict JSON", in, want)
	}

	split := New(depth, 1<<30, fuzzSecrets)
	last := 0
	for _, c := range cuts {
		if c < last || c > len(in) {
			continue
		}
		split.Write(in[last:c])
		last = c
	}
	split.Write(in[last:])
	if got := split.Snapshot(); got != want {
		t.Fatalf("%q split at %v: got %s, want %s", in, cuts, got, want)
	}
	bb := New(depth, 1<<30, fuzzSecrets)
	for i := range in {
		bb.Write(in[i : i+1])
		if s := bb.Snapshot(); s != "-" && !strictValid([]byte(s), depth) {
			t.Fatalf("%q prefix %d: snapshot %s is not strict JSON", in, i+1, s)
		}
	}
	if got := bb.Snapshot(); got != want {
		t.Fatalf("%q byte by byte: got %s, want %s", in, got, want)
	}

	// With a final space a complete text ends every number: the parser
	// finishes without a violation exactly when the oracle accepts.
	done := New(depth, 1<<30, fuzzSecrets)
	done.Write(in)
	done.Write([]byte{' '})
	complete := !done.violated && done.stack[0].ctx == ctxTopDone && len(done.stack) == 1
	valid := strictValid(in, depth)
	if complete != valid {
		t.Fatalf("%q: parser complete=%v, oracle valid=%v", in, complete, valid)
	}
	if valid {
		if ref := reference(in, fuzzSecrets); done.Snapshot() != ref {
			t.Fatalf("%q: got %s, reference %s", in, done.Snapshot(), ref)
		}
		if one.violated {
			t.Fatalf("%q: a valid text reported a violation", in)
		}
	}
}

// watchRun feeds chunks to p and, after each, applies the watcher's changes
// to a view that must render exactly the snapshot. It returns every change.
func watchRun(t fuzzkit.TB, p *Parser, chunks [][]byte) []Change {
	t.Helper()
	w := p.Watch()
	var v View
	var all []Change
	check := func(at int) {
		n := len(all)
		all = w.Next(all)
		for _, c := range all[n:] {
			if !v.Apply(c) {
				t.Fatalf("chunk %d: change %v does not fit the view %s", at, c, v.String())
			}
		}
		if got, want := v.String(), p.Snapshot(); got != want {
			t.Fatalf("chunk %d of %q: view %s, snapshot %s\nchanges: %v", at, chunks, got, want, all)
		}
	}
	check(-1)
	for i, ch := range chunks {
		p.Write(ch)
		check(i)
	}
	for i, c := range all {
		if c.Kind == ChangeStop && i != len(all)-1 {
			t.Fatalf("%q: changes after stop: %v", chunks, all[i:])
		}
	}
	if stopped := len(all) > 0 && all[len(all)-1].Kind == ChangeStop; stopped != p.stopped {
		t.Fatalf("%q: stop sent=%v, parser stopped=%v", chunks, stopped, p.stopped)
	}
	return all
}

func bytewise(in []byte) [][]byte {
	var out [][]byte
	for i := range in {
		out = append(out, in[i:i+1])
	}
	return out
}
