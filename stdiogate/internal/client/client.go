// Package client is the client side of the stdio protocol: it runs a gate
// command, one process serving run after run, and hands each run out as a
// check.Subject, replacing the process at a restart event or when it fails.
// Package stdiogate's Client is its public face.
package client

import (
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/sealgate/sealgate"
	"github.com/sealgate/sealgate/check"
	"github.com/sealgate/sealgate/stdiogate/internal/protocol"
)

// Client runs a gate command and hands it out as check subjects, one run
// at a time. One process serves run after run (each begins with its own
// config line and a fresh ledger file); it is killed and started again for
// a restart event, and replaced when it fails.
type Client struct {
	argv    []string
	timeout time.Duration
	dir     string // ledger folders live here

	mu       sync.Mutex
	idle     []*process // healthy processes between runs, at most keep
	keep     int        // maxIdle, or more for runs that are open at once (SetConcurrency)
	slots    []string   // empty ledger folders between runs
	nslots   int
	lastCaps *check.Capabilities // from the last hello
	spawns   int                 // processes started, for reports
	cpu      atomic.Int64        // user and system time of the processes that ended, in ns
}

// Spawns is how many processes the client started, for reports.
func (c *Client) Spawns() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.spawns
}

// SetConcurrency says how many callers will check runs at once, so that
// a process is kept between runs for each of their runs (at least
// maxIdle): a run that finds none idle starts a new process, which costs
// far more than the run.
func (c *Client) SetConcurrency(callers int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.keep = max(maxIdle, maxIdle*callers)
}

// CPUTime is the user and system time of the processes that have ended.
func (c *Client) CPUTime() time.Duration { return time.Duration(c.cpu.Load()) }

// maxIdle bounds the processes kept between runs: enough for the runs a
// check holds open at once, few enough that a gate's memory stays small.
const maxIdle = 4

// DefaultTimeout is how long the client waits for one answer.
const DefaultTimeout = 5 * time.Second

// startTimeout is the least the client waits for the hello, which may
// follow a process start (an interpreter loading its modules, a binary
// built with the race detector).
const startTimeout = 20 * time.Second

// New prepares to run argv (the command and its arguments). timeout
// bounds each answer (hello, or an event's decisions and done); 0 means
// DefaultTimeout. Close removes the ledger files and stops the process.
func New(argv []string, timeout time.Duration) (*Client, error) {
	if len(argv) == 0 {
		return nil, errors.New("stdiogate: no gate command")
	}
	if timeout <= 0 {
		timeout = DefaultTimeout
	}
	dir, err := os.MkdirTemp("", "sealgate-stdio-*")
	if err != nil {
		return nil, err
	}
	return &Client{argv: argv, timeout: timeout, dir: dir, keep: maxIdle}, nil
}

// Close ends the idle processes and removes every ledger file. Each is
// first given the end of its input and a moment to exit by itself, so that
// a gate can finish what it does at the end (sealgate-stdio -cpuprofile
// writes its profile); one that is still running then is killed.
func (c *Client) Close() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, p := range c.idle {
		p.stdin.Close()
	}
	deadline := time.After(exitGrace)
	for _, p := range c.idle {
		select {
		case <-p.done:
		case <-deadline:
		}
		p.kill()
	}
	c.idle = nil
	return os.RemoveAll(c.dir)
}

// Failure is a gate process that did not keep the protocol: it crashed,
// hung, broke the protocol or said it could not parse a line. It wraps
// check.ErrSubjectFailed, so that the checks report it as the subject's
// failure, with the event, and not as a verdict.
type Failure struct {
	What   string // "crashed", "hung", "broke the protocol", "could not parse"
	Event  int    // 1-based; 0 for the config line
	Detail string
	Stderr string // the end of what the process wrote to stderr
}

func (f *Failure) Error() string {
	at := "at its configuration"
	if f.Event > 0 {
		at = "at event " + strconv.Itoa(f.Event)
	}
	s := fmt.Sprintf("gate process %s %s: %s", f.What, at, f.Detail)
	if f.Stderr != "" {
		s += "\nstderr (end): " + f.Stderr
	}
	return s
}

func (f *Failure) Unwrap() error { return check.ErrSubjectFailed }

// refusal is the gate refusing a configuration. It carries the
// capabilities of the gate's last hello, if there was one, so that the
// refusal of a gate that claims full fidelity is compared with the model's.
type refusal struct {
	Text string
	caps *check.Capabilities
}

func (r *refusal) Error() string { return "the gate refused the configuration: " + r.Text }

// Capabilities is what the gate claimed in its last hello; a refusal before
// any hello claims nothing.
func (r *refusal) Capabilities() check.Capabilities {
	if r.caps == nil {
		return check.Capabilities{}
	}
	return *r.caps
}

