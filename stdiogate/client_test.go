package stdiogate_test

import (
	"bufio"
	"errors"
	"fmt"
	"math/rand"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/sealgate/sealgate"
	"github.com/sealgate/sealgate/check"
	"github.com/sealgate/sealgate/internal/gen"
	"github.com/sealgate/sealgate/internal/machine"
	"github.com/sealgate/sealgate/internal/reduce"
	"github.com/sealgate/sealgate/scn"
	"github.com/sealgate/sealgate/stdiogate"
)

// The test binary is also the gate processes the tests run: with
// STDIOGATE_HELPER set it serves the protocol instead of running tests
// ("control": the real gate; the others break the protocol in one way).
func TestMain(m *testing.M) {
	switch mode := os.Getenv("STDIOGATE_HELPER"); mode {
	case "":
		os.Exit(m.Run())
	case "control", "control-kill", "wrong-refusal":
		b := stdiogate.Control(false)
		switch mode {
		case "wrong-refusal":
			b = wrongRefusal(b)
		case "control-kill":
			b = stdiogate.KillRestarts(b)
		}
		if err := stdiogate.Serve(os.Stdin, os.Stdout, "sealgate", b); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		os.Exit(0)
	default:
		misbehave(mode)
	}
}

// misbehave is a release-only gate that answers every event with done,
// except as mode says: "crash@N", "hang@N", "garbage@N", "error@N",
// "wrongdone@N", "badkind@N", "refuse".
func misbehave(mode string) {
	what, at, _ := strings.Cut(mode, "@")
	n, _ := strconv.Atoi(at)
	in := bufio.NewScanner(os.Stdin)
	in.Buffer(nil, 1<<20)
	out := bufio.NewWriter(os.Stdout)
	say := func(s string) { out.WriteString(s + "\n"); out.Flush() }
	events := 0
	for in.Scan() {
		if strings.Contains(in.Text(), `"type":"config"`) {
			if what == "refuse" {
				say(`{"v":1,"type":"refused","text":"no schemas here"}`)
				continue
			}
			say(`{"v":1,"type":"hello","name":"helper","capabilities":{"full":false,"decisions":[],"peeks":false,"acks":false,"restarts":false,"schemas":false,"reasons":false,"retained":false,"split_runes":false}}`)
			continue
		}
		events++
		if events == n {
			switch what {
			case "crash":
				fmt.Fprintln(os.Stderr, "helper: giving up")
				os.Exit(3)
			case "hang":
				time.Sleep(time.Hour)
			case "garbage":
				say(`{"v":1,"type":"done","n":` + strconv.Itoa(events) + `,"extra":1}`)
				continue
			case "error":
				say(`{"v":1,"type":"error","n":` + strconv.Itoa(events) + `,"text":"what is this"}`)
				continue
			case "wrongdone":
				say(`{"v":1,"type":"done","n":` + strconv.Itoa(events+1) + `}`)
				continue
			case "badkind":
				say(`{"v":1,"type":"decision","decision":{"kind":"execute","attempt":"r1"}}`)
			}
		}
		say(`{"v":1,"type":"done","n":` + strconv.Itoa(events) + `}`)
	}
}

func helper(t *testing.T, mode string, timeout time.Duration) *stdiogate.Client {
	t.Helper()
	t.Setenv("STDIOGATE_HELPER", mode)
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	c, err := stdiogate.NewClient([]string{exe}, timeout)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

func corpus(t *testing.T) []*scn.Scenario {
	t.Helper()
	files, err := scn.Files(filepath.Join("..", "corpus"))
	if err != nil {
		t.Fatal(err)
	}
	var out []*scn.Scenario
	for _, f := range files {
		s, err := scn.ParseFile(f)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, s)
	}
	return out
}

