package peers

import (
	"bytes"

	"github.com/go-json-experiment/json/jsontext"
	"github.com/sealgate/sealgate"
	"github.com/sealgate/sealgate/wire"
)

// RunConfig is the configuration a peer runs under: every tool the body
// names anywhere, read leniently, each with schema {"type":"object"}. It is
// wider than what wire reads (Config), because a peer may read past the
// point where wire stops (an error line, a second message): a call that
// only such bytes name must still find its tool, or the peer cannot run it
// and the fault stays hidden behind a missing tool.
func RunConfig(b Body, m Meaning) sealgate.Config {
	var names []string
	for _, t := range wire.ToolsConfig(m.Events).Tools {
		names = append(names, t.Name)
	}
	return toolsConfig(append(names, namedTools(b.Events)...))
}

// toolsConfig declares each named tool once, in order, with schema
// {"type":"object"}, under the default policy: the configuration a peer
// process rebuilds from the tool names its parent sends.
func toolsConfig(names []string) sealgate.Config {
	cfg := sealgate.DefaultConfig()
	have := map[string]bool{}
	for _, name := range names {
		if !have[name] {
			have[name] = true
			cfg.Tools = append(cfg.Tools, sealgate.Tool{Name: name, Schema: wire.AnyObjectSchema})
		}
	}
	return cfg
}

// toolParents are the members whose object names a tool in one of the
// vendor protocols: a Chat tool call's function, a Gemini or Vertex part's
// functionCall, an Anthropic content block, a Responses output item.
var toolParents = map[string]bool{"function": true, "functionCall": true, "content_block": true, "item": true}

// namedTools is every tool name the SSE events' data carries, in order of
// first appearance: the string "name" member of any object held by one of
// toolParents. Data that is not JSON, or that breaks off, gives the names
// read before the break; a name that is not a valid tool name is skipped.
func namedTools(events [][]byte) []string {
	var names []string
	seen := map[string]bool{}
	for _, ev := range events {
		for _, name := range dataToolNames(sseData(ev)) {
			if !seen[name] && validToolName(name) {
				seen[name] = true
				names = append(names, name)
			}
		}
	}
	return names
}

// sseData is an SSE event's data lines joined by LF, as a reader joins
// them; lines of any other field are dropped.
func sseData(ev []byte) []byte {
	var out [][]byte
	for _, line := range bytes.Split(ev, []byte("\n")) {
		line = bytes.TrimSuffix(line, []byte("\r"))
		if rest, ok := bytes.CutPrefix(line, []byte("data:")); ok {
			out = append(out, bytes.TrimPrefix(rest, []byte(" ")))
		}
	}
	return bytes.Join(out, []byte("\n"))
}

// dataToolNames reads one payload token by token, tracking which member
// holds each open object, and collects the names under toolParents.
func dataToolNames(data []byte) []string {
	if len(data) == 0 {
		return nil
	}
	dec := jsontext.NewDecoder(bytes.NewReader(data), jsontext.AllowDuplicateNames(true), jsontext.AllowInvalidUTF8(true))
	type open struct {
		object bool
		holder string // the member that holds this container ("" in an array or at the top)
		key    string // the member whose value comes next (objects only)
		keyed  bool   // the next string is a value, not a name
	}
	var stack []open
	var names []string
	for {
		tok, err := dec.ReadToken()
		if err != nil {
			return names
		}
		k, n := tok.Kind(), len(stack)
		if n > 0 && stack[n-1].object && !stack[n-1].keyed && k == '"' {
			stack[n-1].key, stack[n-1].keyed = tok.String(), true
			continue
		}
		switch k {
		case '{', '[':
			holder := ""
			if n > 0 && stack[n-1].object {
				holder = stack[n-1].key
			} else if n > 0 {
				holder = stack[n-1].holder // an array's elements are held by the array's member
			}
			stack = append(stack, open{object: k == '{', holder: holder})
			continue // the value is complete only at its close
		case '}', ']':
			stack = stack[:n-1]
		case '"':
			if n > 0 && stack[n-1].object && stack[n-1].key == "name" && toolParents[stack[n-1].holder] {
				names = append(names, tok.String())
			}
		}
		if m := len(stack); m > 0 && stack[m-1].object {
			stack[m-1].keyed = false // a value is complete: a member name comes next
		}
	}
}

// validToolName is the tool-name rule the vendors share: 1 to 64 letters,
// digits, underscores and hyphens.
func validToolName(s string) bool {
	if len(s) == 0 || len(s) > 64 {
		return false
	}
	for _, c := range []byte(s) {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-') {
			return false
		}
	}
	return true
}