// Open starts a run of cfg: a check.SubjectFactory. A gate that answers
// refused gives a plain error (the configuration is refused); any other
// trouble is a *Failure.
func (c *Client) Open(cfg sealgate.Config) (check.Subject, error) {
	c.mu.Lock()
	var p *process
	if n := len(c.idle); n > 0 {
		p, c.idle = c.idle[n-1], c.idle[:n-1]
	}
	slot, fresh := "", false
	if n := len(c.slots); n > 0 {
		slot, c.slots = c.slots[n-1], c.slots[:n-1]
	} else {
		c.nslots++
		slot, fresh = filepath.Join(c.dir, "slot-"+strconv.Itoa(c.nslots)), true
	}
	c.mu.Unlock()
	if fresh {
		if err := os.Mkdir(slot, 0o700); err != nil {
			return nil, err
		}
	}
	s := &session{c: c, p: p, cfg: cfg, ledger: filepath.Join(slot, "ledger")}
	caps, err := s.configure()
	if err != nil {
		s.drop()
		return nil, err
	}
	s.caps = caps
	return s, nil
}

// session is one run: a process (replaced at a restart) and its ledger.
type session struct {
	c        *Client
	p        *process
	cfg      sealgate.Config
	ledger   string
	caps     check.Capabilities
	kill     bool // the gate asked for restarts by kill (kill_restarts)
	n        int
	retained int
	broken   bool
}

func (s *session) Capabilities() check.Capabilities { return s.caps }
func (s *session) Retained() int                    { return s.retained }

// configure sends the config line to the session's process (starting one
// if there is none) and reads the hello.
func (s *session) configure() (check.Capabilities, error) {
	var none check.Capabilities
	if s.p == nil || s.p.exited() {
		p, err := s.c.spawn()
		if err != nil {
			return none, &Failure{What: "crashed", Detail: "could not start: " + err.Error()}
		}
		s.p = p
	}
	line, err := protocol.Marshal(&protocol.Message{V: protocol.Version, Type: protocol.TypeConfig, Config: protocol.EncodeConfig(s.cfg), Ledger: s.ledger})
	if err != nil {
		return none, err // a configuration the wire cannot carry: ours to fix, not the gate's
	}
	if f := s.p.send(line, s.c.timeout, 0); f != nil {
		return none, s.fail(f)
	}
	m, f := s.p.receive(max(s.c.timeout, startTimeout), 0)
	if f != nil {
		return none, s.fail(f)
	}
	switch m.Type {
	case protocol.TypeHello:
		caps, err := protocol.DecodeCaps(m.Capabilities)
		if err != nil {
			return none, s.fail(&Failure{What: "broke the protocol", Detail: err.Error()})
		}
		s.kill = m.Capabilities.KillRestarts
		s.c.mu.Lock()
		s.c.lastCaps = &caps
		s.c.mu.Unlock()
		return caps, nil
	case protocol.TypeRefused:
		s.c.mu.Lock()
		caps := s.c.lastCaps
		s.c.mu.Unlock()
		return none, &refusal{Text: m.Text, caps: caps}
	}
	return none, s.fail(&Failure{What: "broke the protocol", Detail: fmt.Sprintf("answered the config line with a %s line, want hello or refused", m.Type)})
}

// fail marks the session broken and fills in the process's stderr.
func (s *session) fail(f *Failure) *Failure {
	s.broken = true
	if s.p != nil {
		s.p.kill()
		f.Stderr = s.p.stderr.String()
		if f.What == "crashed" && s.p.exitErr != nil {
			f.Detail += " (" + s.p.exitErr.Error() + ")"
		}
	}
	return f
}

// Feed sends one event and reads its answer. A restart is not sent as an
// event: the gate is given the same configuration and ledger file again,
// on a new config line, so that it must recover from the ledger alone; for
// a gate that asked for it (kill_restarts), the process is first killed
// (SIGKILL, as a crash would) and a new one started.
func (s *session) Feed(ev sealgate.Event) ([]sealgate.Decision, error) {
	if s.broken {
		return nil, &Failure{What: "crashed", Event: s.n + 1, Detail: "the process failed earlier in this run"}
	}
	s.n++
	if ev.Kind == sealgate.Restart {
		if s.kill {
			s.p.kill()
			s.p = nil
		}
		s.retained = 0 // a restarted gate holds no bytes
		caps, err := s.configure()
		if err != nil {
			var f *Failure
			if errors.As(err, &f) {
				f.Event = s.n
				f.Detail = "after the restart: " + f.Detail
				return nil, f
			}
			s.broken = true
			return nil, &Failure{What: "broke the protocol", Event: s.n, Detail: "after the restart: " + err.Error()}
		}
		if caps != s.caps {
			return nil, s.fail(&Failure{What: "broke the protocol", Event: s.n,
				Detail: fmt.Sprintf("claimed %s after the restart, %s before", caps, s.caps)})
		}
		return nil, nil
	}
	n := s.n
	line, err := protocol.AppendEventLine(nil, n, ev)
	if err != nil {
		return nil, err
	}
	if f := s.p.send(line, s.c.timeout, n); f != nil {
		return nil, s.fail(f)
	}
	return s.answer(n)
}

