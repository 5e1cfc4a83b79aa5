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

	"github.com/sealgate/sealgate/check"
	"github.com/sealgate/sealgate/internal/faults"
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
}

// Checker checks the gate with this bug.
func (b Bug) Checker() *check.Checker { return check.WithFaults(b.Faults) }

// RepairOnDisconnect: F06 cline, F08 langchainjs, F13 claudish: a call cut
// by a dropped connection is closed with quotes and braces and run.
var RepairOnDisconnect = Bug{"repair-on-disconnect", "P1", "F06, F08, F13",
	"closes the open strings and brackets of calls cut by a disconnect and releases them",
	faults.Set{RepairOnDisconnect: true}, true}

// ReleaseWhenParses: F01 vercel/ai, F03 fantasy/crush: the first prefix
// that parses finalizes the call.
var ReleaseWhenParses = Bug{"release-when-parses", "P2", "F01, F03",
	"releases a call as soon as its buffer parses, before its end",
	faults.Set{ReleaseWhenParses: true}, true}

// ReleaseAtEnd: F18 agent-framework, F19 grafana/ai-sdk, F64 Effect: a call
// runs at its own end, before the turn is known good.
var ReleaseAtEnd = Bug{"release-at-end", "P5", "F18, F19, F64",
	"releases each call at its own end under after-turn",
	faults.Set{ReleaseAtEnd: true}, true}

// CloseReleasesAll: F02 vercel/ai, F22 dynamo, F58: one terminal event
// runs every queued call, whatever the finish reason.
var CloseReleasesAll = Bug{"close-releases-all", "P4", "F02, F22, F58",
	"takes any close as the end of every call and the success of the turn",
	faults.Set{CloseReleasesAll: true}, true}

// KeyByTool: F23 smolagents, F24 gcli2api, F28 langchain: parallel calls
// of one tool merged into one buffer.
var KeyByTool = Bug{"key-by-tool", "P3", "F23, F24, F28",
	"keys buffers by tool name, merging parallel calls of one tool",
	faults.Set{KeyByTool: true}, true}

// StaleAcrossAttempts: F44 web-to-app, F45 Ollama retries: buffers keyed
// by index survive into the next attempt.
var StaleAcrossAttempts = Bug{"stale-across-attempts", "P8", "F44, F45",
	"keys buffers by item across attempts: a call starts with the last bytes seen on its item",
	faults.Set{StaleAcrossAttempts: true}, true}

// AppendAfterEnd: F34 claux, F62 pydantic-ai: trailing deltas land in a
// call that already ended.
var AppendAfterEnd = Bug{"append-after-end", "P6", "F34, F62",
	"appends deltas that arrive after their call's end",
	faults.Set{AppendAfterEnd: true}, true}

// IgnoreFinal: F35 openclaw: a stale done snapshot disagrees with the
// streamed bytes and nobody looks.
var IgnoreFinal = Bug{"ignore-final", "P6", "F35",
	"never compares an end's final text with the bytes received",
	faults.Set{IgnoreFinal: true}, true}

// LenientJSON: F09 pi, F47 anthropic-sdk-python, F59 helix, Go's
// encoding/json v1: a parser "willing to return a value".
var LenientJSON = Bug{"lenient-json", "P9", "F09, F47, F59",
	"parses like encoding/json v1 (duplicate names: last wins; trailing text ignored; NaN) and re-serializes",
	faults.Set{LenientJSON: true}, true}

// EmptyAsObject: F11 hermes, F42 langchain, F46 oh-my-pi, F48
// anthropic-sdk-go: no argument bytes become {}.
var EmptyAsObject = Bug{"empty-as-object", "P14", "F11, F42, F46, F48",
	"seals a call that received no bytes as {}",
	faults.Set{EmptyAsObject: true}, true}

// ForgetLedgerOnRestart: F36 anthropic-sdk-python, F37 free-code, F56 MCP
// clients: de-duplication that lives only in memory.
var ForgetLedgerOnRestart = Bug{"memory-only-dedup", "P7", "F36, F37, F56",
	"keeps de-duplication in memory only, so a restart forgets what was done",
	faults.Set{ForgetLedgerOnRestart: true}, true}

// NoCompensate: F64 Effect (the design that needs it): an early release
// whose turn then fails is left standing.
var NoCompensate = Bug{"no-compensate", "P5", "F64",
	"never compensates an early release whose attempt ends badly",
	faults.Set{NoCompensate: true}, true}

// LeakSplitSecret: F50 OmniRoute, F57 hive, F58: redaction by pattern over
// each chunk of text.
var LeakSplitSecret = Bug{"leak-split-secret", "P10", "F50, F57, F58",
	"redacts secrets per fragment by pattern, so a secret split across deltas shows in previews",
	faults.Set{LeakSplitSecret: true}, true}

// Unbounded: F54 opencodex, F55 Go SSE readers: buffers that grow for the
// life of a turn.
var Unbounded = Bug{"unbounded", "P11", "F54, F55",
	"ignores call-bytes and turn-bytes",
	faults.Set{Unbounded: true}, true}

// ReuseSuperseded: F44 web-to-app, F46 oh-my-pi: a retry keeps the first
// attempt's half-streamed call.
var ReuseSuperseded = Bug{"reuse-superseded", "P8", "F44, F46",
	"starts a call with the bytes of the superseded attempt's unfinished call on the same item",
	faults.Set{ReuseSuperseded: true}, true}

// DisconnectedIsComplete: F04 fantasy, F13 claudish, F14 opencode-copilot:
// a dropped socket taken for success.
var DisconnectedIsComplete = Bug{"disconnected-is-complete", "P5", "F04, F13, F14",
	"takes close disconnected for close complete",
	faults.Set{DisconnectedIsComplete: true}, true}

// All is the zoo, in the order of the tables.
var All = []Bug{RepairOnDisconnect, ReleaseWhenParses, ReleaseAtEnd, CloseReleasesAll, KeyByTool,
	StaleAcrossAttempts, AppendAfterEnd, IgnoreFinal, LenientJSON, EmptyAsObject,
	ForgetLedgerOnRestart, NoCompensate, LeakSplitSecret, Unbounded, ReuseSuperseded,
	DisconnectedIsComplete}

// ByName finds a bug of the zoo.
func ByName(name string) (Bug, bool) {
	for _, b := range All {
		if b.Name == name {
			return b, true
		}
	}
	return Bug{}, false
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
		var names []string
		for _, b := range All {
			names = append(names, b.Name)
		}
		return nil, fmt.Errorf("%s=%q: no such bug (have %s)", FaultsEnv, v, strings.Join(names, ", "))
	}
	return b.Checker(), nil
}
