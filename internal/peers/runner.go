package peers

import (
	"fmt"
	"runtime/debug"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/sealgate/sealgate"
	"github.com/sealgate/sealgate/model"
)

// Outcome is one run of a peer over one body: what the body means (by
// wire) and what the peer released, as release decisions placed at the
// normalized event each answers.
type Outcome struct {
	Meaning  Meaning
	Releases []sealgate.Decision
	Objects  []bool // per release: the tool got a parsed object, so only its compacted serialization can be compared
	SDKErr   error  // what the SDK itself reported, for the record
	Subject  error  // the peer itself failed (a panic, a crash, a hang, an error on a clean body): a SUBJECT violation
}

// Stamped is a release with where the idiom stood in the body when it made
// it, which is what places it at a normalized event.
type Stamped struct {
	Release
	Delivered int  // whole SSE events handed to the idiom
	EOF       bool // the idiom had been told that the body ended
}

// Record is what one run of an idiom did, before it is placed against the
// body's meaning: in process or in a peer process, the same facts.
type Record struct {
	Releases  []Stamped
	SDKErr    string // what the idiom returned or threw
	Crash     string // the idiom panicked or its process died: what it said
	Hung      bool   // the run did not finish within the time limit
	Delivered int    // where the idiom stood when the run ended
	EOF       bool
	Reads     []rawRead // the raw control's reads of the body, for the parent to gate
}

// Runner runs peers against one loopback server, one run at a time.
type Runner struct {
	mu  sync.Mutex
	srv *server
}

// NewRunner starts a loopback server; Close stops it.
func NewRunner() *Runner { return &Runner{srv: newServer()} }

// Close stops the server.
func (r *Runner) Close() { r.srv.close() }

// Turn is the turn every decoded attempt belongs to (wire's default), and
// so the turn of every release key.
const Turn = "t1"

// Run serves body to the peer, in process or through its peer process, and
// places its releases at the normalized events they answer. An error means
// the harness itself went wrong; what the peer did wrong, failing included,
// is Judge's to say.
func (r *Runner) Run(p *Peer, body Body) (Outcome, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	m := body.Decode()
	cfg := RunConfig(body, m)
	var rec Record
	if p.process != nil {
		var err error
		if rec, err = p.process.run(p, body, cfg, followUps[p.Protocol]); err != nil {
			return Outcome{Meaning: m}, fmt.Errorf("%s: %w", p.Name, err)
		}
	} else {
		rec = r.record(p, body, cfg, followUps[p.Protocol])
	}
	return place(m, body, rec), nil
}

// record runs an in-process idiom. A panic in the idiom's own goroutine is
// a crash; a run that outlives the time limit is abandoned as hung.
func (r *Runner) record(p *Peer, body Body, cfg sealgate.Config, followUp []byte) Record {
	sess := r.srv.start(body, followUp)
	c := Conn{BaseURL: r.srv.ts.URL, HTTP: r.srv.client(), Config: cfg}
	for _, t := range cfg.Tools {
		c.Tools = append(c.Tools, t.Name)
	}
	var mu sync.Mutex
	var rec Record
	over := false
	emit := func(rel Release) {
		delivered, eof := sess.position()
		mu.Lock()
		defer mu.Unlock()
		if !over {
			rec.Releases = append(rec.Releases, Stamped{Release: rel, Delivered: delivered, EOF: eof})
		}
	}
	ctx, cancel := runContext()
	defer cancel()
	type result struct {
		err   error
		crash string
	}
	done := make(chan result, 1)
	go func() {
		defer func() {
			if v := recover(); v != nil {
				done <- result{crash: fmt.Sprintf("panic: %v\n%s", v, firstLines(string(debug.Stack()), 12))}
			}
		}()
		done <- result{err: p.Drive(ctx, c, emit)}
	}()
	var res result
	select {
	case res = <-done:
	case <-ctx.Done():
		select {
		case res = <-done: // cancelled, and it returned
		case <-time.After(hangGrace):
		}
	}
	mu.Lock()
	defer mu.Unlock()
	over = true
	if res.err != nil {
		rec.SDKErr = res.err.Error()
	}
	rec.Crash = res.crash
	rec.Hung = ctx.Err() != nil && res.crash == ""
	rec.Delivered, rec.EOF = sess.position()
	return rec
}

