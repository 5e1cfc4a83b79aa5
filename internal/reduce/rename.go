package reduce

import (
	"bytes"
	"regexp"
	"strconv"
	"strings"

	"github.com/sealgate/sealgate"
)

// canonical is the i-th short name of a sequence starting at letter first
// and running through the alphabet (then with a number after it), so that
// names read as a, b, c or f, g, h.
func canonical(first byte, i int) string {
	c := int(first-'a') + i
	if c < 26 {
		return string(rune('a' + c))
	}
	return string(rune(first)) + strconv.Itoa(c-26)
}

// namespace is one kind of identifier a scenario uses, read from and
// written to the events (and the configuration, for tools).
type namespace struct {
	name  func(i int) string
	get   func(e *sealgate.Event) []*string
	tools bool // the configuration's tool names are in this namespace too
}

var namespaces = []namespace{
	{name: func(i int) string { return canonical('a', i) }, get: func(e *sealgate.Event) []*string {
		if e.Kind == sealgate.Ack || e.Kind == sealgate.Restart {
			return nil
		}
		return []*string{&e.Attempt}
	}},
	{name: func(i int) string { return canonical('t', i) }, get: func(e *sealgate.Event) []*string {
		if e.Kind == sealgate.Open {
			return []*string{&e.Turn}
		}
		return nil
	}},
	{name: strconv.Itoa, get: func(e *sealgate.Event) []*string {
		if e.Kind.NamesItem() {
			return []*string{&e.Item}
		}
		return nil
	}},
	{name: func(i int) string { return canonical('c', i) }, get: func(e *sealgate.Event) []*string {
		if e.Kind == sealgate.Begin {
			return []*string{&e.Call}
		}
		return nil
	}},
	{name: func(i int) string { return canonical('f', i) }, tools: true, get: func(e *sealgate.Event) []*string {
		if e.Kind == sealgate.Begin {
			return []*string{&e.Tool}
		}
		return nil
	}},
}

// renamed gives every identifier of ns its canonical name, in the order
// of first use (configuration first for tools).
func (ns namespace) renamed(cfg sealgate.Config, events []sealgate.Event) (sealgate.Config, []sealgate.Event) {
	names := map[string]string{}
	use := func(s *string) {
		n, ok := names[*s]
		if !ok {
			n = ns.name(len(names))
			names[*s] = n
		}
		*s = n
	}
	cfg = cloneConfig(cfg)
	if ns.tools {
		for i := range cfg.Tools {
			use(&cfg.Tools[i].Name)
		}
	}
	events = append([]sealgate.Event{}, events...)
	for i := range events {
		for _, s := range ns.get(&events[i]) {
			use(s)
		}
	}
	return cfg, events
}

// rename gives attempts, turns, items, call ids and tools the shortest
// canonical names, every namespace at once, else one by one (a name the
// failure needs, a call id a business key is made of say, stays), then
// the arguments' member names one by one. Acks follow their calls' keys,
// which hold the turn and the tool.
func (r *reducer) rename() bool {
	cand := func(nss []namespace) bool {
		cfg, evs := r.cfg, r.events
		for _, ns := range nss {
			cfg, evs = ns.renamed(cfg, evs)
		}
		if sameNames(cfg, evs, r.cfg, r.events) {
			return false
		}
		return r.try(cfg, r.rekey(cfg, evs))
	}
	if cand(namespaces) {
		return true
	}
	changed := false
	for _, ns := range namespaces {
		changed = cand([]namespace{ns}) || changed
	}
	return r.renameMembers() || changed
}

func sameNames(c1 sealgate.Config, e1 []sealgate.Event, c2 sealgate.Config, e2 []sealgate.Event) bool {
	for i := range c1.Tools {
		if c1.Tools[i].Name != c2.Tools[i].Name {
			return false
		}
	}
	for i := range e1 {
		a, b := e1[i], e2[i]
		if a.Attempt != b.Attempt || a.Turn != b.Turn || a.Item != b.Item || a.Call != b.Call || a.Tool != b.Tool {
			return false
		}
	}
	return true
}

// mergeAttempts runs a later attempt's calls inside an earlier one: the
// later attempt's open goes, its events take the earlier attempt's id and
// items of their own, and (in a second try) the earlier attempt's closes
// go too, so that the merged attempt ends where the later one did. Two
// attempts are often only the way a generator or a capture reached a
// second call; one attempt is shorter by its open.
func (r *reducer) mergeAttempts() bool {
	if len(r.events) > maxRewrite {
		return false
	}
	changed := false
	for again := true; again; {
		again = false
		opens := []int{}
		for i, e := range r.events {
			if e.Kind == sealgate.Open {
				opens = append(opens, i)
			}
		}
	pairs:
		for x, i := range opens {
			for _, j := range opens[x+1:] {
				a, b := r.events[i].Attempt, r.events[j].Attempt
				if a == b {
					continue
				}
				for _, dropClose := range []bool{false, true} {
					if r.try(r.cfg, r.rekey(r.cfg, merged(r.events, a, b, j, dropClose))) {
						changed, again = true, true
						break pairs
					}
				}
			}
		}
	}
	return changed
}

// merged is events with attempt b (opened at index open) folded into a.
func merged(events []sealgate.Event, a, b string, open int, dropClose bool) []sealgate.Event {
	used := map[string]bool{}
	for _, e := range events {
		if e.Attempt == a && e.Kind.NamesItem() {
			used[e.Item] = true
		}
	}
	items := map[string]string{}
	var out []sealgate.Event
	for i, e := range events {
		switch {
		case i == open:
			continue
		case dropClose && e.Attempt == a && e.Kind == sealgate.Close:
			continue
		case e.Attempt == b && e.Kind != sealgate.Ack && e.Kind != sealgate.Restart:
			e.Attempt = a
			if e.Kind.NamesItem() {
				n, ok := items[e.Item]
				if !ok {
					n = e.Item
					for k := len(used); used[n]; k++ {
						n = strconv.Itoa(k)
					}
					used[n] = true
					items[e.Item] = n
				}
				e.Item = n
			}
		}
		out = append(out, e)
	}
	return out
}

// memberNames lists, once each, the member names the configuration names
// (secrets, allow fields, idem fields) and those written plainly (no
// escape) in the stream's fragments: the names a renaming can find again
// everywhere they occur.
func memberNames(cfg sealgate.Config, events []sealgate.Event) []string {
	var names []string
	seen := map[string]bool{}
	add := func(n string) {
		if !seen[n] {
			seen[n] = true
			names = append(names, n)
		}
	}
	for _, t := range cfg.Tools {
		for _, s := range t.Secrets {
			for _, step := range strings.Split(strings.TrimPrefix(s, "/"), "/") {
				if !strings.ContainsAny(step, `~"\`) {
					add(step)
				}
			}
		}
		if t.Allow != nil {
			add(t.Allow.Field)
		}
		for _, f := range t.Idem.Fields {
			add(f)
		}
	}
	for _, e := range events {
		for _, b := range [][]byte{e.Bytes, e.Final} {
			for _, m := range memberName.FindAllSubmatch(b, -1) {
				add(string(m[1]))
			}
		}
	}
	return names
}

var memberName = regexp.MustCompile(`"([^"\\]*)"[ \t\r\n]*:`)

// renameMember replaces the member name from by to through the whole
// scenario: every "from" string token of the fragments and finals, and
// the configuration's secret names and pointer steps, allow field, idem
// fields and schema strings. A string value that happens to equal the
// name is renamed too; the checker judges the candidate.
func renameMember(cfg sealgate.Config, events []sealgate.Event, from, to string) (sealgate.Config, []sealgate.Event) {
	qf, qt := []byte(`"`+from+`"`), []byte(`"`+to+`"`)
	events = append([]sealgate.Event{}, events...)
	for i := range events {
		e := &events[i]
		if e.Bytes != nil {
			e.Bytes = bytes.ReplaceAll(e.Bytes, qf, qt)
		}
		if e.HasFinal {
			e.Final = bytes.ReplaceAll(e.Final, qf, qt)
		}
	}
	cfg = cloneConfig(cfg)
	for i := range cfg.Tools {
		t := &cfg.Tools[i]
		for j, s := range t.Secrets {
			if !strings.HasPrefix(s, "/") {
				if s == from {
					t.Secrets[j] = to
				}
				continue
			}
			steps := strings.Split(s, "/")
			for k, step := range steps {
				if step == from {
					steps[k] = to
				}
			}
			t.Secrets[j] = strings.Join(steps, "/")
		}
		if t.Allow != nil && t.Allow.Field == from {
			t.Allow.Field = to
		}
		for j, f := range t.Idem.Fields {
			if f == from {
				t.Idem.Fields[j] = to
			}
		}
		t.Schema = strings.ReplaceAll(t.Schema, string(qf), string(qt))
	}
	return cfg, events
}

// renameMembers gives the member names of the arguments the shortest
// names not already used (a, b, ...), one name at a time, consistently
// through fragments and configuration.
func (r *reducer) renameMembers() bool {
	changed := false
	for _, from := range memberNames(r.cfg, r.events) {
		if len(from) <= 1 {
			continue
		}
		used := map[string]bool{}
		for _, n := range memberNames(r.cfg, r.events) {
			used[n] = true
		}
		to := ""
		for i := 0; ; i++ {
			if to = canonical('a', i); !used[to] {
				break
			}
		}
		cfg, evs := renameMember(r.cfg, r.events, from, to)
		if r.try(cfg, r.rekey(cfg, evs)) {
			changed = true
		}
	}
	return changed
}
