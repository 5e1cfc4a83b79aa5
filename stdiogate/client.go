package stdiogate

import (
	"time"

	"github.com/sealgate/sealgate"
	"github.com/sealgate/sealgate/check"
	"github.com/sealgate/sealgate/stdiogate/internal/client"
)

// Client runs a gate command and hands it out as check subjects, each
// run on a process of its own; Open is safe for concurrent use. A process
// serves run after run (each begins with its own config line and a fresh
// ledger file); a restart event is the same config line and ledger file
// again (or, for a gate that asked, a kill and a new process), and a
// process that fails is replaced. A process that crashes,
// hangs or breaks the protocol is an error that wraps
// check.ErrSubjectFailed, with the event and the end of its stderr.
type Client struct{ c *client.Client }

// DefaultTimeout is how long the client waits for one answer.
const DefaultTimeout = client.DefaultTimeout

// NewClient prepares to run argv (the command and its arguments). timeout
// bounds each answer (hello, or an event's decisions and done); 0 means
// DefaultTimeout. Close removes the ledger files and stops the process.
func NewClient(argv []string, timeout time.Duration) (*Client, error) {
	c, err := client.New(argv, timeout)
	if err != nil {
		return nil, err
	}
	return &Client{c}, nil
}

// Open starts a run of cfg: a check.SubjectFactory. A gate that answers
// refused gives a plain error (the configuration is refused); any other
// trouble wraps check.ErrSubjectFailed.
func (c *Client) Open(cfg sealgate.Config) (check.Subject, error) { return c.c.Open(cfg) }

// Checker checks this client's gate with the whole suite.
func (c *Client) Checker() *check.Checker { return check.NewChecker(c.Open) }

// Spawns is how many gate processes the client started, for reports.
func (c *Client) Spawns() int { return c.c.Spawns() }

// SetConcurrency says how many goroutines will open runs at once (Open is
// safe for concurrent use), so that the client keeps a process between
// runs for each: otherwise a run that finds none idle starts one.
func (c *Client) SetConcurrency(callers int) { c.c.SetConcurrency(callers) }

// CPU is the user and system time of the gate processes that have ended
// (all of them, after Close), for reports: a gate's cost per stream does
// not depend on how loaded the machine is, as its wall time does.
func (c *Client) CPU() time.Duration { return c.c.CPUTime() }

// Close stops the idle process and removes every ledger file.
func (c *Client) Close() error { return c.c.Close() }
