package boltledger_test

// The crash test: a child process runs turns through the gate over the
// bolt ledger and executes what the gate releases, recording each effect
// in an effect log before it acks; the parent SIGKILLs it at random moments
// and checks, after every kill, that nothing ran twice, that keys left in
// intent are reconciled and never released, and that the file is sound.
// It is modelled on SQLite's crash tests (kill a real process in the middle
// of its writes, then check the file and the application's invariants).
//
// SIGKILL leaves the operating system's page cache alone, so what the
// child wrote reaches the file even without fsync: this tests process
// crashes, not power loss. The fsync itself is tested apart (NoSync off,
// commit before Feed returns: ledger_test.go).

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/sealgate/sealgate"
	"github.com/sealgate/sealgate/boltledger"
	"github.com/sealgate/sealgate/gate"
	"github.com/sealgate/sealgate/internal/lazyfs"
)

// The windows a kill can land in, by the last phase the child reported.
const (
	inStream    = "stream"    // before feeding one stream event
	inReleased  = "released"  // between a release and its execution
	inExecuted  = "executed"  // between the execution (logged) and ack ok
	inUndone    = "undone"    // between the undo (logged) and ack fail
	inCommit    = "commit"    // inside a ledger write transaction
	inCommitted = "committed" // after a write committed, before the gate goes on
)

var windows = []string{inStream, inReleased, inExecuted, inUndone, inCommit, inCommitted}

// minPerWindow is the fewest kills each window must get.
const minPerWindow = 10

// crashKills is how many kills a run does: 100 unless SEALGATE_CRASH_KILLS
// says otherwise.
func crashKills(t *testing.T) int {
	s := os.Getenv("SEALGATE_CRASH_KILLS")
	if s == "" {
		return 100
	}
	n, err := strconv.Atoi(s)
	if err != nil || n < minPerWindow*len(windows) {
		t.Fatalf("SEALGATE_CRASH_KILLS=%q: want a number of at least %d", s, minPerWindow*len(windows))
	}
	return n
}

// crashState is what the parent knows across restarts.
type crashState struct {
	t                  *testing.T
	ledger, effects    string // the files, as the child opens them
	checkDir           string // where the parent reads them: their directory, or the lazy mount's backing one
	kills              map[string]int
	clean              int             // runs that ended on their own
	turnOf             map[string]int  // key -> its turn, from what the child reported
	released           map[string]int  // key -> releases so far
	clearedSince       map[string]bool // key -> an ack fail of it committed since its last release
	pendingIntent      map[string]bool // keys left in intent at the last restart, not reconciled yet
	executed           map[string]bool // effect log: executed and not undone
	effectsRead        int64           // bytes of the effect log already checked
	reconciled         int
	execs, undos, reex int
	nextTurn, run      int
	maxTurn            int
	lastTurn           int                         // the turn the last run was in when it died; -1 for none
	expected           map[string]gate.LedgerState // each key's state after the commits the child reported done
	unconfirmed        *commitMsg                  // a write the killed child started: did it commit?
	reportedEffects    []string                    // effects the child reported recorded since the last check

	power    *lazyfs.FS                    // with power cuts: the lazy mount the files are on
	childEnv []string                      // more environment for the child (planted weaknesses)
	fail     func(format string, a ...any) // reports a violation; default t.Errorf
	failures int                           // violations so far

	// What the cuts dropped: files with unsynced writes, and last unsynced
	// writes dropped, torn part way, or kept whole.
	unsyncedFiles, tornDropped, tornPartly, tornKept int
	faults                                           int // kills made inside a write or fsync (power cuts)
}

// newCrashState is the parent's state over the files in dir.
func newCrashState(t *testing.T, dir string) *crashState {
	return &crashState{t: t, ledger: filepath.Join(dir, "ledger.db"), effects: filepath.Join(dir, "effects.log"), checkDir: dir,
		kills: map[string]int{}, turnOf: map[string]int{}, released: map[string]int{},
		clearedSince: map[string]bool{}, pendingIntent: map[string]bool{}, executed: map[string]bool{}, lastTurn: -1,
		expected: map[string]gate.LedgerState{}, fail: t.Errorf}
}

