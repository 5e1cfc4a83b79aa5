package machine

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"pgregory.net/rapid"

	"github.com/sealgate/sealgate/internal/gen"
)

// Swarm testing in the machine: each run draws whether its configuration
// is one of the fixed ones or generated (gen.DrawRunConfig), and which
// actions it runs, each with a weight of 0 to 3. A run without "ack" or
// without "restart" spends its steps on what is left, so a rare
// combination of the rest becomes common in some runs.

// swarmActions draws the run's events budget and the weight of each
// action of the table (0: left out; k: k entries in the map, which rapid
// samples uniformly), and says what it drew in m.swarm.
func (m *machine) swarmActions(t *rapid.T) map[string]func(*rapid.T) {
	table := slices.SortedFunc(slices.Values(actions), func(a, b action) int { return strings.Compare(a.name, b.name) })
	out := map[string]func(*rapid.T){}
	var weights []string
	c := gen.SeededChooser(t)
	m.budget = runBudgets[c.Intn(len(runBudgets), "events-budget")]
	for _, a := range table {
		w := m.drawWeight(c, a)
		if w != 1 && a.name != "" {
			weights = append(weights, fmt.Sprintf("%s=%d", a.name, w))
		}
		step := m.bound(a)
		for k := 0; k < w; k++ {
			key := a.name
			if k > 0 {
				key = a.name + " " + strconv.Itoa(k+1)
			}
			out[key] = step
		}
	}
	m.swarm = m.describe(weights)
	return out
}

// drawWeight draws the run's weight of action a by its weighting.
func (m *machine) drawWeight(c gen.Chooser, a action) int {
	switch {
	case a.weight == keptUnderSwarm && m.sw != nil:
		return []int{1, 1, 2, 3}[c.Intn(4, "weight "+a.name)]
	case a.weight != always:
		return []int{0, 1, 1, 2, 3}[c.Intn(5, "weight "+a.name)]
	}
	return 1
}

// bound is action a's step on m, kept within the run's budget when the
// run is fuzzed (the check after each step, "", always runs).
func (m *machine) bound(a action) func(*rapid.T) {
	step := func(t *rapid.T) { a.step(m, t) }
	if a.name != "" && m.mode == fuzzed {
		return m.withinBudget(step)
	}
	return step
}

// describe is the run's swarm for failure messages: its budget, the
// weights other than 1, and the generated configuration's shapes.
func (m *machine) describe(weights []string) string {
	s := "actions " + strings.Join(weights, " ")
	if m.mode == fuzzed && m.budget < 1<<30 {
		s = "events-budget " + strconv.Itoa(m.budget) + "; " + s
	}
	if m.sw != nil {
		s += "; generated configuration; shapes " + m.sw.Shapes.String()
	}
	return s
}

// runBudgets are the lengths a fuzzed run may draw, in events: past its
// budget it stops at the next step (runOver). The swarm's heavy actions
// (whole turns, replays, two-key and budget retries) make runs of rapid's
// steps several times longer than the fixed machine's. Under go
// fuzz, which keeps what adds coverage and mutates it, an exec is one of
// millions and short ones are worth more (libFuzzer prefers short inputs
// too): most fuzzed runs are short, one in six still runs to the end,
// and a mutation can change the budget. Under rapid (Run, Hunt, Observe),
// where a seed has 100 runs, each runs to rapid's end.
var runBudgets = []int{32, 64, 64, 128, 256, 1 << 30}

// runOver is the panic that ends a run whose stream has reached its
// budget; noActionIsInvalid ends the run there, as passed so far.
type runOver struct{}

// withinBudget runs act unless the run's stream has reached its budget.
// The check is before the step, so every event emitted was checked (after
// each step, or at the run's end) before the run stops.
func (m *machine) withinBudget(act func(*rapid.T)) func(*rapid.T) {
	return func(t *rapid.T) {
		if len(m.events) >= m.budget {
			panic(runOver{})
		}
		act(t)
	}
}
