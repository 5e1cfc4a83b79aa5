// Package libfuzzer holds the harnesses that go-118-fuzz-build turns into
// libFuzzer binaries (OSS-Fuzz's compile_native_go_fuzzer, see
// .clusterfuzzlite/build.sh). They sit in a file built only with the
// gofuzz tag, so that go test and the campaign do not run the root
// targets twice, and in a package of their own, because
// compile_native_go_fuzzer looks for the harness's name in every file
// under its directory and wants to find it in one. Each harness does
// nothing before f.Fuzz (the shim runs the whole harness once per input:
// seeds come from the seed corpus zips instead of f.Add) and hands its
// input to the body in package fuzztarget.
package libfuzzer
