// Package reduce shrinks a failing scenario to the one a person would
// write, while the same check keeps failing (and, for release soundness,
// the model's verdict stays the same): delta debugging over events; one
// attempt where two were; adjacent deltas of a call as one; no JSON
// whitespace between tokens; each fragment the shortest that still fails
// ({}, then fewer members, shorter strings and numbers, then fewer bytes);
// only the configuration the failure needs, its limits as low as they go;
// the shortest names for attempts, turns, items, calls, tools and members;
// and two rewrites that delete events no deletion alone can (a block that
// only brings a released key back to the gate becomes one ack of that
// key; a clean close that only releases becomes releases at end). Every
// pass runs to a common fixpoint within a budget of tries. Its output is
// a .scn file a person can read, edit and add to the corpus.
package reduce

import (
	"bytes"
	"errors"
	"fmt"
	"strings"

	"github.com/sealgate/sealgate"
	"github.com/sealgate/sealgate/check"
	"github.com/sealgate/sealgate/model"
	"github.com/sealgate/sealgate/scn"
)

// Checker says why a scenario fails, or nil. check.All is the usual one.
type Checker func(sealgate.Config, []sealgate.Event) error

// ID names the check an error comes from: a *check.Violation's ID, or the
// whole message for any other error.
func ID(err error) string {
	var v *check.Violation
	if errors.As(err, &v) {
		return v.ID
	}
	return err.Error()
}

// kind is what a candidate must fail to be kept: the check, and for
// release soundness also the model's verdict, so that a release the model
// rejects as unauthorized does not shrink into one it rejects for another
// reason.
func kind(err error) string {
	id := ID(err)
	var v *check.Violation
	if errors.As(err, &v) && v.ID == "I14" {
		if _, verdict, ok := strings.Cut(v.Msg, ": the model "); ok {
			return id + " " + verdict
		}
	}
	return id
}

// FileName is the file a reduced failure of check id is written to,
// CHECK.scn with the ID as reports print it (I2.scn, SEAL.scn), so the
// name the reader sees is the name to look for. Any character but an
// ASCII letter, digit or '-' becomes '-', and a long ID is cut, so that an
// error message standing for an ID is still one short file name.
func FileName(id string) string {
	const most = 60
	b := []byte(id)
	if len(b) > most {
		b = b[:most]
	}
	for i, c := range b {
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '-') {
			b[i] = '-'
		}
	}
	if len(b) == 0 {
		return "-.scn"
	}
	return string(b) + ".scn"
}

// Options bound the work of one reduction.
type Options struct {
	// MaxTries caps how many candidate scenarios are checked (0: 20000).
	MaxTries int
	// Off names passes (Passes) to leave out, to measure what each buys.
	Off []string
}

// Passes names the reduction passes, in the order each round runs them.
var Passes = []string{"drop-events", "merge-attempts", "merge-deltas", "trim-space",
	"shorten-fragments", "simplify-config", "rename", "ack-for-block", "release-at-end"}

// Result is a reduced scenario and what it still fails.
type Result struct {
	Config sealgate.Config
	Events []sealgate.Event
	Err    error // the failure the reduced scenario shows
	Tries  int
}

type reducer struct {
	check  Checker
	id     string
	tries  int
	max    int
	cfg    sealgate.Config
	events []sealgate.Event
	err    error
}

// Reduce shrinks (cfg, events), which must fail under c, keeping only
// candidates that fail with the same check ID.
func Reduce(cfg sealgate.Config, events []sealgate.Event, c Checker, o Options) (*Result, error) {
	err := c(cfg, events)
	if err == nil {
		return nil, errors.New("reduce: the scenario does not fail; nothing to reduce")
	}
	r := &reducer{check: c, id: kind(err), max: o.MaxTries, cfg: cfg, events: events, err: err}
	if r.max <= 0 {
		r.max = 20000
	}
	passes := map[string]func() bool{
		"drop-events": r.dropEvents, "merge-attempts": r.mergeAttempts, "merge-deltas": r.mergeDeltas,
		"trim-space": r.trimSpace, "shorten-fragments": r.shortenFragments, "simplify-config": r.simplifyConfig,
		"rename": r.rename, "ack-for-block": r.ackForBlock, "release-at-end": r.releaseAtEnd,
	}
	for _, name := range o.Off {
		if _, ok := passes[name]; !ok {
			return nil, fmt.Errorf("reduce: no pass %q to leave out (have %s)", name, strings.Join(Passes, ", "))
		}
		delete(passes, name)
	}
	for changed := true; changed && r.tries < r.max; {
		changed = false
		for _, name := range Passes {
			if pass, ok := passes[name]; ok {
				changed = pass() || changed
			}
		}
	}
	return &Result{Config: r.cfg, Events: r.events, Err: r.err, Tries: r.tries}, nil
}

