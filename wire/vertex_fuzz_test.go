package wire

import (
	"testing"

	"github.com/sealgate/sealgate/internal/fuzzkit"
)

// TestVertexPieces runs the piece-sequence fuzz body over fixed seeds.
func TestVertexPieces(t *testing.T) {
	for seed := int64(0); seed < 3000; seed++ {
		vertexPieceRun(t, seed)
	}
}

func FuzzWireVertexPieces(f *testing.F) {
	fuzzkit.AddSeeds(f, vertexPieceSeeds())
	f.Fuzz(func(t *testing.T, seed int64) { vertexPieceRun(t, seed) })
}
