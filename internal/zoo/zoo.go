// Package zoo is a bug zoo: real gates, each broken in one way that a real
// agent was broken (the project's research notes, shared/research/real-bugs.md,
// not shipped with the module), so that the suite's
// detection power can be measured rather than asserted. Every bug is the
// real gate with one switch of internal/faults turned on: the same code,
// one targeted change, and no way for a user of package gate to reach it.
package zoo

import (
	"fmt"
	"os"
	"strings"

	"github.com/sealgate/sealgate"
	"github.com/sealgate/sealgate/check"
	"github.com/sealgate/sealgate/internal/zoo/faults"
)

// Bug is one deliberately broken gate.
type Bug struct {
	Name     string // short, for tables and SEALGATE_FAULTS
	Pattern  string // real-bugs.md section 5 pattern
	Findings string // real-bugs.md findings that show it
	What     string // the wrong behaviour, in one sentence
	Faults   faults.Set
	// Corpus says whether some corpus scenario is expected to catch it.
	Corpus bool
	// Class is the issue-17 class of a bug that needs a rare combination
	// (ClassTwoStates, ClassVocabulary), empty for the single-call bugs.
	Class string
	// Rule is the SPEC rule the bug breaks: its section and sentence.
	Rule string
	// Missed, when not empty, says why the generators as they stand are
	// expected to miss the bug: rapid at a fixed seed is then not held to
	// catching it (the deterministic layer Kill still is). The generator
	// change that catches it removes the mark.
	Missed string
	// Kill is the deterministic layer of go test ./... that kills the bug;
	// TestZooDeterministicKill checks it, bug by bug.
	Kill Kill
}

// The issue-17 classes of bugs that the fixed vocabulary of the
// generators reaches rarely or never.
const (
	ClassTwoStates  = "two keys or attempts" // state spanning two keys or two attempts
	ClassVocabulary = "outside vocabulary"   // configurations and inputs outside the fixed vocabulary
)

// Kill names a deterministic layer and where in it the bug dies.
type Kill struct {
	Layer string // LayerCorpus or LayerRapidSeed
	// Where is, for LayerCorpus, the scenario file (slash-separated, from
	// the module root); for LayerRapidSeed, the seed in decimal (100 runs).
	Where string
}

// The deterministic layers of go test ./... (rapid with its default
// random seed is not one).
const (
	LayerCorpus    = "corpus"     // one scenario file replayed with the bug
	LayerRapidSeed = "rapid-seed" // machine.Hunt at a pinned seed, 100 runs
)

// Checker checks the gate with this bug.
func (b Bug) Checker() *check.Checker { return WithFaults(b.Faults) }

// WithFaults checks the real gate with the bugs in s switched on: a subject
// that claims the whole SPEC, as the real gate does, so that every check
// holds it to the model.
func WithFaults(s faults.Set) *check.Checker {
	return check.NewChecker(func(cfg sealgate.Config) (check.Subject, error) {
		g, err := faults.New(cfg, s)
		if err != nil {
			return nil, err
		}
		return faulty{g}, nil
	})
}

// faulty is a gate with planted bugs as a check subject.
type faulty struct{ faults.Gate }

func (faulty) Capabilities() check.Capabilities { return check.FullCapabilities() }

// RepairOnDisconnect: F06 cline, F08 langchainjs, F13 claudish: a call cut
// by a dropped connection is closed with quotes and braces and run.
var RepairOnDisconnect = Bug{Name: "repair-on-disconnect", Pattern: "P1", Findings: "F06, F08, F13",
	What:   "closes the open strings and brackets of calls cut by a disconnect and releases them",
	Faults: faults.Set{RepairOnDisconnect: true}, Corpus: true,
	Rule: "§6: \"A `close` never releases a call without an `end`.\"; I2: \"no repair\"",
	Kill: Kill{LayerCorpus, "corpus/evidence/f08-f13-half-content-disconnected.scn"}}

// ReleaseWhenParses: F01 vercel/ai, F03 fantasy/crush: the first prefix
// that parses finalizes the call.
var ReleaseWhenParses = Bug{Name: "release-when-parses", Pattern: "P2", Findings: "F01, F03",
	What:   "releases a call as soon as its buffer parses, before its end",
	Faults: faults.Set{ReleaseWhenParses: true}, Corpus: true,
	Rule: "§5.1: \"`incomplete`: its own `end` was never seen.\"; I1",
	Kill: Kill{LayerCorpus, "corpus/evidence/f01-f03-parsable-prefix-then-more.scn"}}