// try keeps a candidate if it fails the same check.
func (r *reducer) try(cfg sealgate.Config, events []sealgate.Event) bool {
	if r.tries >= r.max {
		return false
	}
	r.tries++
	err := r.check(cfg, events)
	if err == nil || kind(err) != r.id {
		return false
	}
	r.cfg, r.events, r.err = cfg, events, err
	return true
}

// dropEvents is ddmin over the event list: remove chunks of halving size.
func (r *reducer) dropEvents() bool {
	changed := false
	for n := len(r.events) / 2; n >= 1; n /= 2 {
		for start := 0; start < len(r.events); {
			end := min(start+n, len(r.events))
			cand := append(append([]sealgate.Event{}, r.events[:start]...), r.events[end:]...)
			if r.try(r.cfg, cand) {
				changed = true
				continue // the same start now holds the next chunk
			}
			start = end
		}
	}
	return changed
}

// mergeDeltas joins a delta with the next delta to the same call when no
// event for that call stands between them.
func (r *reducer) mergeDeltas() bool {
	changed := false
	for i := 0; i < len(r.events); i++ {
		a := r.events[i]
		if a.Kind != sealgate.Delta {
			continue
		}
		for j := i + 1; j < len(r.events); j++ {
			b := r.events[j]
			if b.Attempt != a.Attempt || b.Kind == sealgate.Restart {
				if b.Kind == sealgate.Restart {
					break
				}
				continue
			}
			if b.Kind != sealgate.Delta || b.Item != a.Item {
				if b.Item == a.Item || b.Kind == sealgate.Open || b.Kind == sealgate.Close {
					break
				}
				continue
			}
			cand := append([]sealgate.Event{}, r.events...)
			cand[i].Bytes = append(append([]byte{}, a.Bytes...), b.Bytes...)
			cand = append(cand[:j], cand[j+1:]...)
			if r.try(r.cfg, cand) {
				changed = true
				i--
			}
			break
		}
	}
	return changed
}

// shortenFragments cuts bytes out of deltas and finals: a whole delta
// becomes {} if it can (the smallest object: cutting bytes rarely gets
// there, since each cut must keep the failure), then halves, then single
// bytes, from both ends.
func (r *reducer) shortenFragments() bool {
	changed := false
	for i := range r.events {
		if r.dropFinal(i) {
			changed = true
		}
		if e := r.events[i]; e.Kind == sealgate.Delta && len(e.Bytes) > 2 && string(e.Bytes) != "{}" {
			if r.replaceFragment(i, []byte("{}")) {
				changed = true
			}
		}
		if r.events[i].Kind == sealgate.Delta && r.minimizeJSON(i) {
			changed = true
		}
		for _, final := range []bool{false, true} {
			get := func(e sealgate.Event) []byte {
				if final {
					return e.Final
				}
				return e.Bytes
			}
			if !final && r.events[i].Kind != sealgate.Delta || final && !r.events[i].HasFinal {
				continue
			}
			for n := len(get(r.events[i])) / 2; n >= 1; n /= 2 {
				refused := false // the cut at start-n was tried and refused
				for start := 0; start+n <= len(get(r.events[i])); {
					b := get(r.events[i])
					if refused && bytes.Equal(b[start-n:start], b[start:start+n]) {
						// The same text as the cut just refused (a run of
						// digits, say): no try to spend on it.
						start += n
						continue
					}
					cut := append(append([]byte{}, b[:start]...), b[start+n:]...)
					cand := append([]sealgate.Event{}, r.events...)
					ok := false
					if final {
						cand[i].Final = cut
						ok = r.try(r.cfg, r.rekey(r.cfg, cand))
					} else {
						cand[i].Bytes = cut
						ok = r.tryBytes(cand)
					}
					if ok {
						changed, refused = true, false
						continue
					}
					start, refused = start+n, true
				}
			}
		}
	}
	return changed
}

