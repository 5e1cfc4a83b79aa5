package main

import (
	"fmt"
	"io"
	"math/rand"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/sealgate/sealgate"
	"github.com/sealgate/sealgate/check"
	"github.com/sealgate/sealgate/internal/gen"
	"github.com/sealgate/sealgate/internal/machine"
	"github.com/sealgate/sealgate/internal/reduce"
	"github.com/sealgate/sealgate/scn"
	"github.com/sealgate/sealgate/stdiogate"
)

const testUsage = `usage: sealfuzz test -gate 'CMD ARGS' [flags]
       sealfuzz test [flags] -- CMD ARGS...

Runs a gate process that speaks the stdio protocol (docs/protocol.md)
through the corpus, the rapid state machine and a time budget of generated
streams, with every check that applies to the capabilities it claims. Each
distinct failing check is reduced to a .scn and printed with what the gate
said; a process that crashes, hangs or breaks the protocol is reported as
that (check SUBJECT), with the event. Exits 1 when it found a violation.
`

// gateTest is one run of sealfuzz test.
type gateTest struct {
	client   *stdiogate.Client
	chk      *check.Checker
	stdout   io.Writer
	out      string // folder for reduced scenarios, or ""
	tries    int
	streams  map[string]int
	found    map[string]*gateFailure
	order    []string // check IDs in the order first found
	started  time.Time
	firstHit map[string]time.Duration
}

// gateFailure is the first stream that failed one check, and how many did.
type gateFailure struct {
	source string // "corpus FILE", "machine seed N", "generated #N"
	cfg    sealgate.Config
	events []sealgate.Event
	err    error
	count  int
}

func testMain(args []string, stdout, stderr io.Writer) int {
	fs := newFlagSet("test", testUsage, stderr)
	gateCmd := fs.String("gate", "", "the gate command and its arguments, split at spaces (or give them after --)")
	budget := fs.Duration("for", 30*time.Second, "time for generated streams, after the corpus and the machine")
	timeout := fs.Duration("timeout", stdiogate.DefaultTimeout, "how long the gate may take to answer one event")
	corpusDir := fs.String("corpus", "corpus", "scenario folder to run first (\"\" for none)")
	checks := fs.Int("checks", 20, "runs of the rapid state machine")
	seed := fs.Int64("seed", 1, "seed of the machine and of the generated streams")
	tries := fs.Int("reduce-tries", 2000, "candidate scenarios the reducer may check per failure")
	out := fs.String("o", "", "also write each reduced failure to this folder as CHECK.scn")
	if done, code := parseFlags(fs, args, stdout, stderr); done {
		return code
	}
	argv := strings.Fields(*gateCmd)
	if fs.NArg() > 0 {
		if len(argv) > 0 {
			fmt.Fprintln(stderr, "sealfuzz test: give the gate with -gate or after --, not both")
			return 2
		}
		argv = fs.Args()
	}
	if len(argv) == 0 {
		fmt.Fprintln(stderr, "sealfuzz test: no gate command (-gate 'CMD ARGS')")
		fs.Usage()
		return 2
	}
	if *budget < 0 || *checks < 0 || *timeout <= 0 {
		fmt.Fprintln(stderr, "sealfuzz test: -for and -checks must not be negative, -timeout must be positive")
		return 2
	}
	client, err := stdiogate.NewClient(argv, *timeout)
	if err != nil {
		fmt.Fprintf(stderr, "sealfuzz test: %v\n", err)
		return 1
	}
	defer client.Close()
	g := &gateTest{client: client, chk: client.Checker(), stdout: stdout, out: *out, tries: *tries,
		streams: map[string]int{}, found: map[string]*gateFailure{}, firstHit: map[string]time.Duration{}, started: time.Now()}
	if err := g.hello(); err != nil {
		fmt.Fprintf(stderr, "sealfuzz test: %v\n", err)
		return 1
	}
	if *corpusDir != "" {
		if err := g.corpus(*corpusDir); err != nil {
			fmt.Fprintf(stderr, "sealfuzz test: %v\n", err)
			return 1
		}
	}
	g.machine(*seed, *checks)
	g.generated(*seed, *budget)
	return g.report()
}

// hello opens a run of the generated tool set to print what the gate
// claims and which checks apply.
func (g *gateTest) hello() error {
	cfg := sealgate.DefaultConfig()
	cfg.Tools = gen.Tools()
	s, err := g.client.Open(cfg)
	if err != nil {
		return fmt.Errorf("the gate does not start a run of the generated tools: %w", err)
	}
	caps := s.Capabilities()
	s.(io.Closer).Close()
	fmt.Fprintf(g.stdout, "gate: %s\ncapabilities: %s\nchecks:\n", strings.Join(g.client.Argv(), " "), caps)
	for _, c := range check.Applicable(caps) {
		note := ""
		if c.Partial != nil {
			if p := c.Partial(caps); p != "" {
				note = " (partly: " + p + ")"
			}
		}
		fmt.Fprintf(g.stdout, "  %-5s %s%s\n", c.ID, c.Name, note)
	}
	var skipped []string
	for _, c := range check.Checks {
		if !c.Applies(caps) {
			skipped = append(skipped, c.ID)
		}
	}
	if len(skipped) > 0 {
		fmt.Fprintf(g.stdout, "not applicable: %s\n", strings.Join(skipped, " "))
	}
	return nil
}

