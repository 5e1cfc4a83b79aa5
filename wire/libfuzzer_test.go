//go:build gofuzz

package wire

import "testing"

// FuzzWireRoundTripLibFuzzer is FuzzWireRoundTrip for libFuzzer
// (.clusterfuzzlite/build.sh): another name, because compile_native_go_fuzzer
// wants the one file under wire/ that names it, and nothing before f.Fuzz.
func FuzzWireRoundTripLibFuzzer(f *testing.F) {
	f.Fuzz(func(t *testing.T, seed int64, p uint8) { roundTrip(t, Protocols[int(p)%len(Protocols)], seed) })
}

// FuzzWireVertexPiecesLibFuzzer is FuzzWireVertexPieces for libFuzzer.
func FuzzWireVertexPiecesLibFuzzer(f *testing.F) {
	f.Fuzz(func(t *testing.T, seed int64) { vertexPieceRun(t, seed) })
}

// FuzzWireGeminiArrayLibFuzzer is FuzzWireGeminiArray for libFuzzer.
func FuzzWireGeminiArrayLibFuzzer(f *testing.F) {
	f.Fuzz(func(t *testing.T, data []byte) { geminiArrayRun(t, data) })
}
