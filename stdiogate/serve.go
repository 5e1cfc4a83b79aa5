package stdiogate

import (
	"errors"
	"fmt"
	"io"

	"github.com/sealgate/sealgate"
	"github.com/sealgate/sealgate/check"
)

// Gate is what Serve puts behind the protocol.
type Gate interface {
	Feed(sealgate.Event) ([]sealgate.Decision, error)
	Retained() int
}

// Backend builds a gate for one configuration over the ledger file at
// ledgerPath, which it must keep across its own restarts, and closes it at
// the end of the run (the next config line, or the end of input). An error
// refuses the configuration.
type Backend interface {
	Open(cfg sealgate.Config, ledgerPath string) (g Gate, close func() error, err error)
	Capabilities() check.Capabilities
}

// Serve runs the gate side of the protocol on r and w until r ends: each
// config line opens a new run, each event line gets its decisions and a
// done line. A line it cannot read gets an error line and is skipped. A
// gate that fails closed (a ledger error) answers its decisions, then an
// error line, and takes no more events until the next config line.
func Serve(r io.Reader, w io.Writer, name string, b Backend) error {
	lr := NewLineReader(r, MaxLineBytes)
	var g Gate
	var closeGate func() error
	failed := false
	write := func(m *Message) error {
		m.V = Version
		line, err := Marshal(m)
		if err != nil {
			return err
		}
		_, err = w.Write(line)
		return err
	}
	endRun := func() error {
		if closeGate == nil {
			return nil
		}
		err := closeGate()
		g, closeGate = nil, nil
		return err
	}
	defer endRun()
	caps := b.Capabilities()
	for {
		line, err := lr.ReadLine()
		if errors.Is(err, io.EOF) {
			return endRun()
		}
		if err != nil {
			// Past a line too long (or a read error) the next line cannot
			// be found again: say so and stop.
			if werr := write(&Message{Type: TypeError, Text: err.Error()}); werr != nil {
				return werr
			}
			return err
		}
		m, err := Unmarshal(line)
		if err == nil && m.Type != TypeConfig && m.Type != TypeEvent {
			err = fmt.Errorf("a %s line, which only a gate writes", m.Type)
		}
		if err != nil {
			em := &Message{Type: TypeError, Text: err.Error()}
			if m != nil && m.N != nil {
				em.N = m.N
			}
			if err := write(em); err != nil {
				return err
			}
			continue
		}
		if m.Type == TypeConfig {
			if err := endRun(); err != nil {
				return fmt.Errorf("closing the last run: %w", err)
			}
			failed = false
			cfg, err := DecodeConfig(m.Config)
			if err == nil {
				g, closeGate, err = b.Open(cfg, m.Ledger)
			}
			if err != nil {
				if err := write(&Message{Type: TypeRefused, Text: err.Error()}); err != nil {
					return err
				}
				continue
			}
			if err := write(&Message{Type: TypeHello, Name: name, Capabilities: EncodeCaps(caps)}); err != nil {
				return err
			}
			continue
		}
		n := m.N
		fail := func(text string) error { return write(&Message{Type: TypeError, N: n, Text: text}) }
		ev, err := DecodeEvent(m.Event)
		switch {
		case err != nil:
			err = fail(err.Error())
		case g == nil:
			err = fail("an event before any accepted config line")
		case failed:
			err = fail("the gate failed closed earlier in this run")
		default:
			err = feedOne(g, ev, n, caps, write, fail, &failed)
		}
		if err != nil {
			return err
		}
	}
}

// feedOne gives one event to g and writes its answer.
func feedOne(g Gate, ev sealgate.Event, n *int, caps check.Capabilities, write func(*Message) error, fail func(string) error, failed *bool) error {
	ds, ferr := g.Feed(ev)
	for _, d := range ds {
		if err := write(&Message{Type: TypeDecision, Decision: EncodeDecision(d)}); err != nil {
			return err
		}
	}
	if ferr != nil {
		*failed = true
		return fail("gate failed closed: " + ferr.Error())
	}
	done := &Message{Type: TypeDone, N: n}
	if caps.Full || caps.Retained {
		r := g.Retained()
		done.Retained = &r
	}
	return write(done)
}
