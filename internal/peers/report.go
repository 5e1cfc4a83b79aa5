package peers

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"sort"
	"strings"
	"time"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/sealgate/sealgate/internal/reduce"
	"github.com/sealgate/sealgate/scn"
)

// report writes what a campaign found: per violation, a minimal body and
// its scenario (the replay inputs), and the table and the chart.
type report struct {
	h       *Hunt
	seed    uint64
	budget  time.Duration
	machine int
	elapsed time.Duration
}

func slug(f *Finding) string {
	return strings.ReplaceAll(f.Peer.Name, "/", "-") + "-" + f.ID
}

// write writes the replay inputs into bodies and the report (README.md,
// peers.png) into dir, each unless its folder is "".
func (r *report) write(dir, bodies string) error {
	link, err := prepare(dir, bodies)
	if err != nil {
		return err
	}
	var rows strings.Builder
	for _, f := range r.h.Sorted() {
		body, err := writeBody(f, bodies, link)
		if err != nil {
			return err
		}
		first := []string{}
		for _, src := range []string{"generated", "machine", "corpus"} {
			if d, ok := f.First[src]; ok {
				first = append(first, fmt.Sprintf("%s %s", src, d.Round(time.Millisecond)))
			}
		}
		fmt.Fprintf(&rows, "| `%s` %s | %s | %s | %d | %s | %s |\n", f.Peer.Name, f.Peer.Version(), f.Peer.Idiom, f.ID,
			f.Count, strings.Join(first, ", "), body)
	}
	if dir == "" {
		return nil
	}
	v, c, p, control := r.h.Violations()
	var b strings.Builder
	fmt.Fprintf(&b, `# SDKs and agent frameworks as gates under test

Written by `+"`sealfuzz peers -for %s -seed %d -machine %d`"+` (%s, %s/%s, %s in all). Each idiom
runs in the SDK's or framework's real client (its base URL and HTTP client or fetch pointed at
the harness, a fake key, no retries), in this process or in a peer process (Go frameworks, genai,
Node), against a loopback server that sends the body one SSE event at a time, only when
the SDK reads for more, so every release is tied to the event that caused it. What a body
means is decided by `+"`wire`"+`, never by the SDK; each peer is judged under the
configuration `+"`sealfuzz replay -wire`"+` uses (every tool `+"`{\"type\":\"object\"}`"+`, the default
after-turn policy). A violation here is a fact about an idiom at one SDK version, not a
judgement of the SDK: the SDKs promise what their documentation says (below), not the SPEC.

Inputs: %d corpus runs (each scenario with no fault, then with one fault), %d rapid-machine streams,
%d generated streams (gofuzz decoding and machine bitstreams), each normalized into what
each protocol can carry (carried: %s). %d peer runs.

%s
| peer, version | idiom | invariant | count | first found (time from the source's start) | minimal body |
|---|---|---|---|---|---|
%s
`+"`peers: %d violations in %d idioms of %d peers; control: %d`"+`

![time to first violation](peers.png)

Replay any body with `+"`go run ./cmd/sealfuzz peers -replay %sNAME.sse`"+` (exit 0 when the
stored violation reproduces). Counts are runs that broke the invariant; a run is counted
once, for the first invariant it breaks, in catalog order (I1, I2, ..., I11, then SEAL).

## What each SDK's documentation says

`, r.budget, r.seed, r.machine, time.Now().UTC().Format("2006-01-02"), runtime.GOOS, runtime.GOARCH,
		r.elapsed.Round(time.Second), r.h.Inputs["corpus"], r.h.Inputs["machine"], r.h.Inputs["generated"],
		carried(r.h), r.h.Runs, matrix(r.h), rows.String(), v, c, p, control, replayDir(bodies))
	for _, p := range r.h.Peers {
		fmt.Fprintf(&b, "- `%s` (%s %s): %s\n", p.Name, p.Module, p.Version(), p.Docs)
	}
	b.WriteString(peersMethod)
	if err := os.WriteFile(filepath.Join(dir, "README.md"), []byte(b.String()), 0o644); err != nil {
		return err
	}
	return r.chart(filepath.Join(dir, "peers.png"))
}