// answer reads the answer to event n: its decisions, up to its done line.
func (s *session) answer(n int) ([]sealgate.Decision, error) {
	var out []sealgate.Decision
	deadline := time.Now().Add(s.c.timeout)
	for {
		m, f := s.p.receive(time.Until(deadline), n)
		if f != nil {
			return out, s.fail(f)
		}
		bad := func(format string, args ...any) ([]sealgate.Decision, error) {
			return out, s.fail(&Failure{What: "broke the protocol", Event: n, Detail: fmt.Sprintf(format, args...)})
		}
		switch m.Type {
		case protocol.TypeDecision:
			d, err := protocol.DecodeDecision(m.Decision)
			if err != nil {
				return bad("line %d of its answer: %v", len(out)+1, err)
			}
			d.At = n
			out = append(out, d)
		case protocol.TypeDone:
			if *m.N != n {
				return bad("done for event %d, want %d", *m.N, n)
			}
			if s.caps.Retained || s.caps.Full {
				if m.Retained == nil {
					return bad(`done without "retained", which its capabilities claim`)
				}
				s.retained = *m.Retained
			}
			return out, nil
		case protocol.TypeError:
			return out, s.fail(&Failure{What: "could not parse", Event: n, Detail: m.Text})
		default:
			return bad("a %s line in the answer to an event", m.Type)
		}
	}
}

// FeedAll is check.Streamer: the events between restarts go down the pipe
// without waiting for each answer, and the answers are read in order, each
// within the timeout of the one before. The gate sees the same lines, one
// event at a time, as with Feed; only the client stops waiting on the
// round trip.
func (s *session) FeedAll(events []sealgate.Event, answer func(i int, ds []sealgate.Decision) error) error {
	for start := 0; start < len(events); {
		if s.broken || events[start].Kind == sealgate.Restart {
			ds, err := s.Feed(events[start])
			if aerr := answer(start, ds); aerr != nil || err != nil {
				return errors.Join(err, aerr)
			}
			start++
			continue
		}
		end := start
		var batch []byte
		for ; end < len(events) && events[end].Kind != sealgate.Restart; end++ {
			var err error
			if batch, err = protocol.AppendEventLine(batch, s.n+1+end-start, events[end]); err != nil {
				return err
			}
		}
		if len(batch) <= pipeBatch {
			if f := s.p.send(batch, s.c.timeout, s.n+1); f != nil {
				return errors.Join(s.fail(f), answer(start, nil))
			}
		} else {
			// A gate may answer the first events before it reads the last:
			// the answers are read while the batch goes in. A gate that
			// stops reading is caught by the answer's timeout, and the
			// kill ends the write.
			go s.p.stdin.Write(batch)
		}
		for i := start; i < end; i++ {
			s.n++
			ds, err := s.answer(s.n)
			if aerr := answer(i, ds); aerr != nil || err != nil {
				return errors.Join(err, aerr)
			}
		}
		start = end
	}
	return nil
}

// Close ends the run: the process goes back to the client for the next
// run if it is healthy, and the run's ledger is removed.
func (s *session) Close() error {
	s.drop()
	return nil
}

func (s *session) drop() {
	if s.p != nil {
		s.c.mu.Lock()
		if !s.broken && !s.p.exited() && len(s.c.idle) < s.c.keep {
			s.c.idle = append(s.c.idle, s.p)
		} else {
			s.p.kill()
		}
		s.c.mu.Unlock()
		s.p = nil
	}
	// The folder is emptied and kept for a later run: a new folder per
	// run costs the file system an inode each time.
	slot := filepath.Dir(s.ledger)
	if emptied(slot) {
		s.c.mu.Lock()
		s.c.slots = append(s.c.slots, slot)
		s.c.mu.Unlock()
	} else {
		os.RemoveAll(slot)
	}
}

// emptied removes everything in dir, and reports whether it is now an
// empty folder.
func emptied(dir string) bool {
	f, err := os.Open(dir)
	if err != nil {
		return false
	}
	names, err := f.Readdirnames(-1)
	f.Close()
	if err != nil {
		return false
	}
	for _, n := range names {
		if os.RemoveAll(filepath.Join(dir, n)) != nil {
			return false
		}
	}
	return true
}

