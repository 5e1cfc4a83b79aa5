package peers

import (
	"errors"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/sealgate/sealgate"
	"github.com/sealgate/sealgate/check"
	"github.com/sealgate/sealgate/internal/reduce"
	"github.com/sealgate/sealgate/wire"
)

// Input is one stream to put every peer under: events in the SPEC's own
// terms (normalized per protocol before encoding) and a byte-level fault.
type Input struct {
	Source string // corpus, machine or generated
	Name   string // a file name or a seed, to find it again
	Events []sealgate.Event
	Fault  Fault
}

// Build turns events into the body a protocol carries, with the fault
// applied; ok is false when the protocol cannot carry them.
func Build(p wire.Protocol, events []sealgate.Event, f Fault) (Body, bool) {
	evs, err := Normalize(p, events)
	if err != nil {
		return Body{}, false
	}
	enc, err := wire.Encode(p, evs)
	if err != nil || len(enc) == 0 {
		return Body{}, false
	}
	return f.Apply(Body{Protocol: p, Events: SplitEvents(enc)}), true
}

// Finding is one distinct violation: a peer and the invariant it broke.
type Finding struct {
	Peer   *Peer
	ID     string // the violation's Class
	Count  int
	First  map[string]time.Duration // by source: time from the source's start to its first hit
	Input  Input                    // the input it is reduced from: the first generated one, else the first
	Inputs map[string]Input         // the first input of each source that showed it
	Err    error                    // what the first input broke
	Reduce *Reduced
}

// Reduced is a finding shrunk by the project's reducer.
type Reduced struct {
	Body    Body
	Outcome Outcome
	Err     error
	Tries   int
}

// Hunt runs inputs against peers and keeps the distinct violations.
type Hunt struct {
	Peers    []*Peer
	Runner   *Runner
	Findings []*Finding
	Runs     int
	Inputs   map[string]int        // inputs tried, by source
	Carried  map[wire.Protocol]int // inputs a protocol could carry
	Failures []error               // runs that went wrong (hangs): reported, never hidden
	started  map[string]time.Time  // when each source started
	byKey    map[string]*Finding   // peer name + " " + invariant
	protos   []wire.Protocol
}

// NewHunt prepares a hunt over peers.
func NewHunt(r *Runner, peers []*Peer) *Hunt {
	h := &Hunt{Peers: peers, Runner: r, Inputs: map[string]int{}, Carried: map[wire.Protocol]int{},
		started: map[string]time.Time{}, byKey: map[string]*Finding{}}
	seen := map[wire.Protocol]bool{}
	for _, p := range peers {
		if !seen[p.Protocol] {
			seen[p.Protocol] = true
			h.protos = append(h.protos, p.Protocol)
		}
	}
	return h
}

// Start marks the start of a source, for its times to first violation.
func (h *Hunt) Start(source string) { h.started[source] = time.Now() }

// Try runs one input against every peer whose protocol can carry it.
func (h *Hunt) Try(in Input) {
	h.Inputs[in.Source]++
	if _, ok := h.started[in.Source]; !ok {
		h.Start(in.Source)
	}
	for _, proto := range h.protos {
		body, ok := Build(proto, in.Events, in.Fault)
		if !ok {
			continue
		}
		h.Carried[proto]++
		for _, p := range h.Peers {
			if p.Protocol != proto {
				continue
			}
			h.Runs++
			out, err := h.Runner.Run(p, body)
			if err != nil {
				h.Failures = append(h.Failures, fmt.Errorf("%s on %s %s: %w", p.Name, in.Source, in.Name, err))
				continue
			}
			v := Judge(out)
			if v == nil {
				continue
			}
			id := Class(v)
			key := p.Name + " " + id
			f := h.byKey[key]
			if f == nil {
				f = &Finding{Peer: p, ID: id, First: map[string]time.Duration{}, Inputs: map[string]Input{}, Input: in, Err: v}
				h.byKey[key] = f
				h.Findings = append(h.Findings, f)
			}
			if _, ok := f.First[in.Source]; !ok {
				f.First[in.Source] = time.Since(h.started[in.Source])
				f.Inputs[in.Source] = in
				if in.Source == "generated" {
					f.Input, f.Err = in, v // reduced from what no stored capture helped find
				}
			}
			f.Count++
		}
	}
}

