package gen

import (
	"fmt"
	"strconv"

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
	Limits         [5]uint8 // even: the default; odd: that small limit
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
	b := &eventBuilder{cfg: cfg, sw: sw, tools: tools, seed: seed, sent: map[string]*callState{}, lastItem: map[string]string{},
		order: map[string][]*callState{}, turnOf: map[string]string{}}
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
	// Each attempt's calls in begin order and its turn, and the attempts
	// closed complete: what a finishing close and a retry send again.
	order   map[string][]*callState
	turnOf  map[string]string
	history []string
}

// callState is a call's identity, its document, how much of it was
// streamed and whether it was ended.
type callState struct {
	item, call, tool string
	doc              string
	sent             int
	ended            bool
}

// event interprets one raw event.
func (b *eventBuilder) event(e RawEvent) {
	a, item := b.target(e)
	cs := b.sent[a+"/"+item]
	switch e.Kind % 13 {
	case 0:
		// zeros past the end of the input add nothing; the other
		// multiples of 13 are whole turns, as 12 is
		if e.Kind != 0 {
			b.turn(e)
		}
	case 1:
		b.open(e)
	case 12:
		b.turn(e)
	case 2, 3:
		b.begin(e, a, item)
	case 4, 5, 6:
		b.add(sealgate.DeltaEvent(a, item, fragment(e, cs)))
	case 7:
		b.add(endEvent(e, a, item, cs))
		if cs != nil {
			cs.ended = true
		}
	case 8:
		b.close(e, a)
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
	b.turnOf[a] = pick(turns, e.Turn)
	delete(b.order, a)
	b.add(sealgate.OpenEvent(a, b.turnOf[a]))
}

// close closes attempt a with e's status. Half the time it first finishes
// every call of a (the rest of its document, then its end), so that a bad
// close often comes after every call ended: the shape of a gate that takes
// such a close for complete. A complete close keeps a for retries.
func (b *eventBuilder) close(e RawEvent, a string) {
	if e.Final&4 != 0 {
		for _, cs := range b.order[a] {
			if cs.ended {
				continue
			}
			if cs.sent < len(cs.doc) {
				b.add(sealgate.DeltaEvent(a, cs.item, []byte(cs.doc[cs.sent:])))
				cs.sent = len(cs.doc)
			}
			b.add(sealgate.EndEvent(a, cs.item))
			cs.ended = true
		}
	}
	st := sealgate.Status(1 + int(e.Status)%5)
	b.add(sealgate.CloseEvent(a, st))
	if st == sealgate.Complete && len(b.order[a]) > 0 {
		b.history = append(b.history, a)
	}
}

// turn sends a whole turn in one draw: a new attempt, one to three calls
// each sent whole and ended, and a close, half the time complete and
// otherwise bad (a bad close after every call ended). Half of these draws
// are retries instead: mostly of a turn of two or three calls made
// complete for it, else of an attempt that closed complete before. Random
// bytes seldom line up a turn event by event; this draw makes the
// coherent shapes common in the generated streams. A draw adds at most
// about 30 events, so maxEvents still bounds a scenario.
func (b *eventBuilder) turn(e RawEvent) {
	if e.Call&1 == 0 {
		b.wholeTurn(e, 1+int(e.Item)%3, e.Status&1 == 0)
		return
	}
	if len(b.history) == 0 || e.Item&12 != 12 {
		b.wholeTurn(e, 2+int(e.Item)%2, true)
	}
	b.retry(e)
}

// wholeTurn opens a new attempt, sends n calls whole, and closes it:
// complete, or with a bad status e picks (disconnected half the time).
func (b *eventBuilder) wholeTurn(e RawEvent, n int, complete bool) {
	a := fmt.Sprintf("r%d", len(b.evs))
	b.cur, b.turnOf[a] = a, pick(turns, e.Turn)
	delete(b.order, a)
	b.add(sealgate.OpenEvent(a, b.turnOf[a]))
	var cs *callState
	for i := range n {
		tool := b.cfg.Tools[int(e.Tool+uint8(i))%len(b.cfg.Tools)].Name
		if e.Tool%8 == 7 {
			tool = pick(b.tools, e.Tool+uint8(i)) // the undeclared one too
		}
		cs = &callState{item: strconv.Itoa(i), call: pick(calls, e.Call/2+uint8(i)), tool: tool, doc: b.turnDoc(e, tool, i)}
		b.whole(a, cs)
	}
	b.wholeEnd(e, a, cs)
	st := sealgate.Complete
	switch {
	case complete:
	case e.Status&2 != 0: // the dropped connection after every call ended
		st = sealgate.Disconnected
	default: // truncated, failed or cancelled
		st = sealgate.Status(2 + int(e.Status>>2)%3)
	}
	b.add(sealgate.CloseEvent(a, st))
	if st == sealgate.Complete {
		b.history = append(b.history, a)
	}
}

// whole begins a call on attempt a and sends all of its document in one
// fragment, then its end.
func (b *eventBuilder) whole(a string, cs *callState) {
	cs.sent, cs.ended = len(cs.doc), true
	b.sent[a+"/"+cs.item], b.lastItem[a] = cs, cs.item
	b.order[a] = append(b.order[a], cs)
	b.add(sealgate.BeginEvent(a, cs.item, cs.call, cs.tool))
	if cs.doc != "" {
		b.add(sealgate.DeltaEvent(a, cs.item, []byte(cs.doc)))
	}
	b.add(sealgate.EndEvent(a, cs.item))
}

// wholeEnd is a whole turn's last end, with e's final: none, the whole
// text (as Responses repeats it), a stale half of it (F35), or none and a
// trailing fragment after it (F34, F62): a whole turn also reaches the
// anomalies of an end.
func (b *eventBuilder) wholeEnd(e RawEvent, a string, cs *callState) {
	ev := &b.evs[len(b.evs)-1]
	switch e.Final % 8 {
	case 1, 5:
		*ev = sealgate.EndFinalEvent(a, cs.item, []byte(cs.doc))
	case 2:
		*ev = sealgate.EndFinalEvent(a, cs.item, []byte(cs.doc[:len(cs.doc)/2]))
	case 3:
		b.add(sealgate.DeltaEvent(a, cs.item, []byte("}")))
	}
}

// turnDoc is the document of the i-th call of a whole turn: mostly one the
// tool accepts (so that the turn's calls are released, under distinct
// keys), else one of the fixed documents.
func (b *eventBuilder) turnDoc(e RawEvent, tool string, i int) string {
	switch {
	case e.Doc%4 == 0:
		return Docs[(int(e.Doc)+i)%len(Docs)]
	case b.sw != nil:
		return string(b.sw.Doc(&MixChooser{State: b.seed ^ uint64(e.Doc)<<16 ^ uint64(i)<<8 ^ uint64(e.Garbage)}, tool))
	}
	docs := acceptedDocs[tool]
	if len(docs) == 0 {
		return Docs[(int(e.Doc)+i)%len(Docs)]
	}
	return docs[(int(e.Doc)+i)%len(docs)]
}

// acceptedDocs are, for each fixed tool, documents every check passes.
var acceptedDocs = map[string][]string{
	"save_file": {Docs[0], Docs[1], Docs[2]},
	"login":     {Docs[4], `{"token":"t-2"}`, `{"auth":{"key":"k-9"}}`},
	"calc":      {`{"n":1}`, `{"n":2.5}`, `{"n":-3,"m":"x"}`},
}

// retry sends an attempt that closed complete again, whole, in a new
// attempt of its turn, after the executor's acks of its keys: mostly one
// key fails and the others are acked ok or left in doubt, and half the
// time the process restarts in between. So one stream holds several keys,
// an ack fail of one and a retry of the others, the shape of a gate whose
// ack fail forgets other keys' state.
func (b *eventBuilder) retry(e RawEvent) {
	src := b.history[len(b.history)-1-int(e.Key)%len(b.history)]
	turn, calls := b.turnOf[src], b.order[src]
	if e.Status%4 != 0 {
		b.acks(e, turn, calls)
	}
	if e.Turn&2 != 0 {
		b.add(sealgate.RestartEvent())
	}
	a := fmt.Sprintf("r%d", len(b.evs))
	b.cur, b.turnOf[a] = a, turn
	b.add(sealgate.OpenEvent(a, turn))
	for _, c := range calls {
		b.whole(a, &callState{item: c.item, call: c.call, tool: c.tool, doc: c.doc})
	}
	b.add(sealgate.CloseEvent(a, sealgate.Complete))
	b.history = append(b.history, a)
}

// acks acks the keys of calls in turn: the one e picks fails, the others
// are acked ok (before or after it) or, one time in four, left unacked.
func (b *eventBuilder) acks(e RawEvent, turn string, calls []*callState) {
	var keys []string
	for _, c := range calls {
		if k, err := model.IdemKey(b.tool(c.tool), turn, c.call, []byte(c.doc)); err == nil {
			keys = append(keys, k)
		}
	}
	if len(keys) == 0 {
		return
	}
	fail := int(e.Garbage) % len(keys)
	okFirst, others := e.Status&4 != 0, e.Status&8 != 0 || e.Status&16 != 0
	if !okFirst {
		b.add(sealgate.AckEvent(keys[fail], false))
	}
	for i, k := range keys {
		if i != fail && others {
			b.add(sealgate.AckEvent(k, true))
		}
	}
	if okFirst {
		b.add(sealgate.AckEvent(keys[fail], false))
	}
}

// tool is the configuration's declaration of a tool (a bare one, with the
// args key, for a name it does not declare).
func (b *eventBuilder) tool(name string) sealgate.Tool {
	for _, t := range b.cfg.Tools {
		if t.Name == name {
			return t
		}
	}
	return sealgate.Tool{Name: name}
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
	cs := &callState{item: item, call: pick(calls, e.Call), tool: tool, doc: doc}
	b.sent[a+"/"+item] = cs
	b.order[a] = append(b.order[a], cs)
	b.add(sealgate.BeginEvent(a, item, cs.call, tool))
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
