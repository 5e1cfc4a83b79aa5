// Package coverage measures what the suite's generators reach: from one
// scenario (a configuration and its events) and what the reference model
// decided on it, it computes the features of docs/SPEC.md the scenario
// exercised and the pairs of them it exercised together, so that a
// generator's power against bugs that need a combination is counted, not
// assumed. Features are named from the SPEC's own
// tables (event kinds, statuses, decision kinds, reasons, anomaly kinds,
// configuration lines, policies and limits) plus value shapes and the
// cross-key and cross-attempt situations docs/research/coverage.md names. The package is
// plain code: sealfuzz coverage drives it over rapid, gofuzz and the corpus.
package coverage

import (
	"sort"

	"github.com/sealgate/sealgate"
)

// Feature names one thing a scenario can exercise, as "group:detail".
type Feature string

// Group is a family of features. Pairs are formed across groups only
// (see Pairs): two features of one group are mostly alternatives (one
// release policy or the other) or measure how long a run is (two reasons
// means two calls), while the bugs the issue is after sit where two
// families meet (an ack and a second key, a regeneration and a byte
// budget, a secret pointer and a member).
type Group string

// Spec is one feature of the catalog: its name, its group, and what it
// means, in the SPEC's words where they exist.
type Spec struct {
	Name  Feature
	Group Group
	Means string
}

// The groups, in catalog order.
const (
	GroupEvent     Group = "event"
	GroupStatus    Group = "status"
	GroupDecision  Group = "decision"
	GroupReason    Group = "reason"
	GroupAnomaly   Group = "anomaly"
	GroupConfig    Group = "config"
	GroupRelease   Group = "policy-release"
	GroupBatch     Group = "policy-batch"
	GroupLimit     Group = "limit"
	GroupValue     Group = "value"
	GroupSecret    Group = "secret"
	GroupAck       Group = "ack"
	GroupKeys      Group = "keys"
	GroupSupersede Group = "supersede"
	GroupStream    Group = "stream"
)

// limitNames are the SPEC's limits, in its order.
var limitNames = []string{"call-bytes", "turn-bytes", "calls", "depth", "preview-bytes"}

// catalog is every feature, built once from the SPEC's tables (through the
// root vocabulary package) and the lists below.
var catalog = buildCatalog()