// ReleaseAtEnd: F18 agent-framework, F19 grafana/ai-sdk, F64 Effect: a call
// runs at its own end, before the turn is known good.
var ReleaseAtEnd = Bug{Name: "release-at-end", Pattern: "P5", Findings: "F18, F19, F64",
	What:   "releases each call at its own end under after-turn",
	Faults: faults.Set{ReleaseAtEnd: true}, Corpus: true,
	Rule: "§6: \"`after-turn`: every seal decision of an attempt is made at its `close complete`\"; I1",
	Kill: Kill{LayerCorpus, "corpus/evidence/f02-f22-complete-calls-then-failed.scn"}}

// CloseReleasesAll: F02 vercel/ai, F22 dynamo, F58: one terminal event
// runs every queued call, whatever the finish reason.
var CloseReleasesAll = Bug{Name: "close-releases-all", Pattern: "P4", Findings: "F02, F22, F58",
	What:   "takes any close as the end of every call and the success of the turn",
	Faults: faults.Set{CloseReleasesAll: true}, Corpus: true,
	Rule: "§6: \"One `end` releases only its own call. A `close` never releases a call without an `end`.\"; I4",
	Kill: Kill{LayerCorpus, "corpus/evidence/f02-f22-complete-calls-then-truncated.scn"}}

// KeyByTool: F23 smolagents, F24 gcli2api, F28 langchain: parallel calls
// of one tool merged into one buffer.
var KeyByTool = Bug{Name: "key-by-tool", Pattern: "P3", Findings: "F23, F24, F28",
	What:   "keys buffers by tool name, merging parallel calls of one tool",
	Faults: faults.Set{KeyByTool: true}, Corpus: true,
	Rule: "§3: \"Each call has its own record ..., keyed by attempt and item, never by tool name.\"; I5",
	Kill: Kill{LayerCorpus, "corpus/evidence/f23-f24-f28-interleaved-parallel-weather.scn"}}

// StaleAcrossAttempts: F44 web-to-app, F45 Ollama retries: buffers keyed
// by index survive into the next attempt.
var StaleAcrossAttempts = Bug{Name: "stale-across-attempts", Pattern: "P8", Findings: "F44, F45",
	What:   "keys buffers by item across attempts: a call starts with the last bytes seen on its item",
	Faults: faults.Set{StaleAcrossAttempts: true}, Corpus: true,
	Rule: "I8: \"a new attempt never sees an old attempt's bytes.\"",
	Kill: Kill{LayerCorpus, "corpus/evidence/f44-f45-regeneration-superseded.scn"}}

// AppendAfterEnd: F34 claux, F62 pydantic-ai: trailing deltas land in a
// call that already ended.
var AppendAfterEnd = Bug{Name: "append-after-end", Pattern: "P6", Findings: "F34, F62",
	What:   "appends deltas that arrive after their call's end",
	Faults: faults.Set{AppendAfterEnd: true}, Corpus: true,
	Rule: "§3 anomalies table: `after-end`, \"`delta` or `end` for a call already ended\", poisons the attempt",
	Kill: Kill{LayerCorpus, "corpus/evidence/f34-f62-delta-after-end.scn"}}

// IgnoreFinal: F35 openclaw: a stale done snapshot disagrees with the
// streamed bytes and nobody looks.
var IgnoreFinal = Bug{Name: "ignore-final", Pattern: "P6", Findings: "F35",
	What:   "never compares an end's final text with the bytes received",
	Faults: faults.Set{IgnoreFinal: true}, Corpus: true,
	Rule: "§3 anomalies table: `final-mismatch`, \"an `end` whose `final` differs from the bytes accumulated for that call\"",
	Kill: Kill{LayerCorpus, "corpus/evidence/f35-final-mismatch.scn"}}

