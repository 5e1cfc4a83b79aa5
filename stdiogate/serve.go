package stdiogate

import (
	"bufio"
	"errors"
	"fmt"
	"io"

	"github.com/sealgate/sealgate"
	"github.com/sealgate/sealgate/check"
	"github.com/sealgate/sealgate/stdiogate/internal/control"
	"github.com/sealgate/sealgate/stdiogate/internal/protocol"
)

// Backend builds the gate of one run: a subject for the configuration,
// over the ledger file at ledgerPath, which it must keep across its own
// restarts. An error refuses the configuration. When the subject is an
// io.Closer, Serve closes it at the end of the run (the next config line,
// or the end of input). Its Capabilities go out in the hello line, and a
// subject that claims Retained (or Full) must be a check.Retainer.
type Backend func(cfg sealgate.Config, ledgerPath string) (check.Subject, error)

// Serve runs the gate side of the protocol on r and w until r ends: each
// config line opens a new run, each event line gets its decisions and a
// done line. A line it cannot read gets an error line and is skipped. A
// gate that fails closed (a ledger error) answers its decisions, then an
// error line, and takes no more events until the next config line.
// Answers are buffered while more input lines wait to be read, and written
// out before Serve would wait for input: a client that sends many events
// at once gets their answers in few writes, and one that waits for each
// answer gets it at once.
func Serve(r io.Reader, w io.Writer, name string, b Backend) (err error) {
	lr := protocol.NewLineReader(r, protocol.MaxLineBytes)
	bw := bufio.NewWriterSize(w, 64<<10)
	defer func() {
		if ferr := bw.Flush(); err == nil {
			err = ferr
		}
	}()
	var g check.Subject
	var caps check.Capabilities
	failed := false
	lw := &lineWriter{w: bw}
	write := lw.message
	endRun := func() error {
		if g == nil {
			return nil
		}
		var err error
		if c, ok := g.(io.Closer); ok {
			err = c.Close()
		}
		g = nil
		return err
	}
	defer endRun()
	for {
		if !lr.Ready() {
			if err := bw.Flush(); err != nil {
				return err
			}
		}
		line, err := lr.ReadLine()
		if errors.Is(err, io.EOF) {
			return endRun()
		}
		if err != nil {
			// Past a line too long (or a read error) the next line cannot
			// be found again: say so and stop.
			if werr := write(&protocol.Message{Type: protocol.TypeError, Text: err.Error()}); werr != nil {
				return werr
			}
			return err
		}
		// An event line is read straight into its event when it can be
		// (protocol.DecodeEventLine); any other line, or one it leaves,
		// through the message and its checks.
		num, ev, direct := protocol.DecodeEventLine(line)
		n := &num
		var evErr error
		if !direct {
			m, err := protocol.Unmarshal(line)
			if err == nil && m.Type != protocol.TypeConfig && m.Type != protocol.TypeEvent {
				err = fmt.Errorf("a %s line, which only a gate writes", m.Type)
			}
			if err != nil {
				em := &protocol.Message{Type: protocol.TypeError, Text: err.Error()}
				if m != nil && m.N != nil {
					em.N = m.N
				}
				if err := write(em); err != nil {
					return err
				}
				continue
			}
			if m.Type == protocol.TypeConfig {
				if err := endRun(); err != nil {
					return fmt.Errorf("closing the last run: %w", err)
				}
				failed = false
				cfg, err := protocol.DecodeConfig(m.Config)
				if err == nil {
					g, err = open(b, cfg, m.Ledger)
				}
				if err != nil {
					if err := write(&protocol.Message{Type: protocol.TypeRefused, Text: err.Error()}); err != nil {
						return err
					}
					continue
				}
				caps = g.Capabilities()
				hello := protocol.EncodeCaps(caps)
				_, hello.KillRestarts = g.(*killing)
				if err := write(&protocol.Message{Type: protocol.TypeHello, Name: name, Capabilities: hello}); err != nil {
					return err
				}
				continue
			}
			n = m.N
			ev, evErr = protocol.DecodeEvent(m.Event)
		}
		fail := func(text string) error { return write(&protocol.Message{Type: protocol.TypeError, N: n, Text: text}) }
		switch {
		case evErr != nil:
			err = fail(evErr.Error())
		case g == nil:
			err = fail("an event before any accepted config line")
		case failed:
			err = fail("the gate failed closed earlier in this run")
		default:
			err = feedOne(g, ev, n, caps, lw, fail, &failed)
		}
		if err != nil {
			return err
		}
	}
}