// process is one running gate. Its pipes are read and written on the
// caller's goroutine, each call bounded by a deadline on the pipe, so that
// an answer costs no goroutine or channel hop.
type process struct {
	cmd     *exec.Cmd
	stdin   *os.File
	stdout  *os.File
	lines   *protocol.LineReader
	done    chan struct{} // closed when the process has exited and been waited for
	exitErr error
	stderr  *tail
	closed  bool
}

func (c *Client) spawn() (*process, error) {
	cmd := exec.Command(c.argv[0], c.argv[1:]...)
	inR, inW, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	outR, outW, err := os.Pipe()
	if err != nil {
		inR.Close()
		inW.Close()
		return nil, err
	}
	p := &process{cmd: cmd, stdin: inW, stdout: outR, lines: protocol.NewLineReader(outR, protocol.MaxLineBytes),
		done: make(chan struct{}), stderr: &tail{max: 2048}}
	cmd.Stdin, cmd.Stdout, cmd.Stderr = inR, outW, p.stderr
	err = cmd.Start()
	inR.Close() // the child holds its own ends now
	outW.Close()
	if err != nil {
		inW.Close()
		outR.Close()
		return nil, err
	}
	c.mu.Lock()
	c.spawns++
	c.mu.Unlock()
	go func() {
		p.exitErr = cmd.Wait()
		if ps := cmd.ProcessState; ps != nil {
			c.cpu.Add(int64(ps.UserTime() + ps.SystemTime()))
		}
		close(p.done)
	}()
	return p, nil
}

func (p *process) exited() bool {
	select {
	case <-p.done:
		return true
	default:
		return false
	}
}

// kill stops the process, waits for it (briefly: a process that outlives
// SIGKILL is the kernel's business) and closes its pipes.
func (p *process) kill() {
	if !p.exited() {
		p.cmd.Process.Kill()
		select {
		case <-p.done:
		case <-time.After(2 * time.Second):
		}
	}
	if !p.closed {
		p.closed = true
		p.stdin.Close()
		p.stdout.Close()
	}
}

// exitGrace is how long Close waits for idle processes to exit once their
// input has ended, before it kills them.
const exitGrace = time.Second

// pipeBatch is the most the client writes to a gate's stdin in one call
// without a goroutine: no more than one page, which an empty pipe always
// takes whole, so the write cannot wait on a gate that is itself waiting
// for its answers to be read.
const pipeBatch = 4096

// send writes to the gate within the timeout: a gate that stops reading
// its stdin hangs the write once the pipe is full.
func (p *process) send(b []byte, timeout time.Duration, event int) *Failure {
	p.stdin.SetWriteDeadline(time.Now().Add(timeout))
	_, err := p.stdin.Write(b)
	switch {
	case errors.Is(err, os.ErrDeadlineExceeded):
		return &Failure{What: "hung", Event: event, Detail: fmt.Sprintf("it read no input for %v", timeout)}
	case err != nil:
		return &Failure{What: "crashed", Event: event, Detail: "its stdin is closed: " + err.Error()}
	}
	return nil
}

// receive reads and parses one line within the timeout.
func (p *process) receive(timeout time.Duration, event int) (*protocol.Message, *Failure) {
	if !p.lines.Ready() { // a buffered line needs no wait, nor a deadline
		p.stdout.SetReadDeadline(time.Now().Add(max(timeout, 0)))
	}
	line, err := p.lines.ReadLine()
	switch {
	case errors.Is(err, os.ErrDeadlineExceeded):
		return nil, &Failure{What: "hung", Event: event, Detail: fmt.Sprintf("no answer within %v", timeout)}
	case errors.Is(err, io.EOF):
		select { // its status, if it is exiting; fail kills it otherwise
		case <-p.done:
		case <-time.After(time.Second):
		}
		return nil, &Failure{What: "crashed", Event: event, Detail: "its stdout ended"}
	case err != nil:
		return nil, &Failure{What: "broke the protocol", Event: event, Detail: err.Error()}
	}
	m, err := protocol.Unmarshal(line)
	if err != nil {
		return nil, &Failure{What: "broke the protocol", Event: event, Detail: fmt.Sprintf("%v in line %q", err, protocol.Clip(line))}
	}
	return m, nil
}

// tail keeps the last max bytes written to it.
type tail struct {
	mu  sync.Mutex
	max int
	b   []byte
}

func (t *tail) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.b = append(t.b, p...)
	if len(t.b) > t.max {
		t.b = append([]byte(nil), t.b[len(t.b)-t.max:]...)
	}
	return len(p), nil
}

func (t *tail) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return string(t.b)
}