// LenientJSON: F09 pi, F47 anthropic-sdk-python, F59 helix, Go's
// encoding/json v1: a parser "willing to return a value".
var LenientJSON = Bug{Name: "lenient-json", Pattern: "P9", Findings: "F09, F47, F59",
	What:   "parses like encoding/json v1 (duplicate names: last wins; trailing text ignored; NaN) and re-serializes",
	Faults: faults.Set{LenientJSON: true}, Corpus: true,
	Rule: "§5: \"A lenient parser 'willing to return a value' is not the standard\"; strict grammar: \"no duplicate member names\"",
	Kill: Kill{LayerCorpus, "corpus/evidence/f47-f59-duplicate-key.scn"}}

// EmptyAsObject: F11 hermes, F42 langchain, F46 oh-my-pi, F48
// anthropic-sdk-go: no argument bytes become {}.
var EmptyAsObject = Bug{Name: "empty-as-object", Pattern: "P14", Findings: "F11, F42, F46, F48",
	What:   "seals a call that received no bytes as {}",
	Faults: faults.Set{EmptyAsObject: true}, Corpus: true,
	Rule: "§5.2: \"one left-to-right strict parse of the accumulated bytes\" (no bytes: malformed-json); I2",
	Kill: Kill{LayerCorpus, "corpus/evidence/f11-f46-no-args-ended-is-not-empty-object.scn"}}

// ForgetLedgerOnRestart: F36 anthropic-sdk-python, F37 free-code, F56 MCP
// clients: de-duplication that lives only in memory.
var ForgetLedgerOnRestart = Bug{Name: "memory-only-dedup", Pattern: "P7", Findings: "F36, F37, F56",
	What:   "keeps de-duplication in memory only, so a restart forgets what was done",
	Faults: faults.Set{ForgetLedgerOnRestart: true}, Corpus: true,
	Rule: "§2 `restart`: \"all gate memory is lost; the ledger survives.\"; I7",
	Kill: Kill{LayerCorpus, "corpus/evidence/f36-f38-ack-ok-then-restart-duplicate-effect.scn"}}

// NoCompensate: F64 Effect (the design that needs it): an early release
// whose turn then fails is left standing.
var NoCompensate = Bug{Name: "no-compensate", Pattern: "P5", Findings: "F64",
	What:   "never compensates an early release whose attempt ends badly",
	Faults: faults.Set{NoCompensate: true}, Corpus: true,
	Rule: "§6 ending badly: \"a call released early gets `compensate`\"; I4",
	Kill: Kill{LayerCorpus, "corpus/evidence/f64-f61-per-call-early-compensate.scn"}}

// LeakSplitSecret: F50 OmniRoute, F57 hive, F58: redaction by pattern over
// each chunk of text.
var LeakSplitSecret = Bug{Name: "leak-split-secret", Pattern: "P10", Findings: "F50, F57, F58",
	What:   "redacts secrets per fragment by pattern, so a secret split across deltas shows in previews",
	Faults: faults.Set{LeakSplitSecret: true}, Corpus: true,
	Rule: "I10: \"no secret value, nor any piece of one, appears in a preview or a log line.\"",
	Kill: Kill{LayerCorpus, "corpus/evidence/f57-f58-secret-split-preview.scn"}}

// Unbounded: F54 opencodex, F55 Go SSE readers: buffers that grow for the
// life of a turn.
var Unbounded = Bug{Name: "unbounded", Pattern: "P11", Findings: "F54, F55",
	What:   "ignores call-bytes and turn-bytes",
	Faults: faults.Set{Unbounded: true}, Corpus: true,
	Rule: "§3 byte budgets: \"if the call's bytes plus the fragment exceed call-bytes, the call is rejected `too-large`\"; I9",
	Kill: Kill{LayerCorpus, "corpus/evidence/f54-f55-call-bytes-too-large.scn"}}

// ReuseSuperseded: F44 web-to-app, F46 oh-my-pi: a retry keeps the first
// attempt's half-streamed call.
var ReuseSuperseded = Bug{Name: "reuse-superseded", Pattern: "P8", Findings: "F44, F46",
	What:   "starts a call with the bytes of the superseded attempt's unfinished call on the same item",
	Faults: faults.Set{ReuseSuperseded: true}, Corpus: true,
	Rule: "I8: \"a new attempt never sees an old attempt's bytes.\"",
	Kill: Kill{LayerCorpus, "corpus/evidence/f44-f45-regeneration-superseded.scn"}}