// matrix is the idiom × check table: for each peer that broke something,
// the runs that broke each check, so that versions and idioms compare at a
// glance; the rows after it give each finding's body.
func matrix(h *Hunt) string {
	var ids []string
	count := map[*Peer]map[string]int{}
	for _, f := range h.Sorted() {
		if !slices.Contains(ids, f.ID) {
			ids = append(ids, f.ID)
		}
		if count[f.Peer] == nil {
			count[f.Peer] = map[string]int{}
		}
		count[f.Peer][f.ID] += f.Count
	}
	if len(ids) == 0 {
		return "No idiom broke a check.\n"
	}
	sort.Strings(ids)
	var b strings.Builder
	b.WriteString("| idiom | " + strings.Join(ids, " | ") + " |\n|---|" + strings.Repeat("---|", len(ids)) + "\n")
	for _, p := range h.Peers {
		if count[p] == nil {
			continue
		}
		b.WriteString("| `" + p.Name + "` |")
		for _, id := range ids {
			if n := count[p][id]; n > 0 {
				fmt.Fprintf(&b, " %d |", n)
			} else {
				b.WriteString(" · |")
			}
		}
		b.WriteString("\n")
	}
	return b.String()
}

func carried(h *Hunt) string {
	var parts []string
	for p, n := range h.Carried {
		parts = append(parts, fmt.Sprintf("%s %d", p, n))
	}
	sort.Strings(parts)
	return strings.Join(parts, ", ")
}

// chart draws, per distinct SDK violation, the time from the start of the
// generated streams to its first hit there (log scale); a violation that
// only the corpus or the machine showed has no mark.
func (r *report) chart(path string) error {
	pl := plot.New()
	pl.Title.Text = "sealfuzz peers: time to the first violation from generated streams"
	pl.Y.Label.Text = "milliseconds (log scale)"
	pl.Y.Scale = plot.LogScale{}
	pl.Y.Tick.Marker = plot.LogTicks{Prec: -1}
	var names []string
	var pts plotter.XYs
	for _, f := range r.h.Sorted() {
		if f.Peer.Control {
			continue
		}
		if d, ok := f.First["generated"]; ok {
			pts = append(pts, plotter.XY{X: float64(len(names)), Y: ms(d)})
		}
		names = append(names, f.Peer.Name+" "+f.ID)
	}
	if len(pts) > 0 {
		s, err := plotter.NewScatter(pts)
		if err != nil {
			return err
		}
		s.GlyphStyle = draw.GlyphStyle{Color: plotutil.Color(0), Radius: vg.Points(4), Shape: draw.CircleGlyph{}}
		pl.Add(s)
	} else {
		pl.Y.Scale, pl.Y.Tick.Marker = plot.LinearScale{}, plot.DefaultTicks{}
	}
	pl.Add(plotter.NewGrid())
	if len(names) > 0 {
		pl.NominalX(names...)
	}
	pl.X.Tick.Label.Rotation = math.Pi / 4
	pl.X.Tick.Label.XAlign = draw.XRight
	return pl.Save(11*vg.Inch, 7*vg.Inch, path)
}

// prepare makes the report's and the bodies' folders, removes the bodies
// of an earlier run, and returns the path from the report to the bodies
// ("" when either is not written).
func prepare(dir, bodies string) (link string, err error) {
	for _, d := range []string{dir, bodies} {
		if d == "" {
			continue
		}
		if err := os.MkdirAll(d, 0o755); err != nil {
			return "", err
		}
	}
	if bodies == "" {
		return "", nil
	}
	old, _ := filepath.Glob(filepath.Join(bodies, "*.s[sc][en]"))
	for _, f := range old {
		if strings.HasSuffix(f, ".sse") || strings.HasSuffix(f, ".scn") {
			os.Remove(f)
		}
	}
	if dir == "" {
		return "", nil
	}
	rel, err := filepath.Rel(dir, bodies)
	if err != nil {
		return "", err
	}
	return filepath.ToSlash(rel) + "/", nil
}