// hangGrace is how long a run whose time ran out may take to return.
const hangGrace = 2 * time.Second

// place turns a record into an outcome: each release at the event it
// answers, its call found when the idiom could not name it, in the order a
// gate decides calls at one point, and the peer's own failure, if any.
func place(m Meaning, body Body, rec Record) Outcome {
	out := Outcome{Meaning: m}
	if rec.SDKErr != "" {
		out.SDKErr = fmt.Errorf("%s", rec.SDKErr)
	}
	began := beginOrder(m.Events)
	closed := firstCloses(m.Events)
	found := newCallFinder(m.Events)
	type placed struct {
		d      sealgate.Decision
		object bool
	}
	var ps []placed
	for _, s := range rec.Releases {
		rel := s.Release
		at := m.At(s.Delivered, s.EOF)
		if rel.Attempt == "" && rel.Item == "" {
			var call string
			rel.Attempt, rel.Item, call = found.find(rel, at)
			if rel.Call == "" {
				rel.Call = call // the SDK gave the tool no id: the call it ran is the one found
			}
		}
		key := rel.Key
		if key == "" {
			key = releaseKey(rel.Tool, rel.Args)
		}
		// A release made after its own attempt closed (an application that
		// runs the calls once the whole response returned, past a second
		// message in the same stream) stands at that close: the gate's
		// decision point for the attempt, after which nothing the stream
		// sends changes what the attempt released.
		if c, ok := closed[rel.Attempt]; ok && c < at {
			at = c
		}
		ps = append(ps, placed{object: rel.Object, d: sealgate.Decision{
			At: at, Kind: sealgate.Release,
			Attempt: rel.Attempt, Item: rel.Item, Call: rel.Call, Tool: rel.Tool,
			Key: key, Args: sealgate.Compact(rel.Args),
		}})
	}
	// Releases made at one point (a tool runner's parallel tools) are put
	// in the order their calls began, the order in which a gate decides
	// them (SPEC section 6), so that a run reads the same every time.
	sort.SliceStable(ps, func(i, j int) bool {
		a, b := ps[i].d, ps[j].d
		return a.At < b.At || a.At == b.At && began[[2]string{a.Attempt, a.Item}] < began[[2]string{b.Attempt, b.Item}]
	})
	for _, p := range ps {
		out.Releases = append(out.Releases, p.d)
		out.Objects = append(out.Objects, p.object)
	}
	out.Subject = subjectFailure(m, body, rec)
	return out
}

// firstCloses is, per attempt, the position (from 1) of its first close.
func firstCloses(events []sealgate.Event) map[string]int {
	at := map[string]int{}
	for i, ev := range events {
		if _, seen := at[ev.Attempt]; ev.Kind == sealgate.Close && !seen {
			at[ev.Attempt] = i + 1
		}
	}
	return at
}

// subjectFailure says how the peer itself failed, or nil: a crash or a
// hang always; an error only on a body that no fault touched, that wire
// reads without error, that holds one attempt, closed complete, and whose
// every call the model releases, since an SDK that errors there fails its
// user on a good answer.
func subjectFailure(m Meaning, body Body, rec Record) error {
	at := m.At(rec.Delivered, rec.EOF)
	switch {
	case rec.Crash != "":
		return fmt.Errorf("crashed at event %d: %s", at, rec.Crash)
	case rec.Hung:
		return fmt.Errorf("hung at event %d: no answer within %s", at, runTimeout)
	case rec.SDKErr != "" && cleanBody(m, body):
		return fmt.Errorf("failed at event %d on a complete, valid body: %s", at, rec.SDKErr)
	}
	return nil
}