// DisconnectedIsComplete: F04 fantasy, F13 claudish, F14 opencode-copilot:
// a dropped socket taken for success.
var DisconnectedIsComplete = Bug{Name: "disconnected-is-complete", Pattern: "P5", Findings: "F04, F13, F14",
	What:   "takes close disconnected for close complete",
	Faults: faults.Set{DisconnectedIsComplete: true}, Corpus: true,
	Rule: "§2 `close`: \"Only an adapter decides `complete`, and only from the protocol's own success signal.\"",
	Kill: Kill{LayerCorpus, "corpus/evidence/f04-f12-valid-json-then-eof.scn"}}

// AckFailClearsAll: F36 anthropic-sdk-python, F56 MCP clients: at-most-once
// bookkeeping that one failure resets for everyone.
var AckFailClearsAll = Bug{Name: "ack-fail-clears-all", Pattern: "P7", Findings: "F36, F56",
	What:   "empties the whole released set at an ack fail, so another key's duplicate gets reconcile instead of duplicate",
	Faults: faults.Set{AckFailClearsAll: true}, Corpus: true, Class: ClassTwoStates,
	Rule: "§7: \"`ack KEY fail` removes it from the ledger and from the process's released set\"; §5.6: duplicate \"and no `ack fail` cleared it since\"",
	Kill: Kill{LayerCorpus, "corpus/zoo/ack-fail-clears-only-its-key.scn"}}

// AckOkForgetsRelease: F37 free-code, F38 meridian: a de-duplication set
// that only holds calls in flight.
var AckOkForgetsRelease = Bug{Name: "ack-ok-forgets-release", Pattern: "P7", Findings: "F37, F38",
	What:   "drops a key from the released set at ack ok, so a same-process duplicate is rejected duplicate-effect instead of duplicate",
	Faults: faults.Set{AckOkForgetsRelease: true}, Corpus: true, Class: ClassTwoStates,
	Rule: "§5.6: \"`duplicate`: this process released a call with the same idempotency key, and no `ack fail` cleared it since\" (checked before the ledger, 7)",
	Kill: Kill{LayerCorpus, "corpus/zoo/ack-ok-keeps-release.scn"}}

// TurnBytesPerTurn: F44 web-to-app (turn accumulators kept across a
// retry), F54 opencodex (per-turn caps).
var TurnBytesPerTurn = Bug{Name: "turn-bytes-per-turn", Pattern: "P8", Findings: "F44, F54",
	What:   "counts turn-bytes per turn: a regeneration starts with the byte count of the attempt it supersedes",
	Faults: faults.Set{TurnBytesPerTurn: true}, Corpus: true, Class: ClassTwoStates,
	Rule: "§3: \"if the attempt's received bytes plus the fragment exceed turn-bytes, `turn-too-large`\"; I8: \"a new attempt never sees an old attempt's bytes\"",
	Kill: Kill{LayerCorpus, "corpus/zoo/turn-bytes-per-attempt.scn"}}

// CallBytesByItem: F45 Ollama retries (stale argsAccumulated for the same
// call), F54 opencodex.
var CallBytesByItem = Bug{Name: "call-bytes-by-item", Pattern: "P8", Findings: "F45, F54",
	What:   "counts call-bytes per item across attempts: a regeneration's call starts with the superseded call's byte count",
	Faults: faults.Set{CallBytesByItem: true}, Corpus: true, Class: ClassTwoStates,
	Rule: "§3: \"if the call's bytes plus the fragment exceed call-bytes, the call is rejected `too-large`\"; I8",
	Kill: Kill{LayerCorpus, "corpus/zoo/call-bytes-per-call.scn"}}

// FirstSecretPerMember: F57 hive and the logging cluster: redaction that
// covers the first secret it was told about.
var FirstSecretPerMember = Bug{Name: "first-secret-per-member", Pattern: "P10", Findings: "F57",
	What:   "of several secret pointers through one top-level member, redacts only the first",
	Faults: faults.Set{FirstSecretPerMember: true}, Corpus: true, Class: ClassVocabulary,
	Rule: "§8: \"A secret field's value, complete or not, shows as `\"[redacted]\"` from its first byte\"; §4 secret fields (`secret` may repeat, §10); I10",
	Kill: Kill{LayerCorpus, "corpus/zoo/secret-pointers-one-member.scn"}}

