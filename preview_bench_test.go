package sealgate_test

import (
	"strconv"
	"syscall"
	"testing"

	"github.com/sealgate/sealgate/model"
)

// BenchmarkModelPeekEvery is the model's side of gate's BenchmarkPeekEvery:
// the from-scratch preview (model.PreviewOf) after every 16-byte delta of a
// save_file argument, preview-bytes 64 KiB. It re-parses the buffer at each
// peek, so its cost grows with the square of the size (up to the cap):
// already 64 KiB takes about half a minute per run, so it stops at 16 KiB.
func BenchmarkModelPeekEvery(b *testing.B) {
	for _, n := range []int{1 << 10, 4 << 10, 16 << 10} {
		raw := modelBenchArgs(n)
		b.Run(strconv.Itoa(n>>10)+"KiB", func(b *testing.B) {
			b.SetBytes(int64(n))
			b.ReportAllocs()
			var ru0, ru1 syscall.Rusage
			syscall.Getrusage(syscall.RUSAGE_SELF, &ru0)
			for b.Loop() {
				for j := 0; j < len(raw); j += 16 {
					model.PreviewOf(raw[:min(j+16, len(raw))], 64, 64<<10, nil)
				}
			}
			syscall.Getrusage(syscall.RUSAGE_SELF, &ru1)
			cpu := ru1.Utime.Nano() + ru1.Stime.Nano() - ru0.Utime.Nano() - ru0.Stime.Nano()
			b.ReportMetric(float64(cpu)/float64(b.N), "cpu-ns/op") // as gate's benchmarks do
		})
	}
}

// modelBenchArgs is gate's benchArgs: the same argument text, byte for byte.
func modelBenchArgs(n int) []byte {
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