// failf reports a violation of what the test checks.
func (s *crashState) failf(format string, a ...any) {
	s.failures++
	s.fail(format, a...)
}

func TestCrash(t *testing.T) {
	if testing.Short() {
		t.Skip("the crash test restarts a child process a hundred times; -short skips it")
	}
	s := newCrashState(t, t.TempDir())
	// The seed picks the kill plans and the replays; where a kill lands
	// also depends on timing, so a seed does not replay a run exactly.
	seed := uint64(time.Now().UnixNano())
	t.Logf("seed %d", seed)
	s.campaign(seed, crashKills(t), true)
}

// campaign kills (and, with s.power, cuts the power under) a child until
// want kills are made and every window has its share, checking the files
// after each; then, with finish, it runs a last child that is not killed.
// It stops at the first run that shows a violation and returns the kills
// made so far.
func (s *crashState) campaign(seed uint64, want int, finish bool) int {
	t := s.t
	rng := rand.New(rand.NewPCG(seed, 18))
	what := "kills"
	if s.power != nil {
		what = "power cuts"
	}
	total := 0
	for total < want || s.fewest() < minPerWindow {
		killed := s.runChild(rng, true)
		if killed != "" {
			s.kills[killed]++
			total++
			if total%500 == 0 {
				t.Logf("%d %s: %s", total, what, s.counts())
			}
		}
		s.cut()
		s.verify()
		s.powerOn()
		if s.failures > 0 {
			if t.Failed() {
				t.Fatalf("after run %d (%d %s; seed %d)", s.run, total, what, seed)
			}
			return total
		}
		if s.run > 20*want {
			t.Fatalf("%d runs for %d %s: the kill plan does not reach the windows (%v)", s.run, total, what, s.kills)
		}
	}
	if !finish {
		return total
	}
	// A last run that is not killed: every key still in intent is
	// reconciled, and nothing is left in intent after it.
	if killed := s.runChild(rng, false); killed != "" {
		t.Fatalf("the last run was killed in %s", killed)
	}
	s.cut()
	s.verify()
	s.powerOn()
	if n := len(s.pendingIntent); n != 0 {
		s.failf("after a run that ended on its own, %d keys are still in intent", n)
	}
	t.Logf("%d %s (%s), %d runs ended on their own; %d turns, %d executions, %d undone, %d run again after ack fail, %d intents reconciled",
		total, what, s.counts(), s.clean, s.maxTurn+1, s.execs, s.undos, s.reex, s.reconciled)
	return total
}

// cut cuts the power under the files, when the test runs on a lazy mount;
// verify then reads what survived in the backing directory (this process
// serves the mount, and must not read it through bbolt's mmap: see
// lazyfs.FS.PowerOff).
func (s *crashState) cut() {
	if s.power == nil {
		return
	}
	rep, err := s.power.PowerOff()
	if err != nil {
		s.t.Fatalf("after run %d: power cut: %v", s.run, err)
	}
	s.unsyncedFiles += rep.Unsynced
	for _, tw := range rep.Torn {
		switch {
		case tw.Kept == 0:
			s.tornDropped++
		case tw.Kept < tw.Len:
			s.tornPartly++
		default:
			s.tornKept++
		}
	}
}

// powerOn brings the lazy mount back after a cut.
func (s *crashState) powerOn() {
	if s.power == nil {
		return
	}
	if err := s.power.PowerOn(); err != nil {
		s.t.Fatalf("after run %d: power on: %v", s.run, err)
	}
}

// counts are the kills so far by window.
func (s *crashState) counts() string {
	var counts []string
	for _, w := range windows {
		counts = append(counts, fmt.Sprintf("%s %d", w, s.kills[w]))
	}
	return strings.Join(counts, ", ")
}