// simplifyConfig drops what the failure does not need: tools, rules,
// secrets, policies and limits back to their defaults.
func (r *reducer) simplifyConfig() bool {
	changed := false
	edit := func(f func(*sealgate.Config) bool) {
		c := cloneConfig(r.cfg)
		if f(&c) && r.try(c, r.rekey(c, r.events)) {
			changed = true
		}
	}
	for i := len(r.cfg.Tools) - 1; i >= 0; i-- {
		edit(func(c *sealgate.Config) bool {
			c.Tools = append(c.Tools[:i], c.Tools[i+1:]...)
			return true
		})
	}
	for i := range r.cfg.Tools {
		edit(func(c *sealgate.Config) bool { t := &c.Tools[i]; ok := t.Allow != nil; t.Allow = nil; return ok })
		edit(func(c *sealgate.Config) bool { t := &c.Tools[i]; ok := t.Early; t.Early = false; return ok })
		edit(func(c *sealgate.Config) bool {
			t := &c.Tools[i]
			ok := t.Idem.Mode != sealgate.IdemArgs
			t.Idem = sealgate.Idem{}
			return ok
		})
		edit(func(c *sealgate.Config) bool { t := &c.Tools[i]; ok := len(t.Secrets) > 0; t.Secrets = nil; return ok })
		for j := len(r.cfg.Tools[i].Secrets) - 1; j >= 0; j-- {
			edit(func(c *sealgate.Config) bool {
				t := &c.Tools[i]
				if j >= len(t.Secrets) || len(t.Secrets) < 2 {
					return false
				}
				t.Secrets = append(t.Secrets[:j], t.Secrets[j+1:]...)
				return true
			})
		}
		if a := r.cfg.Tools[i].Allow; a != nil {
			for j := len(a.Values) - 1; j >= 0; j-- {
				edit(func(c *sealgate.Config) bool {
					a := c.Tools[i].Allow
					if a == nil || j >= len(a.Values) || len(a.Values) < 2 {
						return false
					}
					a.Values = append(a.Values[:j], a.Values[j+1:]...)
					return true
				})
			}
		}
		edit(func(c *sealgate.Config) bool {
			t := &c.Tools[i]
			ok := t.Schema != `{}`
			t.Schema = `{}`
			return ok
		})
	}
	edit(func(c *sealgate.Config) bool { ok := c.Batch != 0; c.Batch = 0; return ok })
	edit(func(c *sealgate.Config) bool { ok := c.Release != 0; c.Release = 0; return ok })
	// Early tools need release=per-call, so neither goes alone.
	edit(func(c *sealgate.Config) bool {
		ok := c.Release != 0
		c.Release = 0
		for j := range c.Tools {
			c.Tools[j].Early = false
		}
		return ok
	})
	def := sealgate.DefaultLimits()
	for _, f := range []func(*sealgate.Limits) *int{
		func(l *sealgate.Limits) *int { return &l.CallBytes }, func(l *sealgate.Limits) *int { return &l.TurnBytes },
		func(l *sealgate.Limits) *int { return &l.Calls }, func(l *sealgate.Limits) *int { return &l.Depth },
		func(l *sealgate.Limits) *int { return &l.PreviewBytes }} {
		edit(func(c *sealgate.Config) bool {
			ok := *f(&c.Limits) != *f(&def)
			*f(&c.Limits) = *f(&def)
			return ok
		})
		// A limit the failure needs goes as low as it can, so that the
		// bytes that were only there to pass it can go too.
		for _, lower := range []func(int) int{func(int) int { return 1 }, func(v int) int { return v / 2 }} {
			for {
				before := *f(&r.cfg.Limits)
				if before == *f(&def) || lower(before) < 1 || lower(before) == before {
					break
				}
				edit(func(c *sealgate.Config) bool { *f(&c.Limits) = lower(before); return true })
				if *f(&r.cfg.Limits) == before {
					break
				}
			}
		}
	}
	return changed
}

// rekey follows a change of arguments, names or configuration into the
// acks: each ack of the candidate, in order, names the key the reference
// model wrote to the ledger at the same position before that ack as the
// acked key held before the change (so a call's arguments can shrink, or
// its turn or tool be renamed, while an ack of it stays an ack of it).
// Ack by ack, because an ack that no longer names its key changes the
// decisions after it.
func (r *reducer) rekey(cfg sealgate.Config, events []sealgate.Event) []sealgate.Event {
	before, after := ackIndexes(r.events), ackIndexes(events)
	if len(after) == 0 || len(before) != len(after) || r.tries >= r.max {
		return events // no ack to follow, acks added or removed, or no try left to spend on it
	}
	out := append([]sealgate.Event{}, events...)
	for n, i := range after {
		old := model.LedgerKeys(r.cfg, r.events[:before[n]])
		now := model.LedgerKeys(cfg, out[:i])
		if len(old) != len(now) {
			continue
		}
		for k, key := range old {
			if key == out[i].Key {
				out[i].Key = now[k]
				break
			}
		}
	}
	return out
}

// ackIndexes lists where the acks of a stream are.
func ackIndexes(events []sealgate.Event) []int {
	var at []int
	for i, e := range events {
		if e.Kind == sealgate.Ack {
			at = append(at, i)
		}
	}
	return at
}

// maxRewrite bounds the streams the rewrites below try: they run after
// delta debugging, and ackForBlock tries every block of the stream.
const maxRewrite = 40

