package peers

import (
	"bytes"
	"fmt"
	"strings"
)

// Header is what a stored body says about itself, in SSE comment lines
// before its first event (every SSE reader skips them): the peer to serve
// it to, the violation it showed, and whether the connection broke at its
// end.
type Header struct {
	Peer      string
	Violation string
	Reset     bool
	Notes     []string
}

// Stored renders a body as a readable .sse file: the header, then the body
// exactly as served.
func Stored(h Header, b Body) []byte {
	var w bytes.Buffer
	for _, n := range h.Notes {
		w.WriteString(": " + strings.ReplaceAll(n, "\n", " ") + "\n")
	}
	fmt.Fprintf(&w, ": peer=%s\n", h.Peer)
	if h.Violation != "" {
		fmt.Fprintf(&w, ": violation=%s\n", h.Violation)
	}
	if b.Reset {
		w.WriteString(": reset=true (the connection breaks after the last byte)\n")
	}
	w.Write(b.Bytes())
	return w.Bytes()
}

// ParseStored splits a stored file into its header and the body to serve:
// the leading ": " comment lines are the header, everything after is sent
// byte for byte.
func ParseStored(src []byte) (Header, []byte) {
	var h Header
	for len(src) > 0 && src[0] == ':' {
		line, rest, _ := bytes.Cut(src, []byte("\n"))
		src = rest
		text := strings.TrimSpace(strings.TrimPrefix(string(line), ":"))
		switch k, v, _ := strings.Cut(text, "="); k {
		case "peer":
			h.Peer = v
		case "violation":
			h.Violation = v
		case "reset":
			h.Reset = strings.HasPrefix(v, "true")
		default:
			h.Notes = append(h.Notes, text)
		}
	}
	return h, src
}
