package gate

import (
	"strconv"
	"testing"

	"github.com/go-json-experiment/json/jsontext"

	"sealgate"
)

// The issue 4 benchmarks: one save_file argument of n bytes fed in 16-byte
// deltas. benchSizes scale it from 1 KiB to 1 MiB so that benchstat shows
// how each cost grows.
var benchSizes = []int{1 << 10, 16 << 10, 64 << 10, 256 << 10, 1 << 20}

const benchDelta = 16

// benchArgs returns a strictly valid save_file argument of exactly n bytes:
// file text with escapes, non-ASCII runes and a surrogate pair, the kind of
// content a long write_file call streams.
func benchArgs(n int) []byte {
	const head, tail = `{"path":"notes.md","content":"`, `"}`
	const line = `Topic confirmed; the date still waits for the venue \u00e9t\u00e9 caf` + "é" + ` \ud83d\ude00 'q' \"ok\"\n`
	b := make([]byte, 0, n)
	b = append(b, head...)
	for len(b)+len(line)+len(tail) <= n {
		b = append(b, line...)
	}
	for len(b)+len(tail) < n {
		b = append(b, 'x')
	}
	return append(b, tail...)
}

func sizeName(n int) string {
	if n >= 1<<20 {
		return strconv.Itoa(n>>20) + "MiB"
	}
	return strconv.Itoa(n>>10) + "KiB"
}

// benchGate opens attempt r, begins call 0 and returns the gate.
func benchGate(b *testing.B, previewBytes int) *Gate {
	cfg := testConfig()
	cfg.Limits.PreviewBytes = previewBytes
	g, err := New(cfg, NewMemoryLedger())
	if err != nil {
		b.Fatal(err)
	}
	g.Feed(sealgate.OpenEvent("r", "t"))
	g.Feed(sealgate.BeginEvent("r", "0", "c", "save_file"))
	return g
}

// BenchmarkJSONTextValidate is the yardstick: one jsontext validation of the
// final buffer.
func BenchmarkJSONTextValidate(b *testing.B) {
	for _, n := range benchSizes {
		raw := benchArgs(n)
		b.Run(sizeName(n), func(b *testing.B) {
			b.SetBytes(int64(n))
			b.ReportAllocs()
			for b.Loop() {
				if !jsontext.Value(raw).IsValid() {
					b.Fatal("invalid")
				}
			}
		})
	}
}

// BenchmarkFeedSeal feeds the argument with no peeks, then ends and closes
// the attempt, which seals and releases the call.
func BenchmarkFeedSeal(b *testing.B) {
	for _, n := range benchSizes {
		raw := benchArgs(n)
		b.Run(sizeName(n), func(b *testing.B) {
			b.SetBytes(int64(n))
			b.ReportAllocs()
			for b.Loop() {
				g := benchGate(b, sealgate.DefaultLimits().PreviewBytes)
				for j := 0; j < len(raw); j += benchDelta {
					g.Feed(sealgate.DeltaEvent("r", "0", raw[j:min(j+benchDelta, len(raw))]))
				}
				g.Feed(sealgate.EndEvent("r", "0"))
				if ds, _ := g.Feed(sealgate.CloseEvent("r", sealgate.Complete)); len(ds) != 1 || ds[0].Kind != sealgate.Release {
					b.Fatalf("not released: %v", ds)
				}
			}
		})
	}
}

// BenchmarkPeekEvery takes a snapshot peek after every delta, preview-bytes
// 64 KiB: O(bytes + peeks × preview size).
func BenchmarkPeekEvery(b *testing.B) {
	for _, n := range benchSizes {
		raw := benchArgs(n)
		b.Run(sizeName(n), func(b *testing.B) {
			b.SetBytes(int64(n))
			b.ReportAllocs()
			for b.Loop() {
				g := benchGate(b, 64<<10)
				for j := 0; j < len(raw); j += benchDelta {
					g.Feed(sealgate.DeltaEvent("r", "0", raw[j:min(j+benchDelta, len(raw))]))
					g.Feed(sealgate.PeekEvent("r", "0"))
				}
			}
		})
	}
}
