#!/bin/bash -eu
# Builds every fuzz target of sealgate as a libFuzzer binary in $OUT, with
# its f.Add seeds as $OUT/NAME_seed_corpus.zip. ClusterFuzzLite and OSS-Fuzz
# run it in the base-builder-go image (compile_native_go_fuzzer, $OUT,
# $WORK come from there); .ci/cflite-local runs the same file on a plain
# Debian machine, with a stand-in compile_native_go_fuzzer on PATH.
# NAME is the go test name of the target, so a crash names its target.

# base-builder-go ships an older Go than the go.mod's 1.26: the go command
# (1.21 or later) fetches this toolchain from the module proxy itself, and
# every later go command (go-118-fuzz-build's included) runs it.
export GOTOOLCHAIN=go1.26.8
go version

# go-118-fuzz-build, pinned; its testing shim replaces "testing" in each
# harness file, so the build's copy of go.mod needs it (the repository's
# go.mod does not).
FUZZ_BUILD_VERSION=v0.0.0-20250520111509-a70c2aa677fa
cd "$(dirname "$0")/.."
go install github.com/AdamKorcz/go-118-fuzz-build@$FUZZ_BUILD_VERSION
go get github.com/AdamKorcz/go-118-fuzz-build/testing@$FUZZ_BUILD_VERSION

M=github.com/sealgate/sealgate
# Every harness is named as its go test target plus LibFuzzer, a name that
# compile_native_go_fuzzer finds in one file of its folder; the binary takes
# the go test name, so that a crash names its target. The root targets'
# harnesses sit beside their bodies in internal/fuzztarget.
compile_native_go_fuzzer $M/internal/fuzztarget FuzzGateVsModelLibFuzzer FuzzGateVsModel
compile_native_go_fuzzer $M/internal/fuzztarget FuzzStrictJSONLibFuzzer FuzzStrictJSON
compile_native_go_fuzzer $M/internal/fuzztarget FuzzChunkingLibFuzzer FuzzChunking
compile_native_go_fuzzer $M/internal/fuzztarget FuzzScenarioTextLibFuzzer FuzzScenarioText
compile_native_go_fuzzer $M/internal/fuzztarget FuzzPreviewLibFuzzer FuzzPreview
compile_native_go_fuzzer $M/internal/fuzztarget FuzzWireOpenAIResponsesLibFuzzer FuzzWireOpenAIResponses
compile_native_go_fuzzer $M/internal/fuzztarget FuzzWireOpenAIChatLibFuzzer FuzzWireOpenAIChat
compile_native_go_fuzzer $M/internal/fuzztarget FuzzWireAnthropicLibFuzzer FuzzWireAnthropic
compile_native_go_fuzzer $M/internal/fuzztarget FuzzWireGeminiLibFuzzer FuzzWireGemini
# Harnesses that test unexported code sit in their package.
compile_native_go_fuzzer $M/gate FuzzSealTextLibFuzzer FuzzSealText
compile_native_go_fuzzer $M/scn FuzzParseLibFuzzer FuzzParse
compile_native_go_fuzzer $M/wire FuzzWireRoundTripLibFuzzer FuzzWireRoundTrip
compile_native_go_fuzzer $M/wire FuzzWireVertexPiecesLibFuzzer FuzzWireVertexPieces
compile_native_go_fuzzer $M/wire FuzzWireGeminiArrayLibFuzzer FuzzWireGeminiArray
# gate/internal/partial may be imported only from under gate/, and
# go-118-fuzz-build writes its main package into the current directory.
(cd gate && compile_native_go_fuzzer $M/gate/internal/partial FuzzPartialLibFuzzer FuzzPartial)
(cd gate && compile_native_go_fuzzer $M/gate/internal/partial FuzzWatchLibFuzzer FuzzWatch)

# libFuzzer drops f.Add seeds: each package's TestWriteSeedCorpus writes them
# in the shim's layout (one file per seed, under seeds/TARGET/).
seeds=$WORK/sealgate-seeds
rm -rf "$seeds"
SEALGATE_SEED_CORPUS=$seeds go test -count=1 -run '^TestWriteSeedCorpus$' . ./gate ./gate/internal/partial ./scn ./wire >/dev/null
for dir in "$seeds"/*/; do
  name=$(basename "$dir")
  rm -f "$OUT/${name}_seed_corpus.zip"
  (cd "$dir" && zip -q -r "$OUT/${name}_seed_corpus.zip" .)
done
