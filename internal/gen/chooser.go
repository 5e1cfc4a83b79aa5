package gen

import "pgregory.net/rapid"

// Chooser is where a generator's choices come from: rapid's draws in the
// state machine, the input bytes in the gofuzz reading. Intn returns a
// number in [0, n).
type Chooser interface {
	Intn(n int, label string) int
}

// ByteChooser spends one byte per choice and answers 0 once the bytes run
// out, so a short input is a simple run and an empty one the simplest.
type ByteChooser struct{ Data []byte }

// Intn implements Chooser.
func (b *ByteChooser) Intn(n int, _ string) int {
	if n <= 1 || len(b.Data) == 0 {
		return 0
	}
	v := b.Data[0]
	b.Data = b.Data[1:]
	return int(v) % n
}

// MixChooser is a Chooser from a small deterministic generator
// (SplitMix64) that a few input bytes seed: one byte of input picks a whole
// generated document.
type MixChooser struct{ State uint64 }

// Intn implements Chooser.
func (m *MixChooser) Intn(n int, _ string) int {
	if n <= 1 {
		return 0
	}
	m.State += 0x9e3779b97f4a7c15
	z := m.State
	z = (z ^ z>>30) * 0xbf58476d1ce4e5b9
	z = (z ^ z>>27) * 0x94d049bb133111eb
	return int((z ^ z>>31) % uint64(n))
}

// drawChooser makes each choice a rapid draw.
type drawChooser struct{ t *rapid.T }

// Intn implements Chooser.
func (d drawChooser) Intn(n int, label string) int {
	if n <= 1 {
		return 0
	}
	return rapid.IntRange(0, n-1).Draw(d.t, label)
}

// SeededChooser is the source of one generated document's (or swarm's)
// choices under rapid: a generator seeded by one draw. A document takes
// dozens of choices, and one rapid draw each would cost the machine reading
// many of its execs (rapid logs every draw under go fuzz); the reducer, not rapid's
// shrinker, makes a failing document or configuration small.
func SeededChooser(t *rapid.T) Chooser {
	return &MixChooser{State: rapid.Uint64().Draw(t, "doc-seed")}
}
