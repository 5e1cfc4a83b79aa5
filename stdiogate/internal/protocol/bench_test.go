package protocol

import (
	"testing"

	"github.com/go-json-experiment/json"
)

// sampleLines are the samples' valid lines that the direct paths take,
// without their newline.
func sampleLines(b *testing.B) [][]byte {
	var out [][]byte
	for _, m := range sampleMessages() {
		line, ok := encodeFast(nil, m)
		if ok && m.V == Version && m.Check() == nil {
			out = append(out, line[:len(line)-1])
		}
	}
	if len(out) == 0 {
		b.Fatal("no sample line takes the direct path")
	}
	return out
}

// BenchmarkDecodeLine compares Unmarshal with the strict decoder alone on
// the lines of every event.
func BenchmarkDecodeLine(b *testing.B) {
	lines := sampleLines(b)
	b.Run("Unmarshal", func(b *testing.B) {
		b.ReportAllocs()
		for i := 0; b.Loop(); i++ {
			if _, err := Unmarshal(lines[i%len(lines)]); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("strict", func(b *testing.B) {
		b.ReportAllocs()
		for i := 0; b.Loop(); i++ {
			m := new(Message)
			if err := json.Unmarshal(lines[i%len(lines)], m, json.RejectUnknownMembers(true)); err != nil {
				b.Fatal(err)
			}
			if err := m.Check(); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// BenchmarkEncodeLine compares AppendLine, into a reused buffer, with
// json.Marshal on the same messages.
func BenchmarkEncodeLine(b *testing.B) {
	var msgs []*Message
	for _, m := range sampleMessages() {
		if _, ok := encodeFast(nil, m); ok {
			msgs = append(msgs, m)
		}
	}
	b.Run("AppendLine", func(b *testing.B) {
		b.ReportAllocs()
		var buf []byte
		for i := 0; b.Loop(); i++ {
			var err error
			if buf, err = AppendLine(buf[:0], msgs[i%len(msgs)]); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("json", func(b *testing.B) {
		b.ReportAllocs()
		for i := 0; b.Loop(); i++ {
			if _, err := json.Marshal(msgs[i%len(msgs)]); err != nil {
				b.Fatal(err)
			}
		}
	})
}