// writeBody writes a finding's minimal body (.sse, with a header that
// says how to replay it) and its scenario (.scn, the model's decisions and
// what the peer released) into bodies, and returns the table's cell for
// them, linked from the report by link.
func writeBody(f *Finding, bodies, link string) (string, error) {
	red := f.Reduce
	switch {
	case red == nil || red.Err == nil:
		return "(not reduced)", nil
	case bodies == "":
		return fmt.Sprintf("(%d SSE events, not written)", len(red.Body.Events)), nil
	}
	name := slug(f)
	sse := filepath.Join(bodies, name+".sse")
	hdr := Header{Peer: f.Peer.Name, Violation: Class(red.Err), Notes: []string{
		fmt.Sprintf("sealfuzz peers: %s (%s %s) breaks %s", f.Peer.Name, f.Peer.Module, f.Peer.Version(), Class(red.Err)),
		"replay: go run ./cmd/sealfuzz peers -replay " + filepath.ToSlash(sse),
		"found from: " + f.Input.Source + " " + f.Input.Name + ", fault " + f.Input.Fault.String(),
	}}
	if err := os.WriteFile(sse, Stored(hdr, red.Body), 0o644); err != nil {
		return "", err
	}
	s, err := reduce.Scenario(Config(red.Outcome.Meaning.Events), red.Outcome.Meaning.Events, red.Err)
	if err != nil {
		return "", err
	}
	var note strings.Builder
	fmt.Fprintf(&note, "# %s.sse decoded by wire (the events), then what the reference model decides;\n# the peer %s released instead:\n", name, f.Peer.Name)
	for _, line := range strings.Split(strings.TrimSpace(string(scn.FormatDecisions(red.Outcome.Releases))), "\n") {
		if line != "" {
			note.WriteString("#   " + line + "\n")
		}
	}
	if err := os.WriteFile(filepath.Join(bodies, name+".scn"), append([]byte(note.String()), s...), 0o644); err != nil {
		return "", err
	}
	return fmt.Sprintf("[%s.sse](%s%s.sse) (%d SSE events), [.scn](%s%s.scn)", name, link, name, len(red.Body.Events), link, name), nil
}

// replayDir is where the report says the bodies are, as a path prefix.
func replayDir(bodies string) string {
	if bodies == "" {
		return "DIR/"
	}
	return filepath.ToSlash(bodies) + "/"
}

// ms is a duration in milliseconds, at least 0.01 for the log scale.
func ms(d time.Duration) float64 { return math.Max(d.Seconds()*1000, 0.01) }

// peersMethod is the report's fixed part: how a body is made and judged.
const peersMethod = `
## How a run is made and judged

- **Streams.** Corpus scenarios, rapid-machine streams and generated streams speak the whole
  SPEC; ` + "`peers.Normalize`" + ` rewrites each into what one protocol can carry (no ack, peek or
  restart; attempts one after another; the protocol's item positions; no fragment split
  inside a rune; Chat ends at the finish chunk; Responses ends with their final), and
  ` + "`wire.Encode`" + ` writes the body. A stream a protocol cannot carry is skipped for it.
- **Faults.** A byte-level fault is drawn for half the streams: the terminal event dropped
  (` + "`[DONE]`, `message_stop`, `response.completed`" + `), every ` + "`content_block_stop`" + ` dropped, the body
  cut after an event or half way into one, the connection reset half way into one, or the
  protocol's error event inserted after one.
- **Positions.** ` + "`wire`" + ` decodes the faulted body once, recording after which SSE event each
  normalized event was emitted; a release made once the SDK had been handed k events stands
  at the last event those k produced (after the end of the body when the SDK had seen it).
- **Checks.** The run is replayed to ` + "`check`" + ` as a subject that only releases and takes no
  peek, ack or restart (` + "`check.Capabilities{}`" + `): I1, I2, the release halves of I3 and I4
  (an SDK cannot compensate), I7 within the run (keys computed by the SPEC), the double
  verdicts of I11, and SEAL. I8, I9, I10 and the verdict half of I11 need decisions an SDK
  does not make; I5, I6 and determinism are not run (they need the body re-encoded per
  re-chunking, which the fault layer does not survive).
- **Classes.** I1 and SEAL are split by what happened (` + "`I1-before-end`" + `: released before the
  call ended; ` + "`I1-before-close`" + `: at its end, before its turn completed; ` + "`SEAL-invalid`" + `,
  ` + "`SEAL-not-object`" + `, ` + "`SEAL-orphan`" + `, ...), and each class is reduced on its own by ` + "`reduce`" + `.
- **Control.** The project's gate behind the same adapter (the body decoded live by ` + "`wire`" + `,
  each event fed to ` + "`gate.Gate`" + `) must break nothing and release exactly what
  ` + "`sealfuzz replay -wire`" + ` releases (` + "`TestControlIsReplayWire`" + `).
`