// TestControlCorpus: the real gate behind the protocol gives every corpus
// file's expected decisions, restarts included, and passes every check.
func TestControlCorpus(t *testing.T) {
	c := helper(t, "control", 0)
	chk := c.Checker()
	for i, s := range corpus(t) {
		cfg, err := s.Config()
		if err != nil {
			continue
		}
		tr := chk.Record(cfg, s.Events)
		got, err := tr.Decisions, tr.Err
		if err != nil {
			t.Fatalf("%s: %v", s.Name, err)
		}
		if err := check.Compare("expected", s.Expect, "stdio gate", got); err != nil {
			t.Errorf("%s: %s", s.Name, check.Diff("expected", s.Expect, "stdio gate", got))
		}
		if raceEnabled && i%8 != 0 {
			continue // a sample; .ci/run's sealfuzz test runs them all
		}
		if err := chk.All(cfg, s.Events); err != nil {
			t.Errorf("%s: %v", s.Name, err)
		}
	}
	t.Logf("%d processes started", c.Spawns())
}

func TestControlRefusesAsTheGateDoes(t *testing.T) {
	c := helper(t, "control", 0)
	cfg := sealgate.DefaultConfig()
	cfg.Limits.Depth = 0
	if _, err := c.Open(cfg); err == nil || errors.Is(err, check.ErrSubjectFailed) || !strings.Contains(err.Error(), "refused") {
		t.Fatalf("want a refusal, got %v", err)
	}
	if err := c.Checker().All(cfg, nil); err != nil {
		t.Fatalf("a refused configuration: %v", err)
	}
}

var fiveEvents = []sealgate.Event{
	sealgate.OpenEvent("r1", "t1"), sealgate.BeginEvent("r1", "0", "c1", "t"),
	sealgate.DeltaEvent("r1", "0", []byte(`{"a":1}`)), sealgate.EndEvent("r1", "0"), sealgate.CloseEvent("r1", sealgate.Complete)}

func oneTool() sealgate.Config {
	cfg := sealgate.DefaultConfig()
	cfg.Tools = []sealgate.Tool{{Name: "t", Schema: `{"type":"object"}`}}
	return cfg
}

func TestFailuresAreReportedWithTheEvent(t *testing.T) {
	cases := []struct{ mode, what, detail string }{
		{"crash@3", "crashed", "exit status 3"},
		{"hang@2", "hung", "no answer within"},
		{"garbage@4", "broke the protocol", `unknown object member name "extra"`},
		{"error@1", "could not parse", "what is this"},
		{"wrongdone@5", "broke the protocol", "done for event 6, want 5"},
		{"badkind@2", "broke the protocol", `unknown kind "execute"`},
	}
	// The same five events with a fragment too long for the client to
	// send its batch in one write without a goroutine.
	long := append([]sealgate.Event(nil), fiveEvents...)
	long[2] = sealgate.DeltaEvent("r1", "0", []byte(`{"a":"`+strings.Repeat("x", 6000)+`"}`))
	for _, c := range cases {
		for _, stream := range []struct {
			name   string
			events []sealgate.Event
		}{{"short", fiveEvents}, {"long", long}} {
			t.Run(c.mode+"/"+stream.name, func(t *testing.T) {
				cl := helper(t, c.mode, 300*time.Millisecond)
				err := cl.Checker().All(oneTool(), stream.events)
				var v *check.Violation
				if !errors.As(err, &v) || v.ID != "SUBJECT" {
					t.Fatalf("want a SUBJECT violation, got %v", err)
				}
				_, at, _ := strings.Cut(c.mode, "@")
				for _, want := range []string{"gate process " + c.what + " at event " + at, c.detail} {
					if !strings.Contains(v.Msg, want) {
						t.Errorf("report %q lacks %q", v.Msg, want)
					}
				}
				if c.what == "crashed" && !strings.Contains(v.Msg, "helper: giving up") {
					t.Errorf("report %q lacks the gate's stderr", v.Msg)
				}
			})
		}
	}
}

func TestRefusalIsNoViolation(t *testing.T) {
	cl := helper(t, "refuse", time.Second)
	if err := cl.Checker().All(oneTool(), fiveEvents); err != nil {
		t.Fatal(err)
	}
}

// TestRestartKeepsTheLedger: a release, a restart, the same call again:
// the journal makes it a duplicate, not a second release, whether the
// restart is a new config line to the same process or (for a gate that
// asked for it) a new process.
func TestRestartKeepsTheLedger(t *testing.T) {
	for _, c := range []struct {
		mode   string
		spawns int
	}{{"control", 1}, {"control-kill", 2}} {
		t.Run(c.mode, func(t *testing.T) { restartKeepsTheLedger(t, c.mode, c.spawns) })
	}
}