func (s *crashState) fewest() int {
	n := -1
	for _, w := range windows {
		if n < 0 || s.kills[w] < n {
			n = s.kills[w]
		}
	}
	return n
}

// plan picks the window the next kill aims at (the one with the fewest
// kills so far), which occurrence of it, and how long after it to kill.
func (s *crashState) plan(rng *rand.Rand) (window string, nth int, delay time.Duration) {
	var least []string
	for _, w := range windows {
		if s.kills[w] == s.fewest() {
			least = append(least, w)
		}
	}
	window = least[rng.IntN(len(least))]
	if rng.IntN(3) > 0 {
		delay = time.Duration(rng.IntN(1500)) * time.Microsecond
	}
	return window, 1 + rng.IntN(8), delay
}

// turns is the next child's work: the turns of keys left in intent (they
// must be reconciled), the turn it was killed in, sometimes an older turn
// (a retry of a done turn), then new turns.
func (s *crashState) turns(rng *rand.Rand, last int) []int {
	var ts []int
	for k := range s.pendingIntent {
		ts = append(ts, s.turnOf[k])
	}
	slices.Sort(ts)
	if last >= 0 {
		ts = append(ts, last)
	}
	if s.maxTurn > 0 && rng.IntN(2) == 0 {
		ts = append(ts, rng.IntN(s.maxTurn))
	}
	ts = slices.Compact(ts)
	for i := 0; i < 30; i++ {
		ts = append(ts, s.nextTurn+i)
	}
	return ts
}

// runChild starts a child over the work and, with kill, SIGKILLs it at a
// planned moment. It returns the window of the kill ("" if the child ended
// on its own), checking what the child reports as it goes.
func (s *crashState) runChild(rng *rand.Rand, kill bool) string {
	t := s.t
	s.run++
	window, nth, delay := s.plan(rng)
	// With power cuts, half the kills land inside the filesystem instead:
	// at the faultAt-th write or fsync after the go, the power fails and
	// the child dies in that call, so that writes are left unsynced and the
	// last one may be torn (a timed kill almost never lands between a write
	// and its fsync). Such a kill is counted, as any, by the last phase
	// the child reported: mostly commit (bbolt writes pages, fsyncs, writes
	// the meta page, fsyncs) and released (the executor writes its record
	// of the effect and fsyncs it).
	faultAt := 0
	if s.power != nil && rng.IntN(2) == 0 {
		faultAt = 1 + rng.IntN(4)
	}
	work := s.turns(rng, s.lastTurn)
	list := make([]string, len(work))
	for i, n := range work {
		list[i] = strconv.Itoa(n)
	}
	phaseR, phaseW, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	goR, goW, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer phaseR.Close()
	defer goW.Close()
	cmd := childCommand("crash", append([]string{"SEALGATE_LEDGER_PATH=" + s.ledger, "SEALGATE_EFFECTS_PATH=" + s.effects,
		"SEALGATE_CRASH_TURNS=" + strings.Join(list, ","), "SEALGATE_CRASH_RUN=" + strconv.Itoa(s.run)}, s.childEnv...)...)
	cmd.ExtraFiles = []*os.File{phaseW, goR}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	phaseW.Close()
	goR.Close()

	in := bufio.NewReader(phaseR)
	seen, last := 0, ""
	var started *commitMsg // a write the child started and has not reported committed
	killed, armed := false, false
	var faulted atomic.Bool // set by the lazy filesystem's fault hook
	for {
		line, err := in.ReadString('\n')
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		m, err := parseMsg(line)
		if err != nil {
			t.Fatalf("child said %q: %v", line, err)
		}
		s.observe(m)
		s.lastTurn = m.turn
		s.maxTurn = max(s.maxTurn, m.turn)
		if m.wait {
			last = m.phase
			switch m.phase {
			case inCommit:
				started = &commitMsg{op: m.op, key: m.key}
			case inCommitted:
				s.committed(m.op, m.key)
				started = nil
			}
			if killed || faulted.Load() {
				continue // the kill is on its way; the child is blocked here
			}
			fire := false
			if kill && !armed && m.phase == window {
				seen++
				fire = seen == nth
			}
			if fire && faultAt > 0 {
				s.armFault(cmd.Process, faultAt, &faulted)
				armed = true
			}
			if _, err := goW.Write([]byte{'g'}); err != nil {
				if faulted.Load() {
					continue // the fault killed the child meanwhile
				}
				t.Fatal(err)
			}
			if fire && faultAt == 0 {
				if delay > 0 {
					time.Sleep(delay)
				}
				if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
					t.Fatal(err)
				}
				killed = true
			}
		}
	}
	if faulted.Load() {
		killed = true
		s.faults++
	}
	err = cmd.Wait()
	if !killed {
		if err != nil {
			s.failf("run %d ended with %v before its kill:\n%s", s.run, err, stderr.String())
			return ""
		}
		s.clean++
		s.lastTurn = -1
		for k := range s.pendingIntent {
			s.failf("run %d ended on its own without reconciling %s (turn %d), left in intent", s.run, k, s.turnOf[k])
		}
		return ""
	}
	if ws, ok := cmd.ProcessState.Sys().(syscall.WaitStatus); !ok || !ws.Signaled() || ws.Signal() != syscall.SIGKILL {
		t.Fatalf("run %d: want death by SIGKILL, got %v:\n%s", s.run, err, stderr.String())
	}
	s.unconfirmed = started
	return last
}