// open runs the backend for one configuration, and refuses a subject that
// claims to report retained bytes but cannot.
func open(b Backend, cfg sealgate.Config, ledgerPath string) (check.Subject, error) {
	g, err := b(cfg, ledgerPath)
	if err != nil {
		return nil, err
	}
	if caps := g.Capabilities(); caps.Full || caps.Retained {
		inner := g
		if k, ok := g.(*killing); ok {
			inner = k.Subject
		}
		if _, ok := inner.(check.Retainer); !ok {
			if c, ok := g.(io.Closer); ok {
				c.Close()
			}
			return nil, fmt.Errorf("stdiogate: the backend's gate %T claims retained bytes but has no Retained method", g)
		}
	}
	return g, nil
}

// feedOne gives one event to g and writes its answer.
func feedOne(g check.Subject, ev sealgate.Event, n *int, caps check.Capabilities, lw *lineWriter, fail func(string) error, failed *bool) error {
	ds, ferr := g.Feed(ev)
	for _, d := range ds {
		if err := lw.decision(d); err != nil {
			return err
		}
	}
	if ferr != nil {
		*failed = true
		return fail("gate failed closed: " + ferr.Error())
	}
	done := &protocol.Message{Type: protocol.TypeDone, N: n}
	if caps.Full || caps.Retained {
		r := g.(check.Retainer).Retained()
		done.Retained = &r
	}
	return lw.message(done)
}

// lineWriter writes Serve's answers through one buffer that it reuses
// for every line, so that an answer allocates nothing of its own.
type lineWriter struct {
	w    *bufio.Writer
	line []byte
}

// message writes m as a line of this protocol version.
func (lw *lineWriter) message(m *protocol.Message) error {
	m.V = protocol.Version
	var err error
	if lw.line, err = protocol.AppendLine(lw.line[:0], m); err != nil {
		return err
	}
	_, err = lw.w.Write(lw.line)
	return err
}

// decision writes d's decision line.
func (lw *lineWriter) decision(d sealgate.Decision) error {
	var err error
	if lw.line, err = protocol.AppendDecisionLine(lw.line[:0], d); err != nil {
		return err
	}
	_, err = lw.w.Write(lw.line)
	return err
}

// Control is the project's own gate as a Backend, the control every other
// gate is compared with: over a journal ledger at each run's ledger path,
// claiming the whole SPEC. fsync syncs the journal at every change.
func Control(fsync bool) Backend {
	return func(cfg sealgate.Config, ledgerPath string) (check.Subject, error) {
		return control.Open(cfg, ledgerPath, fsync)
	}
}

// KillRestarts asks the client to make every restart of b's gates a real
// one: the process is killed and started again, rather than given its
// configuration and ledger path again on a new config line. A gate whose
// state outlives a config line needs it; any gate may ask, to be tested as
// a crash would test it, at the price of a process start per restart.
func KillRestarts(b Backend) Backend {
	return func(cfg sealgate.Config, ledgerPath string) (check.Subject, error) {
		g, err := b(cfg, ledgerPath)
		if err != nil {
			return nil, err
		}
		return &killing{g}, nil
	}
}

// killing is a gate that asked for restarts by kill; it passes on what
// Serve asks of the gate it wraps.
type killing struct{ check.Subject }

func (k *killing) Retained() int {
	if r, ok := k.Subject.(check.Retainer); ok {
		return r.Retained()
	}
	return 0
}

func (k *killing) Close() error {
	if c, ok := k.Subject.(io.Closer); ok {
		return c.Close()
	}
	return nil
}
