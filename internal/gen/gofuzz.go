package gen

import (
	"fmt"

	fuzz "github.com/google/gofuzz"

	"github.com/sealgate/sealgate"
	"github.com/sealgate/sealgate/model"
	"github.com/sealgate/sealgate/scn"
)

// The gofuzz reading: fuzzer bytes drive gofuzz into a Raw scenario, and
// Build interprets it under a fixed or a generated configuration.

// zeroTail is a rand.Source that spends one input byte per number
// (replicated across the word, so that both the high bits rand.Intn reads
// and the low bits a uint8 field takes depend on it) and returns zeros once
// the input runs out. One byte per choice keeps the fuzzer's mutations
// local: changing a byte changes one decision.
type zeroTail struct{ data []byte }

func (z *zeroTail) Int63() int64 {
	if len(z.data) == 0 {
		return 0
	}
	b := z.data[0]
	z.data = z.data[1:]
	return int64(uint64(b) * 0x0101010101010101 >> 1)
}

func (z *zeroTail) Seed(int64) {}

// Raw is the shape gofuzz fills. Small integers index into fixed pools so
// that ids collide often (the interesting case) and stay readable.
type Raw struct {
	Release, Batch uint8
	Idem           uint8
	Early, Allow   bool
	Limits         [5]uint8 // 0: default; else a small limit
	// Swarm, when its first byte is odd, replaces the fixed configuration
	// with a generated one (DrawSwarm reads the rest) and lets begins grow
	// documents for the generated tools.
	Swarm  []uint8
	Events []RawEvent
}

// RawEvent is one event before interpretation.
type RawEvent struct {
	Kind                     uint8
	Attempt, Item, Turn, Doc uint8
	Call, Tool               uint8
	Chunk                    uint8 // how many bytes of the call's document a delta carries
	Garbage                  uint8 // which of GarbagePieces, when UseGarbage
	UseGarbage               bool
	Status                   uint8
	Final                    uint8 // 0 none, 1 what was sent, 2 the whole document, 3 garbage
	Key                      uint8
	OK                       bool
}

// maxEvents bounds a scenario, so a long input cannot make a slow one.
const maxEvents = 64

// FromBytes decodes fuzzer bytes into a scenario. It never fails: every
// input is some scenario.
func FromBytes(data []byte) (sealgate.Config, []sealgate.Event) {
	var r Raw
	f := fuzz.New().RandSource(&zeroTail{data: data}).NilChance(0).NumElements(0, maxEvents).MaxDepth(4)
	f.Fuzz(&r)
	return Build(r)
}

var (
	attempts = []string{"r1", "r2", "r3"}
	items    = []string{"0", "1", "2"}
	turns    = []string{"t1", "t2"}
	calls    = []string{"c1", "c2", "c3", "c4"}
	toolIDs  = []string{"save_file", "login", "calc", "nope"}
	keys     = []string{"0000000000000000"}
)

func pick(xs []string, i uint8) string { return xs[int(i)%len(xs)] }

// Build interprets a Raw scenario.
func Build(r Raw) (sealgate.Config, []sealgate.Event) {
	cfg := sealgate.DefaultConfig()
	cfg.Tools = Tools()
	var sw *Swarm
	tools := toolIDs
	if len(r.Swarm) > 0 && r.Swarm[0]%2 == 1 {
		sw = DrawSwarm(&ByteChooser{Data: r.Swarm[1:]})
		cfg, tools = sw.Config, sw.ToolNames()
	} else {
		fixedConfig(&cfg, r)
	}
	return cfg, buildEvents(r, cfg, sw, tools)
}

// buildEvents interprets r's events under cfg; with a swarm, a begin grows
// a document for its tool from a choice stream its own bytes seed.
func buildEvents(r Raw, cfg sealgate.Config, sw *Swarm, tools []string) []sealgate.Event {
	seed := uint64(len(r.Swarm))
	for _, b := range r.Swarm {
		seed = seed*31 + uint64(b)
	}
	b := &eventBuilder{cfg: cfg, sw: sw, tools: tools, seed: seed, sent: map[string]*callState{}, lastItem: map[string]string{}}
	for _, e := range r.Events {
		b.event(e)
	}
	return b.evs
}

// eventBuilder interprets a Raw scenario's events one by one.
type eventBuilder struct {
	cfg   sealgate.Config
	sw    *Swarm
	tools []string
	seed  uint64                // of the swarm's bytes: seeds a begin's generated document
	sent  map[string]*callState // attempt/item -> what was streamed so far
	evs   []sealgate.Event
	// Most events go to the attempt opened last and to the item begun last
	// in it (the shapes real streams have); the pools make the rest collide.
	cur      string
	lastItem map[string]string
}

// callState is a call's document and how much of it was streamed.
type callState struct {
	doc  string
	sent int
}

// event interprets one raw event.
func (b *eventBuilder) event(e RawEvent) {
	a, item := b.target(e)
	cs := b.sent[a+"/"+item]
	switch e.Kind % 13 {
	case 0:
		// zeros past the end of the input add nothing
	case 1, 12:
		b.open(e)
	case 2, 3:
		b.begin(e, a, item)
	case 4, 5, 6:
		b.add(sealgate.DeltaEvent(a, item, fragment(e, cs)))
	case 7:
		b.add(endEvent(e, a, item, cs))
	case 8:
		b.add(sealgate.CloseEvent(a, sealgate.Status(1+int(e.Status)%5)))
	case 9:
		b.add(sealgate.PeekEvent(a, item))
	case 10:
		b.add(sealgate.AckEvent(ackKey(b.cfg, b.evs, e.Key), e.OK))
	case 11:
		b.add(sealgate.RestartEvent())
	}
}