// armFault makes the lazy filesystem fail the power at the n-th write or
// fsync from now, killing the child in that call.
func (s *crashState) armFault(child *os.Process, n int, fired *atomic.Bool) {
	ops := 0 // the hook runs under the filesystem's lock, one call at a time
	s.power.SetFault(func(lazyfs.Op) bool {
		if ops++; ops < n {
			return false
		}
		child.Signal(syscall.SIGKILL)
		fired.Store(true)
		return true
	})
}

type commitMsg struct{ op, key string }

// msg is one line from the child: "P phase turn key op" (a phase; the
// child waits for the parent's go) or "D kind turn key" (a decision it
// saw, no wait).
type msg struct {
	wait       bool
	phase, key string
	op         string // commit: intent, done or clear
	turn       int
}

func parseMsg(line string) (msg, error) {
	f := strings.Fields(line)
	if len(f) != 5 || (f[0] != "P" && f[0] != "D") {
		return msg{}, fmt.Errorf("want 5 fields, P or D first")
	}
	n, err := strconv.Atoi(f[2])
	if err != nil {
		return msg{}, err
	}
	return msg{wait: f[0] == "P", phase: f[1], turn: n, key: f[3], op: f[4]}, nil
}

// observe checks one report as it arrives: a key left in intent is never
// released, and a key released before runs again only after an ack fail
// was committed.
func (s *crashState) observe(m msg) {
	if m.key != "-" {
		s.turnOf[m.key] = m.turn
	}
	switch {
	case m.wait && m.phase == inExecuted:
		s.reportedEffects = append(s.reportedEffects, "exec "+m.key)
	case m.wait && m.phase == inUndone:
		s.reportedEffects = append(s.reportedEffects, "undo "+m.key)
	case !m.wait && m.phase == "reconcile":
		if s.pendingIntent[m.key] {
			s.reconciled++
		}
		delete(s.pendingIntent, m.key)
	case m.wait && m.phase == inReleased:
		if s.pendingIntent[m.key] {
			s.failf("run %d: released %s (turn %d), which was left in intent: it must be reconciled", s.run, m.key, m.turn)
		}
		if s.released[m.key] > 0 && !s.clearedSince[m.key] {
			s.failf("run %d: released %s (turn %d) again with no ack fail committed since", s.run, m.key, m.turn)
		}
		if s.released[m.key] > 0 {
			s.reex++
		}
		s.released[m.key]++
		s.clearedSince[m.key] = false
	}
}