// run checks one stream and keeps its failure, if any.
func (g *gateTest) run(phase, source string, cfg sealgate.Config, events []sealgate.Event) {
	g.streams[phase]++
	err := g.chk.All(cfg, events)
	if err == nil {
		return
	}
	g.note(source, cfg, events, err)
}

func (g *gateTest) note(source string, cfg sealgate.Config, events []sealgate.Event, err error) {
	id := reduce.ID(err)
	if f := g.found[id]; f != nil {
		f.count++
		return
	}
	g.found[id] = &gateFailure{source: source, cfg: cfg, events: events, err: err, count: 1}
	g.order = append(g.order, id)
	g.firstHit[id] = time.Since(g.started)
	fmt.Fprintf(g.stdout, "found %s after %v (%s)\n", id, g.firstHit[id].Round(time.Millisecond), source)
}

func (g *gateTest) corpus(dir string) error {
	files, err := scn.Files(dir)
	if err != nil {
		return err
	}
	for _, f := range files {
		s, err := scn.ParseFile(f)
		if err != nil {
			return err
		}
		cfg, err := s.Config()
		if err != nil {
			continue // refused by the format itself: nothing to run
		}
		g.run("corpus", "corpus "+f, cfg, s.Events)
	}
	return nil
}

// machine runs the rapid state machine, which checks after every step:
// one run per seed, so that every failing run counts.
func (g *gateTest) machine(seed int64, checks int) {
	for i := 0; i < checks; i++ {
		s := uint64(seed) + uint64(i)
		f, _, err := machine.Hunt(g.chk, s, 1)
		g.streams["machine"]++
		switch {
		case err != nil:
			g.note(fmt.Sprintf("machine seed %d", s), sealgate.Config{}, nil, err)
		case f != nil:
			g.note(fmt.Sprintf("machine seed %d", s), f.Config, f.Events, f.Err)
		}
	}
}

// generated runs gen.FromBytes streams of seeded random bytes until the
// budget is spent.
func (g *gateTest) generated(seed int64, budget time.Duration) {
	r := rand.New(rand.NewSource(seed))
	deadline := time.Now().Add(budget)
	for i := 1; time.Now().Before(deadline); i++ {
		b := make([]byte, 16+r.Intn(496))
		r.Read(b)
		cfg, evs := gen.FromBytes(b)
		g.run("generated", fmt.Sprintf("generated #%d", i), cfg, evs)
	}
}

// report reduces each distinct failure and prints it, then the summary.
func (g *gateTest) report() int {
	total := 0
	for _, id := range g.order {
		f := g.found[id]
		total += f.count
		fmt.Fprintf(g.stdout, "\nFAIL %s: %d streams, first %s after %v\n", id, f.count, f.source, g.firstHit[id].Round(time.Millisecond))
		if f.events == nil && f.cfg.Tools == nil {
			fmt.Fprintf(g.stdout, "  %v\n", indent(f.err.Error()))
			continue
		}
		cfg, evs, err := f.cfg, f.events, f.err
		res, rerr := reduce.Reduce(cfg, evs, g.chk.All, reduce.Options{MaxTries: g.tries})
		if rerr == nil {
			cfg, evs, err = res.Config, res.Events, res.Err
			fmt.Fprintf(g.stdout, "  reduced from %d to %d events in %d tries\n", len(f.events), len(evs), res.Tries)
		} else {
			fmt.Fprintf(g.stdout, "  not reduced: %v\n", rerr)
		}
		fmt.Fprintf(g.stdout, "  %s\n", indent(err.Error()))
		text := reduce.Text(cfg, evs, err)
		fmt.Fprintf(g.stdout, "  the scenario (expected part: the SPEC's decisions, from the model):\n%s", indent(text))
		if said, serr := g.chk.RunGate(cfg, evs); serr == nil || len(said) > 0 {
			fmt.Fprintf(g.stdout, "  what the gate said:\n%s", indent(string(scn.FormatDecisions(said))))
			if serr != nil {
				fmt.Fprintf(g.stdout, "    then: %v\n", serr)
			}
		}
		if g.out != "" {
			if err := writeReduced(g.out, id, text); err != nil {
				fmt.Fprintf(g.stdout, "  not written: %v\n", err)
			}
		}
	}
	var phases []string
	for p := range g.streams {
		phases = append(phases, p)
	}
	sort.Strings(phases)
	var counts []string
	for _, p := range phases {
		counts = append(counts, fmt.Sprintf("%s %d", p, g.streams[p]))
	}
	fmt.Fprintf(g.stdout, "\ntest: %d violations of %d checks in %s streams; %d gate processes; %v\n",
		total, len(g.order), strings.Join(counts, ", "), g.client.Spawns, time.Since(g.started).Round(time.Millisecond))
	if total > 0 {
		return 1
	}
	return 0
}

func writeReduced(dir, id, text string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, strings.ToLower(id)+".scn"), []byte(text), 0o644)
}