func (b *eventBuilder) add(e sealgate.Event) { b.evs = append(b.evs, e) }

// target is the attempt and item e goes to: mostly the attempt opened last
// and the item begun last in it, else e's picks from the pools.
func (b *eventBuilder) target(e RawEvent) (a, item string) {
	a, item = pick(attempts, e.Attempt), pick(items, e.Item)
	if b.cur != "" && e.Attempt%4 != 3 {
		a = b.cur
	}
	if li, ok := b.lastItem[a]; ok && e.Item%4 != 3 && e.Kind%13 > 3 && e.Kind%13 != 12 {
		item = li
	}
	return a, item
}

// open opens an attempt of the pool, or a fresh one, and makes it current.
func (b *eventBuilder) open(e RawEvent) {
	a := pick(attempts, e.Attempt)
	if e.Attempt%4 == 0 {
		a = fmt.Sprintf("r%d", len(b.evs)) // a fresh id
	}
	b.cur = a
	b.add(sealgate.OpenEvent(a, pick(turns, e.Turn)))
}

// begin begins a call of item on attempt a, growing toward a fixed
// document or, with a swarm, mostly one generated for its tool.
func (b *eventBuilder) begin(e RawEvent, a, item string) {
	b.lastItem[a] = item
	tool := pick(b.tools, e.Tool)
	doc := Docs[int(e.Doc)%len(Docs)]
	if b.sw != nil && e.Doc%4 != 0 {
		doc = string(b.sw.Doc(&MixChooser{State: b.seed ^ uint64(e.Doc)<<16 ^ uint64(e.Chunk)<<8 ^ uint64(e.Garbage)}, tool))
	}
	b.sent[a+"/"+item] = &callState{doc: doc}
	b.add(sealgate.BeginEvent(a, item, pick(calls, e.Call), tool))
}

// fragment is a delta's bytes: a garbage piece, or the next piece of the
// call's document (cs, nil for no call), up to 22 bytes or the whole rest.
func fragment(e RawEvent, cs *callState) []byte {
	switch {
	case e.UseGarbage:
		return GarbagePieces[int(e.Garbage)%len(GarbagePieces)]
	case cs != nil:
		n := min(int(e.Chunk)%24, len(cs.doc)-cs.sent)
		if int(e.Chunk)%24 == 23 {
			n = len(cs.doc) - cs.sent
		}
		b := []byte(cs.doc[cs.sent : cs.sent+n])
		cs.sent += n
		return b
	}
	return nil
}

// endEvent ends item of a: plainly, or with a final text of what was sent,
// of the whole document, or of garbage.
func endEvent(e RawEvent, a, item string, cs *callState) sealgate.Event {
	switch {
	case e.Final%4 == 1 && cs != nil:
		return sealgate.EndFinalEvent(a, item, []byte(cs.doc[:cs.sent]))
	case e.Final%4 == 2 && cs != nil:
		return sealgate.EndFinalEvent(a, item, []byte(cs.doc))
	case e.Final%4 == 3:
		return sealgate.EndFinalEvent(a, item, GarbagePieces[int(e.Garbage)%len(GarbagePieces)])
	}
	return sealgate.EndEvent(a, item)
}

// ackKey names a key the run has released or reconciled so far (asking the
// reference model), or a key nobody holds.
func ackKey(cfg sealgate.Config, evs []sealgate.Event, i uint8) string {
	known := append(model.LedgerKeys(cfg, evs), keys...)
	return known[int(i)%len(known)]
}

// Reading is how FuzzGateVsModel reads an input, by its first byte.
type Reading int

const (
	// Gofuzz (first byte 0 mod 4, or no byte at all): the rest drives
	// gofuzz (FromBytes).
	Gofuzz Reading = iota
	// Text (first byte odd): the rest is .scn text, so corpus files can
	// seed the target.
	Text
	// Machine (first byte 2 mod 4): the rest is rapid's bitstream for one
	// run of the state machine of package machine (rapid.MakeFuzz under go
	// fuzz, machine.Replay outside it), so every mutation is a coherent
	// stream. Package machine imports gen, so gen cannot decode it.
	Machine
)

// ReadingOf says how FuzzGateVsModel reads data. The low bits of the first
// byte choose: x1 text, 00 gofuzz, 10 machine, so a mutated first byte
// lands in each reading (half of them text, a quarter each the others).
func ReadingOf(data []byte) Reading {
	switch {
	case len(data) == 0 || data[0]&3 == 0:
		return Gofuzz
	case data[0]&1 == 1:
		return Text
	}
	return Machine
}

// Input decodes a FuzzGateVsModel input of the text or gofuzz reading
// (ReadingOf). ok is false for text that is not a valid scenario with an
// accepted configuration, and for the machine reading (machine.Replay
// decodes that one).
func Input(data []byte) (cfg sealgate.Config, events []sealgate.Event, ok bool) {
	switch ReadingOf(data) {
	case Text:
		s, err := scn.Parse("fuzz.scn", data[1:])
		if err != nil {
			return cfg, nil, false
		}
		if cfg, err = s.Config(); err != nil {
			return cfg, nil, false
		}
		return cfg, s.Events, true
	case Machine:
		return cfg, nil, false
	}
	if len(data) > 0 {
		data = data[1:]
	}
	cfg, events = FromBytes(data)
	return cfg, events, true
}
