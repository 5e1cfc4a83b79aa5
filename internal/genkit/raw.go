package main

import (
	"context"
	"errors"
	"io"
	"net/http"
	"strings"
)

// rawIdioms are the controls: the body read through the same stepped
// client with no framework, every read returned with its stamp, for the
// parent to decode with wire and gate with the project's gate. genkit has
// no integration of the project's gate, so these show that this process's
// way of serving the body invents no violation.
func rawIdioms() []*idiom {
	var out []*idiom
	for _, proto := range []string{"openai-chat", "anthropic"} {
		out = append(out, &idiom{peerHello: peerHello{
			Name: "genkit/raw-" + proto, Module: "github.com/sealgate/sealgate", Protocol: proto,
			Control: true, Raw: true,
			Idiom: "no framework: the body read through this process's stepped client, each read returned with its stamp; the parent decodes it with wire and gates it",
			Docs:  "SPEC.md: a call is released only after its end and its attempt's close complete, with its own bytes, strictly valid, compacted.",
		}, run: readAll})
	}
	return out
}

// readAll reads the body to its end, handing every read to the parent;
// the end (clean or broken) is an empty read stamped where it happened.
func readAll(ctx context.Context, c conn, _ func(execution)) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, c.BaseURL+"/v1/raw", strings.NewReader("{}"))
	if err != nil {
		return err
	}
	resp, err := c.HTTP.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	buf := make([]byte, 32<<10)
	for {
		n, err := resp.Body.Read(buf)
		if n > 0 {
			c.read(buf[:n])
		}
		if err != nil {
			c.read(nil)
			if errors.Is(err, io.EOF) {
				return nil
			}
			return err
		}
	}
}
