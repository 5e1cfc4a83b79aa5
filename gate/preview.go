package gate

import (
	"github.com/sealgate/sealgate/gate/internal/partial"
)

// PreviewChange is one step of a call's preview growth (SPEC section 8),
// for a UI that keeps its view up to date without asking for snapshots:
// applied in order to a PreviewView, the changes render exactly what a
// peek would answer at the same point. Changes are read from the preview's
// visible text only, so they never hold a secret's bytes, anything after the
// first violation or anything past preview-bytes.
//
// Previews never reach the release path, by construction of the types: the
// only release is a sealgate.Decision whose Args is a sealgate.Sealed, a
// []byte filled in by the seal from the call's own raw bytes. A preview is a
// struct (sealgate.Preview, PreviewChange), and Go has no conversion from a
// struct to a slice type, so each of these is a compile-time error:
//
//	var s sealgate.Sealed = change          // cannot use change (PreviewChange) as sealgate.Sealed
//	d.Args = sealgate.Sealed(answer.Preview) // cannot convert sealgate.Preview to sealgate.Sealed
//
// and nothing in this package reads a preview to build a Decision's Args.
//
// A change's Text shares a block of about 4 KiB with nearby changes' texts
// (one allocation per block, not per delta): keeping one Text keeps its
// block. PreviewView copies what it keeps.
type PreviewChange = partial.Change

// PreviewChangeKind says what a PreviewChange does.
type PreviewChangeKind = partial.ChangeKind

// PreviewPathStep is one step of a PreviewChange's path.
type PreviewPathStep = partial.PathStep

// PreviewView is a preview rebuilt from PreviewChanges alone; its String is
// the value a peek answers.
type PreviewView = partial.View

// The kinds of PreviewChange.
const (
	ChangeOpen     = partial.ChangeOpen
	ChangeScalar   = partial.ChangeScalar
	ChangeRedacted = partial.ChangeRedacted
	ChangeGrow     = partial.ChangeGrow
	ChangeClose    = partial.ChangeClose
	ChangeStop     = partial.ChangeStop
	ChangeGone     = partial.ChangeGone
)

// PreviewStream is the streaming form of one call's preview. Like the Gate,
// it is not safe for concurrent use; read it between Feeds. Its Next parses
// what the call received since (Feed leaves a preview's parsing to whoever
// reads it), so it changes the gate's state as a Feed does.
type PreviewStream struct {
	g    *Gate
	gen  int
	a    *attempt
	c    *call
	w    *partial.Watcher // nil once the call is gone
	last int              // bytes seen at the last Next
}

// Watch starts a preview stream for a live, undecided call. The first Next
// reports everything visible so far. It reports false for a call that is not
// live, as a peek would answer bytes=0 value=-.
func (g *Gate) Watch(attempt, item string) (*PreviewStream, bool) {
	a := g.attempts[attempt]
	if a == nil || a.state != live {
		return nil, false
	}
	c := a.items[item]
	if c == nil || c.decided {
		return nil, false
	}
	return &PreviewStream{g: g, gen: g.gen, a: a, c: c, w: c.preview.Watch()}, true
}

func (s *PreviewStream) live() bool {
	return s.g.gen == s.gen && s.a.state == live && !s.c.decided
}

// Next appends to dst the changes since the last call and returns it. Once
// the call is no longer live (decided, its attempt ended, a restart), it
// sends ChangeGone once and then nothing.
func (s *PreviewStream) Next(dst []PreviewChange) []PreviewChange {
	if s.w == nil {
		return dst
	}
	if !s.live() {
		s.w, s.last = nil, 0
		return append(dst, PreviewChange{Kind: ChangeGone})
	}
	s.last = len(s.c.buf)
	s.c.previewed()
	return s.w.Next(dst)
}

// Bytes is the count a peek would answer at the last Next: every byte
// received, not capped; 0 once the call is gone.
func (s *PreviewStream) Bytes() int { return s.last }