func buildCatalog() []Spec {
	var c []Spec
	add := func(g Group, name, means string) { c = append(c, Spec{Feature(name), g, means}) }
	for k := sealgate.Open; k <= sealgate.Peek; k++ {
		add(GroupEvent, "event:"+k.String(), "an event of kind "+k.String()+" (SPEC section 2)")
	}
	for s := sealgate.Complete; s <= sealgate.Disconnected; s++ {
		add(GroupStatus, "status:"+s.String(), "a close with status "+s.String()+" (SPEC section 2)")
	}
	for k := sealgate.Release; k <= sealgate.PreviewAnswer; k++ {
		add(GroupDecision, "decision:"+k.String(), "a "+k.String()+" decision line (SPEC section 10)")
	}
	for _, r := range sealgate.Reasons {
		add(GroupReason, "reason:"+string(r), "a reject with reason "+string(r)+" (SPEC sections 5, 6)")
	}
	for _, a := range sealgate.AnomalyKinds {
		add(GroupAnomaly, "anomaly:"+string(a), "an anomaly of kind "+string(a)+" (SPEC section 3)")
	}
	for _, f := range []struct{ name, means string }{
		{"allow", "a tool with an allow-list (allow line)"},
		{"allow-several", "an allow-list of two values or more"},
		{"early", "a tool declared early (early line)"},
		{"idem-args", "a tool keyed by its arguments (idem args, the default)"},
		{"idem-call", "a tool keyed by call id (idem call)"},
		{"idem-fields", "a tool keyed by listed fields (idem fields:...)"},
		{"idem-fields-several", "an idem fields list of two names or more"},
		{"schema-const", "a schema using const"},
		{"schema-enum", "a schema using enum"},
		{"schema-pattern", "a schema using pattern"},
		{"schema-bounds", "a schema using a number bound (minimum, maximum, exclusive ones, multipleOf)"},
		{"schema-unique-items", "a schema using uniqueItems"},
		{"schema-ref", "a schema using $ref"},
		{"tools-several", "three tools or more"},
	} {
		add(GroupConfig, "config:"+f.name, f.means)
	}
	add(GroupRelease, "policy:after-turn", "release=after-turn (SPEC section 4)")
	add(GroupRelease, "policy:per-call", "release=per-call (SPEC section 4)")
	add(GroupBatch, "policy:independent", "batch=independent (SPEC section 4)")
	add(GroupBatch, "policy:atomic", "batch=atomic (SPEC section 4)")
	for _, l := range limitNames {
		add(GroupLimit, "limit:"+l+"-set", "limit "+l+" set to a value other than its default")
		add(GroupLimit, "limit:"+l+"-edge", "limit "+l+" reached exactly, not passed (\"a limit is passed only when it is exceeded\")")
		add(GroupLimit, "limit:"+l+"-hit", "limit "+l+" exceeded")
	}
	for _, f := range []struct{ name, means string }{
		{"escape-short", `a two-character escape (\" \\ \b \f \n \r \t)`},
		{"escape-solidus", `the escape \/`},
		{"escape-u", `a \uXXXX escape of a BMP character`},
		{"escape-u-uppercase", `a \uXXXX escape with uppercase hex digits`},
		{"bad-escape", `a backslash not followed by a valid escape`},
		{"surrogate-pair", `a surrogate pair escape, high then low`},
		{"surrogate-pair-reversed", `two surrogate escapes in the wrong order, low then high`},
		{"lone-surrogate", `a surrogate escape without its partner`},
		{"surrogate-utf8", `a surrogate code point written as UTF-8 bytes (ED A0..BF)`},
		{"noncharacter-bmp", `a BMP noncharacter (U+FDD0..U+FDEF, U+FFFE, U+FFFF), literal or escaped`},
		{"noncharacter-supplementary", `a noncharacter of planes 1-16 (U+xFFFE, U+xFFFF), literal or escaped`},
		{"non-ascii", `a valid multi-byte UTF-8 character in a string`},
		{"four-byte-rune", `a literal 4-byte UTF-8 character`},
		{"invalid-utf8", `bytes that are not UTF-8`},
		{"bom", `a leading byte order mark`},
		{"control-char", `a raw control character inside a string`},
		{"exponent", `a number with an exponent`},
		{"long-exponent", `an exponent of four digits or more (more than any float64 needs)`},
		{"fraction", `a number with a fraction`},
		{"long-mantissa", `a number of 17 significant digits or more`},
		{"inexact-integer", `an integer beyond 2^53 (digits beyond float64 precision)`},
		{"negative-zero", `-0 written as a number`},
		{"overflow", `a number whose float64 value is infinite`},
		{"underflow", `a nonzero number that rounds to zero`},
		{"literal", `true, false or null`},
		{"array", `an array`},
		{"nested", `nesting of depth 3 or more`},
		{"empty-object", `the whole text is {}`},
		{"whitespace", `whitespace outside strings`},
		{"escaped-name", `a member name written with an escape`},
		{"duplicate-name", `one member name twice in one object, written the same`},
		{"duplicate-name-escaped", `one member name twice in one object, written differently (equal after unescaping)`},
	} {
		add(GroupValue, "value:"+f.name, f.means)
	}
	for _, f := range []struct{ name, means string }{
		{"name", "a secret given as a top-level member name"},
		{"pointer", "a secret given as a JSON Pointer"},
		{"nested-pointer", "a secret pointer of two tokens or more"},
		{"pointer-escape", "a secret pointer with ~0 or ~1"},
		{"two-paths-one-member", "two secret declarations of one tool through one top-level member"},
		{"peek-redacted", "a preview that shows [redacted]"},
	} {
		add(GroupSecret, "secret:"+f.name, f.means)
	}
	for _, f := range []struct{ name, means string }{
		{"ok", "ack KEY ok for a key in intent"},
		{"fail", "ack KEY fail for a key in intent"},
		{"fail-second-key-held", "ack fail of one key while a second released key is still in intent"},
		{"fail-rereleased", "a key released again after an ack fail cleared it"},
		{"after-restart", "an ack for a key written before the last restart"},
	} {
		add(GroupAck, "ack:"+f.name, f.means)
	}
	for _, f := range []struct{ name, means string }{
		{"two-released", "two different keys released in one run"},
		{"two-in-one-attempt", "two releases from one attempt"},
		{"reconcile-shared", "two calls reconciled on one in-doubt key"},
	} {
		add(GroupKeys, "keys:"+f.name, f.means)
	}
	add(GroupSupersede, "supersede", "an open for a turn with a live attempt supersedes it (SPEC section 2)")
	for _, f := range []struct{ name, means string }{
		{"chain", "one turn superseded twice"},
		{"dead-not-superseded", "an open for a turn whose attempt is dead: it is not superseded"},
		{"regenerated-call", "a superseding attempt begins a call with the item and call id of one it superseded"},
		{"compensate", "an early release compensated because its attempt was superseded"},
		{"regeneration-at-budget", "a superseding attempt reaches or passes turn-bytes"},
	} {
		add(GroupSupersede, "supersede:"+f.name, f.means)
	}
	for _, f := range []struct{ name, means string }{
		{"end-final", "an end that repeats the whole argument string (final)"},
		{"end-final-match", "an end whose final equals the bytes received"},
		{"delta-empty", "an empty fragment"},
		{"split-rune", "a fragment that ends inside a UTF-8 sequence"},
		{"split-escape", "a fragment that ends inside a backslash escape"},
		{"interleaved", "fragments of two calls of one attempt interleaved"},
		{"two-live-attempts", "two attempts live at once"},
		{"restart-mid-stream", "a restart while an attempt is live"},
		{"unknown-tool", "a call begun for a tool the configuration does not declare"},
		{"call-no-bytes", "a call that ends with no bytes at all"},
		{"peek-empty", "a preview answering bytes=0 value=-"},
	} {
		add(GroupStream, "stream:"+f.name, f.means)
	}
	return c
}

// Catalog returns every feature, in catalog order.
func Catalog() []Spec { return append([]Spec(nil), catalog...) }

// groupOf maps a feature to its group; a name outside the catalog has none.
var groupOf = func() map[Feature]Group {
	m := map[Feature]Group{}
	for _, s := range catalog {
		m[s.Name] = s.Group
	}
	return m
}()

// Known reports whether f is in the catalog.
func Known(f Feature) bool { _, ok := groupOf[f]; return ok }

// GroupOf returns f's group ("" when f is not in the catalog).
func GroupOf(f Feature) Group { return groupOf[f] }

// Set is a set of features.
type Set map[Feature]bool

// Sorted returns the features of s in name order.
func (s Set) Sorted() []Feature {
	out := make([]Feature, 0, len(s))
	for f := range s {
		out = append(out, f)
	}
	sort.Slice(out, func(i, j int) bool { return out[i] < out[j] })
	return out
}