// NoncharBMPOnly: F47 anthropic-sdk-python (jiter's lenient defaults): a
// strictness check written for the common case only.
var NoncharBMPOnly = Bug{Name: "nonchar-bmp-only", Pattern: "P9", Findings: "F47",
	What:   "the seal refuses the BMP noncharacters only, releasing U+1FFFE..U+10FFFF's noncharacters",
	Faults: faults.Set{NoncharBMPOnly: true}, Corpus: true, Class: ClassVocabulary,
	Rule: "§5 strict grammar: \"no noncharacters (U+FDD0..U+FDEF, U+xFFFE, U+xFFFF), literal or escaped\"",
	Kill: Kill{LayerCorpus, "corpus/grammar/nonchar-literal.scn"}}

// KeyNumbersParseFloat: F09 pi, F47 (numbers trusted to a library): the
// key's numbers read by strconv.ParseFloat, which misplaces the decimal
// point past 800 mantissa digits (Go 1.26).
var KeyNumbersParseFloat = Bug{Name: "key-numbers-parsefloat", Pattern: "P9", Findings: "F09, F47",
	What:   "canonicalizes the key's numbers with strconv.ParseFloat on the literal, so a long mantissa gets another number's key",
	Faults: faults.Set{KeyNumbersParseFloat: true}, Corpus: true, Class: ClassVocabulary,
	Rule: "§4: \"**Canonical** is RFC 8785 (JCS): ... numbers as IEEE doubles in ECMAScript form\" (the round-to-nearest value, §5)",
	Kill: Kill{LayerCorpus, "corpus/zoo/key-long-mantissa.scn"}}

// FieldsRawNames: F59 helix (escapes handled by hand): a business key read
// by raw name.
var FieldsRawNames = Bug{Name: "fields-raw-names", Pattern: "P9", Findings: "F59",
	What:   "finds the members of a fields: key by their names as written, so \"\\u006e\" is not the field n",
	Faults: faults.Set{FieldsRawNames: true}, Corpus: true, Class: ClassVocabulary,
	Rule: "§4 `fields:a,b`: \"for each listed top-level field (the member whose unescaped name equals it)\"",
	Kill: Kill{LayerCorpus, "corpus/zoo/fields-escaped-name.scn"}}

// All is the zoo, in the order of the tables.
var All = []Bug{RepairOnDisconnect, ReleaseWhenParses, ReleaseAtEnd, CloseReleasesAll, KeyByTool,
	StaleAcrossAttempts, AppendAfterEnd, IgnoreFinal, LenientJSON, EmptyAsObject,
	ForgetLedgerOnRestart, NoCompensate, LeakSplitSecret, Unbounded, ReuseSuperseded,
	DisconnectedIsComplete,
	AckFailClearsAll, AckOkForgetsRelease, TurnBytesPerTurn, CallBytesByItem,
	FirstSecretPerMember, NoncharBMPOnly, KeyNumbersParseFloat, FieldsRawNames}

// ByName finds a bug of the zoo.
func ByName(name string) (Bug, bool) {
	for _, b := range All {
		if b.Name == name {
			return b, true
		}
	}
	return Bug{}, false
}

// Names is every bug's name, in All's order: the values FaultsEnv takes.
func Names() []string {
	names := make([]string, len(All))
	for i, b := range All {
		names[i] = b.Name
	}
	return names
}

// FaultsEnv names the environment variable that plants a zoo bug in the
// gate under go fuzz and the campaign: a fuzz worker is a separate
// process, so the choice travels by environment.
const FaultsEnv = "SEALGATE_FAULTS"

// FromEnv returns check.Default, or a checker of the zoo bug FaultsEnv
// names.
func FromEnv() (*check.Checker, error) {
	v := os.Getenv(FaultsEnv)
	if v == "" {
		return check.Default, nil
	}
	b, ok := ByName(v)
	if !ok {
		return nil, fmt.Errorf("%s=%q: no such bug (have %s)", FaultsEnv, v, strings.Join(Names(), ", "))
	}
	return b.Checker(), nil
}