func restartKeepsTheLedger(t *testing.T, mode string, spawns int) {
	c := helper(t, mode, 0)
	evs := append(append(append([]sealgate.Event{}, fiveEvents...), sealgate.RestartEvent()), fiveEvents...)
	tr := c.Checker().Record(oneTool(), evs)
	got, err := tr.Decisions, tr.Err
	if err != nil {
		t.Fatal(err)
	}
	if c.Spawns() != spawns {
		t.Fatalf("%d processes started for one run with one restart, want %d", c.Spawns(), spawns)
	}
	want := check.Default.Run(oneTool(), evs).Model
	if err := check.Compare("model", want, "stdio gate", got); err != nil {
		t.Fatal(check.Diff("model", want, "stdio gate", got))
	}
	if len(got) != 2 || got[1].Kind != sealgate.Reconcile {
		t.Fatalf("want a release then a reconcile after the restart, got %v", got)
	}
}

// TestControlMachineAndGenerated: the control passes the rapid machine and
// seeded generated streams, as sealfuzz test runs them.
func TestControlMachineAndGenerated(t *testing.T) {
	c := helper(t, "control", 0)
	chk := c.Checker()
	runs, streams := 2, 100
	if raceEnabled {
		runs, streams = 1, 15
	}
	f, _, err := machine.Hunt(chk, 7, runs)
	if err != nil {
		t.Fatal(err)
	}
	if f != nil {
		t.Fatalf("the machine fails the control: %v\n%s", f.Err, reduce.Text(f.Config, f.Events, f.Err))
	}
	r := rand.New(rand.NewSource(7))
	for i := 0; i < streams; i++ {
		b := make([]byte, 16+r.Intn(496))
		r.Read(b)
		cfg, evs := gen.FromBytes(b)
		if err := chk.All(cfg, evs); err != nil {
			t.Fatalf("generated stream %d: %v\n%s", i, err, reduce.Text(cfg, evs, err))
		}
	}
}

// wrongRefusal is the real gate that refuses every configuration with a
// tool named "t": a wrong refusal, which only I12 can see.
func wrongRefusal(b stdiogate.Backend) stdiogate.Backend {
	return func(cfg sealgate.Config, path string) (check.Subject, error) {
		if _, ok := cfg.Tool("t"); ok {
			return nil, errors.New("no tool t")
		}
		return b(cfg, path)
	}
}

func TestAFullGatesWrongRefusalIsI12(t *testing.T) {
	c := helper(t, "wrong-refusal", 0)
	ok := sealgate.DefaultConfig()
	if err := c.Checker().All(ok, nil); err != nil {
		t.Fatalf("a configuration it accepts: %v", err)
	}
	err := c.Checker().All(oneTool(), fiveEvents)
	var v *check.Violation
	if !errors.As(err, &v) || v.ID != "I12" {
		t.Fatalf("want I12 for a wrong refusal, got %v", err)
	}
}

// TestClientConcurrent: goroutines that check runs of one client at once
// each get the expected decisions of their own corpus files (restarts
// included), on processes of their own, and every process goes back idle.
func TestClientConcurrent(t *testing.T) {
	const callers = 3
	c := helper(t, "control", 0)
	c.SetConcurrency(callers)
	chk := c.Checker()
	scenarios := corpus(t)
	var wg sync.WaitGroup
	for w := range callers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := w; i < len(scenarios); i += callers {
				s := scenarios[i]
				cfg, err := s.Config()
				if err != nil {
					continue
				}
				tr := chk.Record(cfg, s.Events)
				if tr.Err != nil {
					t.Errorf("%s: %v", s.Name, tr.Err)
					return
				}
				if err := check.Compare("expected", s.Expect, "stdio gate", tr.Decisions); err != nil {
					t.Errorf("%s (caller %d): %v", s.Name, w, err)
				}
				if i%(4*callers) == w {
					if err := chk.All(cfg, s.Events); err != nil {
						t.Errorf("%s (caller %d): %v", s.Name, w, err)
					}
				}
			}
		}()
	}
	wg.Wait()
	if n := c.Spawns(); n < 1 || n > 4*callers {
		t.Fatalf("%d processes started for %d callers", n, callers)
	}
	t.Logf("%d processes started for %d callers", c.Spawns(), callers)
}
