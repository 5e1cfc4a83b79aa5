package gen_test

import (
	"math/rand"
	"testing"

	"github.com/sealgate/sealgate/internal/gen"
	"github.com/sealgate/sealgate/model"
)

// TestGofuzzReadingDrawsHiddenShapes: of the streams random bytes make (as
// `sealfuzz test -gate` makes them), at least one in ten has a bad close
// after every call ended and at least one in twenty-five a call decided
// by another key's state after an ack fail.
func TestGofuzzReadingDrawsHiddenShapes(t *testing.T) {
	const n = 2000
	r := rand.New(rand.NewSource(1))
	closes, acks := 0, 0
	for range n {
		b := make([]byte, 16+r.Intn(496))
		r.Read(b)
		cfg, evs := gen.FromBytes(b)
		ds := model.Run(cfg, evs)
		if gen.BadCloseAfterEnds(evs, ds) {
			closes++
		}
		if gen.OtherKeyAfterAckFail(evs, ds) {
			acks++
		}
	}
	t.Logf("of %d streams: %d a bad close after every call ended, %d a call decided by another key after an ack fail", n, closes, acks)
	if closes < n/10 || acks < n/25 {
		t.Fatalf("of %d streams: %d with a bad close after every call ended (want %d), %d with another key deciding after an ack fail (want %d)",
			n, closes, n/10, acks, n/25)
	}
}