// Class names a violation finer than its check's ID where one check
// covers failures of different kinds, so that each kind is reduced and
// reported on its own: I1 splits into a release before the call's end and
// one at its end but before the turn completed; SEAL into a release of no
// live call, of another call's id or tool, of invalid JSON, of a value
// that is not an object, and of bytes that are not the call's own; SUBJECT
// into a crash, a hang and an error on a good body.
func Class(err error) string {
	id := reduce.ID(err)
	v, ok := err.(*check.Violation)
	if !ok {
		return id
	}
	for _, c := range []struct{ id, text, class string }{
		{"I1", "released before its end", "I1-before-end"},
		{"I1", "which is neither its attempt's close complete", "I1-before-close"},
		{"SEAL", "names no call begun in a live attempt", "SEAL-orphan"},
		{"SEAL", "began as call=", "SEAL-identity"},
		{"SEAL", "args are not strictly valid JSON", "SEAL-invalid"},
		{"SEAL", "args are not a JSON object", "SEAL-not-object"},
		{"SEAL", "args are not the call's own fragments", "SEAL-bytes"},
		{"SUBJECT", "crashed at event", "SUBJECT-crash"},
		{"SUBJECT", "hung at event", "SUBJECT-hang"},
		{"SUBJECT", "on a complete, valid body", "SUBJECT-error"},
	} {
		if id == c.id && strings.Contains(v.Msg, c.text) {
			return c.class
		}
	}
	return id
}

// Checker is the reducer's check for a finding: build the body from the
// candidate events with the finding's fault, run the peer, and judge; a
// candidate counts only when it fails in the finding's class.
func (h *Hunt) Checker(p *Peer, fault Fault, class string) reduce.Checker {
	return func(_ sealgate.Config, events []sealgate.Event) error {
		body, ok := Build(p.Protocol, events, fault)
		if !ok {
			return nil
		}
		out, err := h.Runner.Run(p, body)
		if err != nil {
			return nil
		}
		if v := Judge(out); v != nil && Class(v) == class {
			return v
		}
		return nil
	}
}

// Reduce shrinks every finding with the project's reducer, at most tries
// candidates each, from its generated input when it has one; when that
// leaves more than 8 SSE events, the first corpus and machine inputs are
// reduced too and the smallest body is kept (Finding.Input says which).
func (h *Hunt) Reduce(tries int) error {
	var errs []error
	for _, f := range h.Findings {
		cands := []Input{f.Input}
		for _, src := range []string{"generated", "machine", "corpus"} {
			if in, ok := f.Inputs[src]; ok && in.Source != f.Input.Source {
				cands = append(cands, in)
			}
		}
		for _, in := range cands {
			if f.Reduce != nil && len(f.Reduce.Body.Events) <= 8 {
				break
			}
			red, err := h.reduceOne(f, in, tries)
			if err != nil {
				errs = append(errs, err)
				continue
			}
			if f.Reduce == nil || len(red.Body.Events) < len(f.Reduce.Body.Events) {
				f.Reduce, f.Input = red, in
			}
		}
	}
	return errors.Join(errs...)
}

func (h *Hunt) reduceOne(f *Finding, in Input, tries int) (*Reduced, error) {
	res, err := reduce.Reduce(Config(in.Events), in.Events, h.Checker(f.Peer, in.Fault, f.ID), reduce.Options{MaxTries: tries})
	if err != nil {
		return nil, fmt.Errorf("%s %s: %w", f.Peer.Name, f.ID, err)
	}
	body, _ := Build(f.Peer.Protocol, res.Events, in.Fault)
	out, err := h.Runner.Run(f.Peer, body)
	if err != nil {
		return nil, fmt.Errorf("%s %s: the reduced body: %w", f.Peer.Name, f.ID, err)
	}
	return &Reduced{Body: body, Outcome: out, Err: Judge(out), Tries: res.Tries}, nil
}

// Violations counts the distinct SDK violations (peer and invariant), the
// idioms and the SDKs they come from, and the control's runs that broke an
// invariant.
func (h *Hunt) Violations() (v, idioms, sdks int, control int) {
	idiom, sdk := map[string]bool{}, map[string]bool{}
	for _, f := range h.Findings {
		if f.Peer.Control {
			control += f.Count
			continue
		}
		v++
		idiom[f.Peer.Name] = true
		sdk[f.Peer.Module] = true
	}
	return v, len(idiom), len(sdk), control
}

// Sorted returns the findings by peer order, then invariant.
func (h *Hunt) Sorted() []*Finding {
	rank := map[*Peer]int{}
	for i, p := range h.Peers {
		rank[p] = i
	}
	out := append([]*Finding(nil), h.Findings...)
	sort.SliceStable(out, func(i, j int) bool {
		if rank[out[i].Peer] != rank[out[j].Peer] {
			return rank[out[i].Peer] < rank[out[j].Peer]
		}
		return out[i].ID < out[j].ID
	})
	return out
}
