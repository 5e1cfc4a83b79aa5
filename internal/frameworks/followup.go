package main

import (
	"bytes"
	"io"
	"net/http"
	"sync"

	"github.com/sealgate/sealgate/internal/peers"
)

// chatFinal is a plain final Chat Completions stream: the answer a
// framework's agent loop gets on its next model call, after it ran the
// tools, so that the loop stops the way it would in production.
const chatFinal = "data: {\"id\":\"chatcmpl-followup\",\"object\":\"chat.completion.chunk\",\"created\":1,\"model\":\"gpt-peer\",\"choices\":[{\"index\":0,\"delta\":{\"role\":\"assistant\",\"content\":\"Done.\"},\"finish_reason\":null}]}\n\n" +
	"data: {\"id\":\"chatcmpl-followup\",\"object\":\"chat.completion.chunk\",\"created\":1,\"model\":\"gpt-peer\",\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"stop\"}]}\n\n" +
	"data: [DONE]\n\n"

// chatClient is Conn.HTTP for the first request of a run (the body under
// test, read one SSE event at a time) and a plain final stream for every
// later one, because the harness's follow-up body is empty for Chat
// Completions and an agent loop fed an empty answer fails for that reason
// alone, which would hide what it did with the body under test.
func chatClient(c peers.Conn) *http.Client {
	var mu sync.Mutex
	first := true
	return &http.Client{Transport: roundTripper(func(r *http.Request) (*http.Response, error) {
		mu.Lock()
		later := !first
		first = false
		mu.Unlock()
		if !later {
			return c.HTTP.Transport.RoundTrip(r)
		}
		if r.Body != nil {
			io.Copy(io.Discard, r.Body)
			r.Body.Close()
		}
		return &http.Response{
			Status: "200 OK", StatusCode: http.StatusOK, Proto: "HTTP/1.1", ProtoMajor: 1, ProtoMinor: 1,
			Header:  http.Header{"Content-Type": {"text/event-stream"}},
			Body:    io.NopCloser(bytes.NewReader([]byte(chatFinal))),
			Request: r, ContentLength: int64(len(chatFinal)),
		}, nil
	})}
}

type roundTripper func(*http.Request) (*http.Response, error)

func (f roundTripper) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }
