package gate

import (
	"crypto/sha256"
	"strconv"
	"syscall"
	"testing"

	"github.com/go-json-experiment/json/jsontext"

	"github.com/sealgate/sealgate"
)

// The preview benchmarks: one save_file argument of n bytes fed in 16-byte
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

// cpuNanos is the CPU time this process has used (user + system, GC
// included). On a shared machine wall time says more about the neighbours
// than about the code, so every benchmark also reports cpu-ns/op.
func cpuNanos() int64 {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return ru.Utime.Nano() + ru.Stime.Nano()
}

// reportCPU reports the CPU time per iteration since start.
func reportCPU(b *testing.B, start int64) {
	b.ReportMetric(float64(cpuNanos()-start)/float64(b.N), "cpu-ns/op")
}

func sizeName(n int) string {
	if n >= 1<<20 {
		return strconv.Itoa(n>>20) + "MiB"
	}
	return strconv.Itoa(n>>10) + "KiB"
}

// benchGate returns a gate for the benchmarks. Each iteration starts with
// benchStart and ends with benchDone, so that one gate (whose schema
// compiles once) serves every iteration and no timer has to stop.
func benchGate(b *testing.B, previewBytes int) *Gate {
	cfg := testConfig()
	cfg.Limits.PreviewBytes = previewBytes
	g, err := New(cfg, NewMemoryLedger())
	if err != nil {
		b.Fatal(err)
	}
	return g
}

// benchStart forgets the last iteration (a restart) and begins call 0 of a
// fresh attempt r.
func benchStart(g *Gate) {
	g.Feed(sealgate.RestartEvent())
	g.Feed(sealgate.OpenEvent("r", "t"))
	g.Feed(sealgate.BeginEvent("r", "0", "c", "save_file"))
}

// benchSeal ends and closes the attempt, checks the release, and clears its
// key (ack fail) so the next iteration may release the same text again.
func benchSeal(b *testing.B, g *Gate) {
	g.Feed(sealgate.EndEvent("r", "0"))
	ds, _ := g.Feed(sealgate.CloseEvent("r", sealgate.Complete))
	if len(ds) != 1 || ds[0].Kind != sealgate.Release {
		b.Fatalf("not released: %v", ds)
	}
	g.Feed(sealgate.AckEvent(ds[0].Key, false))
}

// BenchmarkJSONTextValidate is the yardstick: one jsontext validation of the
// final buffer.
func BenchmarkJSONTextValidate(b *testing.B) {
	for _, n := range benchSizes {
		raw := benchArgs(n)
		b.Run(sizeName(n), func(b *testing.B) {
			b.SetBytes(int64(n))
			b.ReportAllocs()
			start := cpuNanos()
			for b.Loop() {
				if !jsontext.Value(raw).IsValid() {
					b.Fatal("invalid")
				}
			}
			reportCPU(b, start)
		})
	}
}

// BenchmarkFeedSeal feeds the argument with no peeks, then ends and closes
// the attempt, which seals and releases the call.
func BenchmarkFeedSeal(b *testing.B) { benchFeedSeal(b, false) }

// BenchmarkFeedDeltaSeal is BenchmarkFeedSeal through FeedDelta, which
// takes a delta without building an Event.
func BenchmarkFeedDeltaSeal(b *testing.B) { benchFeedSeal(b, true) }

func benchFeedSeal(b *testing.B, direct bool) {
	for _, n := range benchSizes {
		raw := benchArgs(n)
		b.Run(sizeName(n), func(b *testing.B) {
			b.SetBytes(int64(n))
			b.ReportAllocs()
			g := benchGate(b, sealgate.DefaultLimits().PreviewBytes)
			start := cpuNanos()
			for b.Loop() {
				benchStart(g)
				for j := 0; j < len(raw); j += benchDelta {
					benchDeltaTo(g, raw[j:min(j+benchDelta, len(raw))], direct)
				}
				benchSeal(b, g)
			}
			reportCPU(b, start)
		})
	}
}

