package main

import (
	"bytes"
	"io"
	"net/http"

	"github.com/sealgate/sealgate/internal/peers"
)

// usageClient is Conn.HTTP with a usage object added at the front of each
// message_start's message, as the Messages API always sends it: the
// project's encoder leaves usage out, and langchaingo's Anthropic client
// refuses a message_start without it, which would make every body fail for
// a reason no vendor stream has. An event that carries its own usage in
// the bytes read with its start (the server hands out an event at a time)
// is left as it is: a second usage member would make it invalid JSON. Bytes are added only inside an event, never held back across
// one, so the SDK is handed each event exactly when the server sends it.
func usageClient(c peers.Conn) *http.Client {
	return &http.Client{Transport: roundTripper(func(r *http.Request) (*http.Response, error) {
		resp, err := c.HTTP.Transport.RoundTrip(r)
		if err != nil {
			return resp, err
		}
		resp.Body = &usageReader{body: resp.Body}
		resp.ContentLength = -1
		return resp, nil
	})}
}

var (
	startMark = []byte(`"type":"message_start","message":{`)
	usageJSON = []byte(`"usage":{"input_tokens":1,"output_tokens":1},`)
)

// usageReader inserts usageJSON after each startMark of the body.
type usageReader struct {
	body io.ReadCloser
	out  []byte // ready to hand out
	held []byte // a tail that may be the start of startMark
	err  error
}

func (u *usageReader) Read(p []byte) (int, error) {
	for len(u.out) == 0 {
		if u.err != nil {
			if len(u.held) > 0 {
				u.out, u.held = u.held, nil
				continue
			}
			return 0, u.err
		}
		buf := make([]byte, len(p)+len(startMark))
		n, err := u.body.Read(buf)
		u.err = err
		data := append(u.held, buf[:n]...)
		u.held = nil
		var w bytes.Buffer
		for {
			i := bytes.Index(data, startMark)
			if i < 0 {
				break
			}
			w.Write(data[:i+len(startMark)])
			data = data[i+len(startMark):]
			if !hasUsage(data) {
				w.Write(usageJSON)
			}
		}
		keep := partialSuffix(data, startMark)
		w.Write(data[:len(data)-keep])
		u.held = append([]byte(nil), data[len(data)-keep:]...)
		u.out = w.Bytes()
	}
	n := copy(p, u.out)
	u.out = u.out[n:]
	return n, nil
}

func (u *usageReader) Close() error { return u.body.Close() }

// partialSuffix is the length of the longest suffix of data that is a
// proper prefix of mark.
func partialSuffix(data, mark []byte) int {
	for k := min(len(data), len(mark)-1); k > 0; k-- {
		if bytes.HasSuffix(data, mark[:k]) {
			return k
		}
	}
	return 0
}

// hasUsage says whether the message_start event whose rest begins data
// carries a usage member before the event ends.
func hasUsage(data []byte) bool {
	if end := bytes.Index(data, []byte("\n\n")); end >= 0 {
		data = data[:end]
	}
	return bytes.Contains(data, []byte(`"usage":`))
}