// committed notes a write the child reported committed.
func (s *crashState) committed(op, key string) {
	s.expected[key] = stateOf(op)
	if op == "clear" {
		s.clearedSince[key] = true
	}
}

// stateOf is the state a ledger write leaves its key in.
func stateOf(op string) gate.LedgerState {
	switch op {
	case "intent":
		return gate.Intent
	case "done":
		return gate.Done
	}
	return gate.Absent
}

// verify checks the files after a run: the ledger opens at once, bbolt's
// check finds nothing, the effect log never executes a key twice without
// an undo between, and the ledger agrees with the log. A missing ledger
// file is an empty ledger (verify does not create it: a file lost to a
// power cut must be noticed, not made again by the parent).
func (s *crashState) verify() {
	states := map[string]gate.LedgerState{}
	if _, err := os.Stat(filepath.Join(s.checkDir, "ledger.db")); err == nil {
		if !s.readLedger(states) {
			return
		}
	} else if !os.IsNotExist(err) {
		s.t.Fatal(err)
	}
	// A commit the child reported is on disk; the one it had started when
	// it died is there whole or not at all.
	u := s.unconfirmed
	s.unconfirmed = nil
	for k := range s.expected {
		if _, ok := states[k]; !ok {
			states[k] = gate.Absent
		}
	}
	for k, got := range states {
		want := s.expected[k]
		switch {
		case got == want:
		case u != nil && k == u.key && got == stateOf(u.op):
			s.committed(u.op, u.key)
		default:
			s.failf("after run %d: %s is %v on disk; the commits the child reported leave it %v", s.run, k, got, want)
		}
	}
	for k, st := range states {
		if st == gate.Absent {
			delete(states, k)
		}
	}
	s.readEffects()
	s.pendingIntent = map[string]bool{}
	for k, st := range states {
		switch st {
		case gate.Intent:
			s.pendingIntent[k] = true
			if _, ok := s.turnOf[k]; !ok {
				s.failf("after run %d: %s is in intent and the child never named it", s.run, k)
			}
		case gate.Done:
			if !s.executed[k] {
				s.failf("after run %d: %s is done, but the effect log has no standing execution of it", s.run, k)
			}
		}
	}
	for k := range s.released {
		if states[k] == gate.Absent && s.executed[k] {
			s.failf("after run %d: %s was cleared (ack fail), but its execution was never undone", s.run, k)
		}
	}
	s.nextTurn = s.maxTurn + 1
}

// readLedger opens the ledger, checks it, and reads every key's state; it
// reports false after a violation.
func (s *crashState) readLedger(states map[string]gate.LedgerState) bool {
	l, err := boltledger.Open(filepath.Join(s.checkDir, "ledger.db"), nil)
	if err != nil {
		s.failf("after run %d the ledger does not open: %v", s.run, err)
		return false
	}
	defer l.Close()
	if err := l.Check(); err != nil {
		s.failf("after run %d: %v", s.run, err)
		return false
	}
	if err := l.Each(func(k string, st gate.LedgerState, _ time.Time) error {
		states[k] = st
		return nil
	}); err != nil {
		s.failf("after run %d: %v", s.run, err)
		return false
	}
	return true
}