// benchDeltaTo feeds one delta of call 0, through FeedDelta when direct and
// as a sealgate.Event through Feed otherwise (the branch goes the same way
// every time, so it costs nothing).
func benchDeltaTo(g *Gate, d []byte, direct bool) {
	if direct {
		g.FeedDelta("r", "0", d)
		return
	}
	g.Feed(sealgate.DeltaEvent("r", "0", d))
}

// BenchmarkPeekEvery takes a snapshot peek after every delta, preview-bytes
// 64 KiB: O(bytes + peeks × preview size).
func BenchmarkPeekEvery(b *testing.B) {
	for _, n := range benchSizes {
		raw := benchArgs(n)
		b.Run(sizeName(n), func(b *testing.B) {
			b.SetBytes(int64(n))
			b.ReportAllocs()
			g := benchGate(b, 64<<10)
			start := cpuNanos()
			for b.Loop() {
				benchStart(g)
				for j := 0; j < len(raw); j += benchDelta {
					g.Feed(sealgate.DeltaEvent("r", "0", raw[j:min(j+benchDelta, len(raw))]))
					g.Feed(sealgate.PeekEvent("r", "0"))
				}
			}
			reportCPU(b, start)
		})
	}
}

// BenchmarkStreamChanges reads the streaming preview after every delta,
// preview-bytes 1 MiB, and applies it to a view as a UI would. Each stream
// is then cut (close truncated: the call is rejected turn-truncated, no seal),
// so that, as in a long-lived gate, the next stream refills the buffers the
// last one left.
func BenchmarkStreamChanges(b *testing.B) { benchStream(b, true, false) }

// BenchmarkStreamRead is BenchmarkStreamChanges with the least consumer
// instead of a view: it reads every change's text once (its length and last
// byte) where it lies, and keeps nothing. The difference between the two is
// the view's cost, which belongs to the UI, not to the preview. (Copying
// each 56-byte change out of the slice first, as a by-value range loop does,
// costs more than the read: the copy's wide loads wait for the narrower
// stores that just wrote the change.)
func BenchmarkStreamRead(b *testing.B) { benchStream(b, false, false) }

// BenchmarkStreamReadDelta is BenchmarkStreamRead through FeedDelta.
func BenchmarkStreamReadDelta(b *testing.B) { benchStream(b, false, true) }

func benchStream(b *testing.B, toView, direct bool) {
	for _, n := range benchSizes {
		raw := benchArgs(n)
		b.Run(sizeName(n), func(b *testing.B) {
			b.SetBytes(int64(n))
			b.ReportAllocs()
			var changes []PreviewChange
			g := benchGate(b, 1<<20)
			start := cpuNanos()
			for b.Loop() {
				benchStart(g)
				s, _ := g.Watch("r", "0")
				var v PreviewView
				seen, last := 0, byte(0)
				for j := 0; j < len(raw); j += benchDelta {
					benchDeltaTo(g, raw[j:min(j+benchDelta, len(raw))], direct)
					changes = s.Next(changes[:0])
					if toView {
						for _, c := range changes {
							v.Apply(c)
						}
						continue
					}
					for i := range changes {
						if t := changes[i].Text; t != "" {
							seen, last = seen+len(t), t[len(t)-1]
						}
					}
				}
				if ds, _ := g.Feed(sealgate.CloseEvent("r", sealgate.Truncated)); len(ds) != 1 || ds[0].Reason != sealgate.TurnTruncated {
					b.Fatalf("not rejected turn-truncated: %v", ds)
				}
				if !toView && (seen < n-64 || last != raw[n-3]) { // the content's last byte, before `"}`
					b.Fatalf("read %d bytes of text for %d, last %q", seen, n, last)
				}
			}
			reportCPU(b, start)
		})
	}
}

// eventSink stands for the least any Feed(sealgate.Event) can do with a
// delta: take the event by value, as the API passes it, and keep its bytes.
type eventSink struct{ buf []byte }

//go:noinline
func (s *eventSink) feed(ev sealgate.Event) {
	if ev.Kind == sealgate.Delta {
		s.buf = append(s.buf, ev.Bytes...)
	}
}

// feedArgs is the same for an API that takes a delta's fields as
// arguments, as FeedDelta does: no Event is built.
//
//go:noinline
func (s *eventSink) feedArgs(attempt, item string, b []byte) {
	if attempt != "" && item != "" {
		s.buf = append(s.buf, b...)
	}
}

