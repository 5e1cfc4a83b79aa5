// Command disconnectgate is a gate with one planted bug, behind the stdio
// protocol (docs/protocol.md): the project's own gate, wrapped by code that
// takes a dropped connection after every call of the attempt has ended for
// a complete response, and so releases calls of a turn the SPEC says is
// disconnected (section 2: only the protocol's own success signal is
// `complete`). It is the kind of shortcut a user writes ("every call
// finished, the stream just did not say goodbye"), and it exists so that
// the suite can show it finds such a gate from generated streams alone:
//
//	sealfuzz test -gate 'go run ./examples/disconnectgate' -corpus ""
//
// With -correct it serves the gate without the wrapper, which must pass.
// It claims what the real gate claims, the whole SPEC, since everything
// but the wrapped close is the real gate; with -release-only it reports
// its releases only and claims no more, so that only the checks on what
// it releases can see the bug.
package main

import (
	"flag"
	"fmt"
	"io"
	"os"

	"github.com/sealgate/sealgate"
	"github.com/sealgate/sealgate/check"
	"github.com/sealgate/sealgate/stdiogate"
)

func main() {
	correct := flag.Bool("correct", false, "serve the gate without the planted bug")
	quiet := flag.Bool("release-only", false, "report releases only, and claim no other decision (nor peeks)")
	flag.Parse()
	b := stdiogate.Control(false)
	if !*correct {
		b = endedDisconnectIsComplete(b)
	}
	if *quiet {
		b = reportingOnlyReleases(b)
	}
	if err := stdiogate.Serve(os.Stdin, os.Stdout, "disconnect gate", b); err != nil {
		fmt.Fprintln(os.Stderr, "disconnectgate:", err)
		os.Exit(1)
	}
}

// endedDisconnectIsComplete wraps every gate b builds with the planted bug.
func endedDisconnectIsComplete(b stdiogate.Backend) stdiogate.Backend {
	return func(cfg sealgate.Config, ledgerPath string) (check.Subject, error) {
		g, err := b(cfg, ledgerPath)
		if err != nil {
			return nil, err
		}
		return &wrapper{Subject: g, open: map[string]map[string]bool{}}, nil
	}
}

// wrapper counts each attempt's calls as the events show them (begun, and
// whether each has ended) and turns `close disconnected` into `close
// complete` when the attempt has calls and every one of them has ended.
type wrapper struct {
	check.Subject
	open map[string]map[string]bool // attempt -> item -> ended
}

func (w *wrapper) Feed(ev sealgate.Event) ([]sealgate.Decision, error) {
	switch ev.Kind {
	case sealgate.Open:
		w.open[ev.Attempt] = map[string]bool{}
	case sealgate.Begin:
		if calls := w.open[ev.Attempt]; calls != nil {
			calls[ev.Item] = false
		}
	case sealgate.End:
		if calls := w.open[ev.Attempt]; calls != nil {
			if _, ok := calls[ev.Item]; ok {
				calls[ev.Item] = true
			}
		}
	case sealgate.Close:
		if ev.Status == sealgate.Disconnected && allEnded(w.open[ev.Attempt]) {
			ev.Status = sealgate.Complete // the planted bug
		}
		delete(w.open, ev.Attempt)
	case sealgate.Restart:
		clear(w.open)
	}
	return w.Subject.Feed(ev)
}

func allEnded(calls map[string]bool) bool {
	for _, ended := range calls {
		if !ended {
			return false
		}
	}
	return len(calls) > 0
}

// Retained and Close pass on what Serve asks of the wrapped gate.
func (w *wrapper) Retained() int { return w.Subject.(check.Retainer).Retained() }

func (w *wrapper) Close() error {
	if c, ok := w.Subject.(io.Closer); ok {
		return c.Close()
	}
	return nil
}

// releaseOnly reports only the releases of the gate it wraps, and claims
// only what that leaves: a gate that takes acks and restarts, validates
// schemas, and says nothing of what it does not run. Only the checks that
// hold its releases to the model's (I14, I1, I7, SEAL, ...) then apply.
type releaseOnly struct{ check.Subject }

func (releaseOnly) Capabilities() check.Capabilities {
	return check.Capabilities{Acks: true, Restarts: true, Schemas: true, SplitRunes: true}
}

func (r releaseOnly) Feed(ev sealgate.Event) ([]sealgate.Decision, error) {
	ds, err := r.Subject.Feed(ev)
	out := ds[:0]
	for _, d := range ds {
		if d.Kind == sealgate.Release {
			out = append(out, d)
		}
	}
	return out, err
}

func (r releaseOnly) Close() error {
	if c, ok := r.Subject.(io.Closer); ok {
		return c.Close()
	}
	return nil
}

// reportingOnlyReleases wraps every gate b builds in releaseOnly.
func reportingOnlyReleases(b stdiogate.Backend) stdiogate.Backend {
	return func(cfg sealgate.Config, ledgerPath string) (check.Subject, error) {
		g, err := b(cfg, ledgerPath)
		if err != nil {
			return nil, err
		}
		return releaseOnly{g}, nil
	}
}