// readEffects checks the effect log's new complete lines. A torn last
// line (none is expected: a kill lands between write calls) is left for
// the next child, which truncates it.
func (s *crashState) readEffects() {
	t := s.t
	b, err := os.ReadFile(filepath.Join(s.checkDir, "effects.log"))
	if os.IsNotExist(err) {
		return
	}
	if err != nil {
		t.Fatal(err)
	}
	if int64(len(b)) < s.effectsRead {
		s.failf("after run %d the effect log shrank below what was checked (%d < %d)", s.run, len(b), s.effectsRead)
		return
	}
	whole, tail := lines(b[s.effectsRead:])
	// Every effect the child reported recorded is there, in order; at most
	// one more (recorded, then killed before the report) follows.
	reported := s.reportedEffects
	s.reportedEffects = nil
	for i, e := range reported {
		if i >= len(whole) || whole[i] != e {
			s.failf("after run %d: the child reported %q recorded, but the effect log's new lines are %.300q", s.run, e, strings.Join(whole, "\n"))
			break
		}
	}
	if len(whole) > len(reported)+1 {
		s.failf("after run %d: the effect log has %d new lines, the child reported %d recorded", s.run, len(whole), len(reported))
	}
	for _, line := range whole {
		op, key, ok := strings.Cut(line, " ")
		switch {
		case !ok:
			s.failf("effect log line %q", line)
		case op == "exec":
			if s.executed[key] {
				s.failf("run %d: %s executed twice with no undo between", s.run, key)
			}
			s.executed[key] = true
			s.execs++
		case op == "undo":
			if !s.executed[key] {
				s.failf("run %d: %s undone without an execution", s.run, key)
			}
			s.executed[key] = false
			s.undos++
		default:
			s.failf("effect log line %q", line)
		}
	}
	s.effectsRead = int64(len(b) - len(tail))
}