// feedPtr is the same for an API that would take the event by pointer: the
// caller fills one event and changes only its bytes.
//
//go:noinline
func (s *eventSink) feedPtr(ev *sealgate.Event) {
	if ev.Kind == sealgate.Delta {
		s.buf = append(s.buf, ev.Bytes...)
	}
}

// benchSink runs one of the event floors: each iteration empties the sink,
// lets feedAll hand it every delta of raw, and checks that it kept them all.
func benchSink(b *testing.B, raw []byte, feedAll func(s *eventSink, raw []byte)) {
	b.SetBytes(int64(len(raw)))
	s := &eventSink{buf: make([]byte, 0, len(raw))}
	start := cpuNanos()
	for b.Loop() {
		s.buf = s.buf[:0]
		feedAll(s, raw)
		if len(s.buf) != len(raw) {
			b.Fatalf("kept %d bytes of %d", len(s.buf), len(raw))
		}
	}
	reportCPU(b, start)
}

// BenchmarkFloor measures what the preview speed targets (docs/research/performance.md) leave room for:
//   - event: the event API alone, one sealgate.Event built and passed by
//     value per 16-byte delta to a function that only keeps the bytes;
//   - event-by-pointer: the same through a pointer to one reused event,
//     what a pointer API would cost instead (Feed has none);
//   - delta-args: the same with the delta's fields as arguments, what
//     FeedDelta costs instead of Feed;
//   - sha256: the hash the idempotency key needs (SPEC section 4);
//   - feed: the per-event cost of Feed itself, on the deltas of a call
//     whose first byte is already a violation, so the preview stops at
//     once and the seal rejects at byte 0.
func BenchmarkFloor(b *testing.B) {
	for _, n := range benchSizes {
		raw := benchArgs(n)
		b.Run("event/"+sizeName(n), func(b *testing.B) {
			benchSink(b, raw, func(s *eventSink, raw []byte) {
				for j := 0; j < len(raw); j += benchDelta {
					s.feed(sealgate.DeltaEvent("r", "0", raw[j:min(j+benchDelta, len(raw))]))
				}
			})
		})
		b.Run("event-by-pointer/"+sizeName(n), func(b *testing.B) {
			benchSink(b, raw, func(s *eventSink, raw []byte) {
				ev := sealgate.DeltaEvent("r", "0", nil)
				for j := 0; j < len(raw); j += benchDelta {
					ev.Bytes = raw[j:min(j+benchDelta, len(raw))]
					s.feedPtr(&ev)
				}
			})
		})
		b.Run("delta-args/"+sizeName(n), func(b *testing.B) {
			benchSink(b, raw, func(s *eventSink, raw []byte) {
				for j := 0; j < len(raw); j += benchDelta {
					s.feedArgs("r", "0", raw[j:min(j+benchDelta, len(raw))])
				}
			})
		})
		b.Run("sha256/"+sizeName(n), func(b *testing.B) {
			b.SetBytes(int64(n))
			start := cpuNanos()
			for b.Loop() {
				sha256.Sum256(raw)
			}
			reportCPU(b, start)
		})
		b.Run("feed/"+sizeName(n), func(b *testing.B) {
			b.SetBytes(int64(n))
			b.ReportAllocs()
			g := benchGate(b, sealgate.DefaultLimits().PreviewBytes)
			start := cpuNanos()
			for b.Loop() {
				benchStart(g)
				g.Feed(sealgate.DeltaEvent("r", "0", []byte("x")))
				for j := 1; j < len(raw); j += benchDelta {
					g.Feed(sealgate.DeltaEvent("r", "0", raw[j:min(j+benchDelta, len(raw))]))
				}
				g.Feed(sealgate.EndEvent("r", "0"))
				if ds, _ := g.Feed(sealgate.CloseEvent("r", sealgate.Complete)); len(ds) != 1 || ds[0].Reason != sealgate.MalformedJSON {
					b.Fatalf("not rejected malformed-json: %v", ds)
				}
			}
			reportCPU(b, start)
		})
	}
}
