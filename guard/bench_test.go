package guard_test

import (
	"bytes"
	"context"
	"io"
	"strconv"
	"testing"

	"github.com/sealgate/sealgate"
	"github.com/sealgate/sealgate/gate"
	"github.com/sealgate/sealgate/guard"
	"github.com/sealgate/sealgate/wire"
)

// chunkReader hands out at most n bytes a Read, as a network body does.
type chunkReader struct {
	r *bytes.Reader
	n int
}

func (c *chunkReader) Read(p []byte) (int, error) { return c.r.Read(p[:min(len(p), c.n)]) }
func (c *chunkReader) Close() error               { return nil }

// BenchmarkBody reads a captured body in 4 KiB network reads, 32 KiB at a
// time as an SDK's scanner asks: through the guard (wire and the gate in
// step with each Read), against the same decoding and gating done straight
// from the bytes, and against a plain read.
func BenchmarkBody(b *testing.B) {
	for _, c := range []struct{ name, file, path string }{
		{"chat-parallel", "openai-chat/parallel-tool-calls-gpt4o.sse", chatPath},
		{"anthropic-256KB", "anthropic/server-tool-use-pause-turn.sse", "/v1/messages"},
	} {
		body := fixture(b, c.file)
		p, _ := guard.DetectProtocol(c.path)
		b.Run(c.name+"/guard", func(b *testing.B) {
			gd, _ := newGuard(b, serve(func() io.ReadCloser { return &chunkReader{bytes.NewReader(body), 4096} }), guard.Options{})
			buf := make([]byte, 32<<10)
			b.SetBytes(int64(len(body)))
			for i := 0; b.Loop(); i++ {
				resp, err := gd.RoundTrip(post(b, context.Background(), "t"+strconv.Itoa(i), c.path))
				if err != nil {
					b.Fatal(err)
				}
				for {
					if _, err := resp.Body.Read(buf); err != nil {
						break
					}
				}
				resp.Body.Close()
			}
		})
		b.Run(c.name+"/wire+gate", func(b *testing.B) {
			g, _ := gate.New(fixtureConfig(), gate.NewMemoryLedger())
			b.SetBytes(int64(len(body)))
			for i := 0; b.Loop(); i++ {
				wire.DecodeFunc(p, &chunkReader{bytes.NewReader(body), 4096}, wire.Options{Turn: "t" + strconv.Itoa(i)}, func(ev sealgate.Event) error {
					ev.Attempt += strconv.Itoa(i)
					_, err := g.Feed(ev)
					return err
				})
			}
		})
		b.Run(c.name+"/plain", func(b *testing.B) {
			buf := make([]byte, 32<<10)
			b.SetBytes(int64(len(body)))
			for b.Loop() {
				r := &chunkReader{bytes.NewReader(body), 4096}
				for {
					if _, err := r.Read(buf); err != nil {
						break
					}
				}
			}
		})
	}
}