// childCrash is the child: it runs the turns it is given through a gate
// over the ledger and executes what the gate releases.
func childCrash() error {
	c := &crashChild{phases: os.NewFile(3, "phases"), goes: os.NewFile(4, "goes")}
	run, err := strconv.Atoi(os.Getenv("SEALGATE_CRASH_RUN"))
	if err != nil {
		return err
	}
	var work []int
	for _, f := range strings.Split(os.Getenv("SEALGATE_CRASH_TURNS"), ",") {
		n, err := strconv.Atoi(f)
		if err != nil {
			return fmt.Errorf("SEALGATE_CRASH_TURNS: %w", err)
		}
		work = append(work, n)
	}
	weak := os.Getenv(weakenEnv)
	if !slices.Contains(append([]string{""}, weaknesses...), weak) {
		return fmt.Errorf("%s=%q: want one of %q", weakenEnv, weak, weaknesses)
	}
	c.unsyncedEffects = weak == weakEffects
	if weak == weakDirSync {
		boltledger.SetSkipDirSync(true)
	}
	if c.effects, err = openEffects(os.Getenv("SEALGATE_EFFECTS_PATH")); err != nil {
		return err
	}
	l, err := boltledger.Open(os.Getenv("SEALGATE_LEDGER_PATH"), &boltledger.Options{NoSync: weak == weakNoSync})
	if err != nil {
		return err
	}
	defer l.Close()
	boltledger.SetCommitHooks(l,
		func(op, key string) { c.phase(inCommit, key, op) },
		func(op, key string) { c.phase(inCommitted, key, op) })
	if c.g, err = gate.New(testConfig(), l); err != nil {
		return err
	}
	for _, n := range work {
		c.turn = n
		for i, a := range crashAttempts(n) {
			a.attempt = fmt.Sprintf("p%d-t%d-%d", run, n, i)
			for _, ev := range a.events() {
				c.phase(inStream, "-", "-")
				ds, err := c.g.Feed(ev)
				if err != nil {
					return err
				}
				if err := c.act(ds); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

// crashAttempts are turn n's attempts, the same in every run: mostly one
// complete attempt; some turns are first cut (disconnected, or superseded
// half-way by a regeneration) and then sent again whole.
func crashAttempts(n int) []turn {
	calls := 1 + n%3
	var args []string
	for j := 0; j < calls; j++ {
		args = append(args, fmt.Sprintf(`{"n":%d,"pad":"turn %d, call %d"}`, j, n, j))
	}
	if n%11 == 0 {
		args = append(args, args[0]) // the same call twice: refused duplicate
	}
	whole := turn{turn: "t" + strconv.Itoa(n), args: args, pieces: 2 + n%3, status: sealgate.Complete}
	switch {
	case n%7 == 2:
		cut := whole
		cut.status = sealgate.Disconnected
		return []turn{cut, whole}
	case n%5 == 3:
		half := whole
		evs := half.events()
		half.cutAt = len(evs) / 2
		return []turn{half, whole}
	}
	return []turn{whole}
}

type crashChild struct {
	phases, goes    *os.File
	effects         *os.File
	g               *gate.Gate
	turn            int
	unsyncedEffects bool // the planted weakness: record without fsync
}

// phase reports a phase and waits for the parent's go (or its SIGKILL).
func (c *crashChild) phase(p, key, op string) {
	fmt.Fprintf(c.phases, "P %s %d %s %s\n", p, c.turn, key, op)
	var b [1]byte
	if _, err := io.ReadFull(c.goes, b[:]); err != nil {
		os.Exit(3) // the parent is gone
	}
}

// act is the executor: it runs each release and acks it, undoing and
// acking fail for some keys, and answers each reconcile from the effect
// log.
func (c *crashChild) act(ds []sealgate.Decision) error {
	for _, d := range ds {
		switch d.Kind {
		case sealgate.Release:
			c.phase(inReleased, d.Key, "-")
			if err := c.record("exec", d.Key); err != nil {
				return err
			}
			c.phase(inExecuted, d.Key, "-")
			ok := !failsOnPurpose(d.Key)
			if !ok {
				if err := c.record("undo", d.Key); err != nil {
					return err
				}
				c.phase(inUndone, d.Key, "-")
			}
			if _, err := c.g.Ack(d.Key, ok); err != nil {
				return err
			}
		case sealgate.Reconcile:
			fmt.Fprintf(c.phases, "D reconcile %d %s -\n", c.turn, d.Key)
			// Did the effect happen? The effect log says; ack accordingly.
			standing, err := executed(c.effects.Name(), d.Key)
			if err != nil {
				return err
			}
			if _, err := c.g.Ack(d.Key, standing); err != nil {
				return err
			}
		case sealgate.Compensate:
			return fmt.Errorf("compensate %s/%s: this workload releases only at close", d.Attempt, d.Item)
		}
	}
	return nil
}

// failsOnPurpose picks the keys whose execution is undone and acked fail
// (about one in five).
func failsOnPurpose(key string) bool { return key[0] < '3' }

// record appends an effect to the log and fsyncs it.
func (c *crashChild) record(op, key string) error {
	if _, err := c.effects.WriteString(op + " " + key + "\n"); err != nil {
		return err
	}
	if c.unsyncedEffects {
		return nil
	}
	return c.effects.Sync()
}

// openEffects opens the effect log for appending, first cutting a torn
// last line (an effect that did not finish being recorded did not happen).
// A new log's directory entry is made durable (fsync of the directory)
// before any effect is recorded in it.
func openEffects(path string) (*os.File, error) {
	_, err := os.Stat(path)
	created := os.IsNotExist(err)
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE|os.O_APPEND, 0o600)
	if err != nil {
		return nil, err
	}
	if created {
		if err := f.Sync(); err != nil {
			return nil, err
		}
		d, err := os.Open(filepath.Dir(path))
		if err != nil {
			return nil, err
		}
		err = d.Sync()
		d.Close()
		if err != nil {
			return nil, err
		}
	}
	b, err := io.ReadAll(f)
	if err != nil {
		return nil, err
	}
	if _, tail := lines(b); len(tail) > 0 {
		if err := f.Truncate(int64(len(b) - len(tail))); err != nil {
			return nil, err
		}
	}
	return f, nil
}

// executed says whether the log holds an execution of key not undone since.
func executed(path, key string) (bool, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return false, err
	}
	standing := false
	whole, _ := lines(b)
	for _, line := range whole {
		switch line {
		case "exec " + key:
			standing = true
		case "undo " + key:
			standing = false
		}
	}
	return standing, nil
}