// ackForBlock replaces a block of two or more events with one ack of a key
// the reference model released or reconciled before the block. An ack is
// the shortest way to ask the ledger about a key: a block that serves only
// to bring a released key back to the gate (a second whole call with the
// same arguments, after a restart say) is often one ack in disguise, and
// no deletion can turn the one into the other. Every kept candidate is
// shorter, so the pass ends.
func (r *reducer) ackForBlock() bool {
	if len(r.events) > maxRewrite {
		return false
	}
	changed := false
	for n := len(r.events); n >= 2; n-- {
		for start := 0; start+n <= len(r.events); start++ {
			if r.ackAt(start, n) {
				changed = true
			}
		}
	}
	return changed
}

// ackAt tries events[start:start+n] as one ack, ok or fail, of each key
// released before start.
func (r *reducer) ackAt(start, n int) bool {
	for _, key := range releasedKeys(r.cfg, r.events, start) {
		for _, ok := range []bool{true, false} {
			cand := append(append(append([]sealgate.Event{}, r.events[:start]...), sealgate.AckEvent(key, ok)), r.events[start+n:]...)
			if r.try(r.cfg, cand) {
				return true
			}
		}
	}
	return false
}

// releasedKeys lists, once each and in order, the keys the reference model
// releases or reconciles within the first n events.
func releasedKeys(cfg sealgate.Config, events []sealgate.Event, n int) []string {
	var keys []string
	seen := map[string]bool{}
	for _, k := range model.LedgerKeys(cfg, events[:n]) {
		if !seen[k] {
			seen[k] = true
			keys = append(keys, k)
		}
	}
	return keys
}

// releaseAtEnd drops a clean close under release=after-turn and makes
// every tool early (release=per-call) instead, so that calls are decided at
// their own ends: a close that only serves to release the calls before it
// goes. A tool the stream calls without declaring it is declared (schema
// {}) for the purpose, in a second try: a call to an undeclared tool is
// decided at the close too, and one event is worth the lines. The
// candidate has one event fewer, so simplifyConfig cannot undo it
// (without the close, nothing would be decided).
func (r *reducer) releaseAtEnd() bool {
	if len(r.events) > maxRewrite || r.cfg.Release != sealgate.AfterTurn || r.cfg.Batch != sealgate.Independent {
		return false
	}
	for i, e := range r.events {
		if e.Kind != sealgate.Close || e.Status != sealgate.Complete {
			continue
		}
		cand := append(append([]sealgate.Event{}, r.events[:i]...), r.events[i+1:]...)
		for _, declare := range []bool{false, true} {
			c := cloneConfig(r.cfg)
			if declare {
				for _, e := range r.events {
					if _, ok := c.Tool(e.Tool); e.Kind == sealgate.Begin && !ok {
						c.Tools = append(c.Tools, sealgate.Tool{Name: e.Tool, Schema: `{}`})
					}
				}
			}
			if len(c.Tools) == 0 || declare && len(c.Tools) == len(r.cfg.Tools) {
				continue
			}
			c.Release = sealgate.PerCall
			for j := range c.Tools {
				c.Tools[j].Early = true
			}
			if r.try(c, cand) {
				return true
			}
		}
	}
	return false
}

func cloneConfig(c sealgate.Config) sealgate.Config {
	out := c
	out.Tools = make([]sealgate.Tool, len(c.Tools))
	for i, t := range c.Tools {
		out.Tools[i] = t
		if t.Allow != nil {
			a := *t.Allow
			a.Values = append([]string{}, a.Values...)
			out.Tools[i].Allow = &a
		}
		out.Tools[i].Secrets = append([]string(nil), t.Secrets...)
		out.Tools[i].Idem.Fields = append([]string(nil), t.Idem.Fields...)
	}
	return out
}

// Scenario renders a reduced failure as a .scn file: a note naming the
// failing check, the configuration, the events, and after "----" the
// reference model's decisions (what the SPEC says should happen; check
// them by hand before adding the file to the corpus).
func Scenario(cfg sealgate.Config, events []sealgate.Event, failure error) ([]byte, error) {
	setup, err := scn.FromConfig(cfg)
	if err != nil {
		return nil, err
	}
	msg := strings.ReplaceAll(failure.Error(), "\n", " ")
	s := &scn.Scenario{
		Notes: []string{
			" reduced by sealfuzz: fails " + ID(failure),
			" " + msg,
			" expected part: the reference model's decisions; check them against the SPEC by hand",
		},
		Setup:  setup,
		Events: events,
		Expect: model.Run(cfg, events),
	}
	return s.Format(), nil
}

// Text renders a scenario without expectations for messages (rapid and go
// fuzz failures print it, ready to paste into a file).
func Text(cfg sealgate.Config, events []sealgate.Event, failure error) string {
	b, err := Scenario(cfg, events, failure)
	if err != nil {
		var sb bytes.Buffer
		fmt.Fprintf(&sb, "# (configuration not printable: %v)\n", err)
		for _, e := range events {
			sb.WriteString(e.String() + "\n")
		}
		return sb.String()
	}
	return string(b)
}
