package coverage

// Watch is a pair the issue names as one where bugs hide, with why.
type Watch struct {
	Pair Pair
	Why  string
}

// Watched are the pairs docs/research/coverage.md names (and their sharper neighbours):
// sealfuzz coverage reports each one by layer, whatever the overall share.
var Watched = []Watch{
	{PairOf("ack:fail", "keys:two-released"), "what one key's ack does to another key's check"},
	{PairOf("ack:fail-second-key-held", "reason:duplicate"), "an ack fail clears its key only: the other key still blocks its duplicate"},
	{PairOf("ack:fail-rereleased", "keys:two-in-one-attempt"), "a cleared key released again beside another release"},
	{PairOf("supersede", "limit:turn-bytes-hit"), "what a regeneration inherits from the attempt it supersedes under a byte budget"},
	{PairOf("supersede:regeneration-at-budget", "reason:superseded"), "a regeneration at its budget, its predecessor's calls superseded"},
	{PairOf("supersede:regenerated-call", "limit:turn-bytes-edge"), "a regenerated call at exactly the byte budget"},
	{PairOf("secret:two-paths-one-member", "decision:preview"), "several secret pointers through one member, previewed"},
	{PairOf("secret:two-paths-one-member", "decision:release"), "several secret pointers through one member, released in full"},
	{PairOf("value:long-exponent", "config:schema-bounds"), "exponents with many digits against a number bound"},
	{PairOf("value:surrogate-pair-reversed", "reason:malformed-json"), "surrogate escapes in an unusual order"},
	{PairOf("value:noncharacter-supplementary", "reason:malformed-json"), "noncharacters outside the BMP"},
	{PairOf("value:duplicate-name-escaped", "config:idem-fields"), "duplicate names written differently, where a fields key reads one"},
}