func cleanBody(m Meaning, body Body) bool {
	if body.Faulted || body.Reset || m.Err != nil {
		return false
	}
	// and every call in it is one the reference model releases: an SDK
	// may refuse a call whose arguments are not one JSON object
	began, released := 0, 0
	for _, ev := range m.Events {
		if ev.Kind == sealgate.Begin {
			began++
		}
	}
	for _, d := range model.Run(Config(m.Events), m.Events) {
		if d.Kind == sealgate.Release {
			released++
		}
	}
	if released != began {
		return false
	}
	closes := 0
	for _, ev := range m.Events {
		if ev.Kind == sealgate.Close {
			if ev.Status != sealgate.Complete {
				return false
			}
			closes++
		}
	}
	// A body holds one response: a second attempt in it is a stream no
	// vendor sends, which an SDK may rightly refuse.
	return closes == 1
}

// callFinder finds the call an unnamed release executes: by its call id,
// else the first call of that tool not yet matched whose compacted bytes
// equal the release's (for a tool that got a parsed object, whose JSON
// value equals it), else the first call of that tool not yet matched.
// Only calls begun by the release's event count: a peer cannot run a call
// it has not been sent, so a later call that reuses the id (a next response
// after one wire closed and stopped reading) is not the one it ran.
type callFinder struct {
	calls []foundCall
	used  map[int]bool
}

type foundCall struct {
	attempt, item, call, tool string
	args                      []byte
	begun                     int // the position (from 1) of its begin event
}

func newCallFinder(events []sealgate.Event) *callFinder {
	f := &callFinder{used: map[int]bool{}}
	idx := map[[2]string]int{}
	for i, ev := range events {
		k := [2]string{ev.Attempt, ev.Item}
		switch ev.Kind {
		case sealgate.Begin:
			if _, ok := idx[k]; !ok {
				idx[k] = len(f.calls)
				f.calls = append(f.calls, foundCall{attempt: ev.Attempt, item: ev.Item, call: ev.Call, tool: ev.Tool, begun: i + 1})
			}
		case sealgate.Delta:
			if i, ok := idx[k]; ok {
				f.calls[i].args = append(f.calls[i].args, ev.Bytes...)
			}
		case sealgate.End:
			if i, ok := idx[k]; ok && ev.HasFinal {
				f.calls[i].args = append([]byte(nil), ev.Final...)
			}
		}
	}
	return f
}

func (f *callFinder) find(rel Release, at int) (attempt, item, call string) {
	pick := func(ok func(foundCall) bool) (foundCall, bool) {
		for i, c := range f.calls {
			if !f.used[i] && c.begun <= at && ok(c) {
				f.used[i] = true
				return c, true
			}
		}
		return foundCall{}, false
	}
	want := string(sealgate.Compact(rel.Args))
	same := func(c foundCall) bool { return string(sealgate.Compact(c.args)) == want }
	if rel.Object {
		// The tool got a parsed value, so its bytes are a reserialization:
		// any call with the same value may be the one it ran, and the
		// earliest is, since a peer runs calls in the order it read them.
		if w, err := model.Canonical(rel.Args); err == nil {
			same = func(c foundCall) bool {
				v, err := model.Canonical(c.args)
				return err == nil && string(v) == string(w)
			}
		}
	}
	for _, ok := range []func(foundCall) bool{
		func(c foundCall) bool { return rel.Call != "" && c.call == rel.Call },
		func(c foundCall) bool { return c.tool == rel.Tool && same(c) },
		func(c foundCall) bool { return c.tool == rel.Tool },
	} {
		if c, hit := pick(ok); hit {
			return c.attempt, c.item, c.call
		}
	}
	return "?", "?", ""
}

// firstLines keeps the first n lines of s.
func firstLines(s string, n int) string {
	lines := strings.SplitN(s, "\n", n+1)
	if len(lines) > n {
		lines = lines[:n]
	}
	return strings.Join(lines, "\n")
}
