package main

import (
	"flag"
	"os"
	"testing"
	"time"

	"github.com/sealgate/sealgate/internal/peers"
	"github.com/sealgate/sealgate/internal/trial"
	"github.com/sealgate/sealgate/wire"
)

var (
	measureFor    = flag.Duration("measure.for", 0, "TestMeasure: run the peers campaign over the framework idioms for this generated-stream budget (0: skip)")
	measureOut    = flag.String("measure.out", "", "TestMeasure: folder for the report (README.md, peers.png)")
	measureBodies = flag.String("measure.bodies", "", "TestMeasure: folder for the reduced bodies (.sse, .scn)")
)

// withControls is ps and the project's gate for each of their protocols.
func withControls(ps []*peers.Peer) []*peers.Peer {
	for _, c := range peers.Controls() {
		if c.Protocol == wire.OpenAIChat || c.Protocol == wire.Anthropic {
			ps = append(ps, c)
		}
	}
	return ps
}

// TestMeasure is `sealfuzz peers` over the idioms the peer process serves
// (and the core controls of their protocols): the corpus,
// machine streams, then generated streams for -measure.for; it prints each
// finding with its count and time to first finding, and reduces each.
//
//	go test -run TestMeasure -v -measure.for 60s -measure.out /tmp/fw -measure.bodies /tmp/fw/bodies
func TestMeasure(t *testing.T) {
	if *measureFor == 0 {
		t.Skip("a measured run: give -measure.for")
	}
	start := time.Now()
	code := peers.Campaign{Peers: withControls(all()), Corpus: trial.Embedded, Seed: 1, Machine: 200, Budget: *measureFor,
		Tries: 2000, Report: *measureOut, Bodies: *measureBodies}.Run(os.Stdout, os.Stderr)
	t.Logf("campaign took %s, exit %d", time.Since(start).Round(time.Millisecond), code)
	if code != 0 {
		t.Errorf("campaign exit %d", code)
	}
}

var measureRate = flag.Int("measure.rate", 0, "TestRate: time each idiom over this many corpus bodies (0: skip)")

// TestRate prints each idiom's runs per second over the first corpus
// bodies its protocol carries, with no fault.
//
//	go test -run TestRate -v -measure.rate 150
func TestRate(t *testing.T) {
	if *measureRate == 0 {
		t.Skip("a measured run: give -measure.rate")
	}
	corpus, err := trial.LoadCorpus(trial.Embedded)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range all() {
		var bodies []peers.Body
		for _, s := range corpus {
			if b, ok := peers.Build(p.Protocol, s.Events, peers.Fault{}); ok && len(bodies) < *measureRate {
				bodies = append(bodies, b)
			}
		}
		start := time.Now()
		for _, b := range bodies {
			if _, err := runner.Run(p, b); err != nil {
				t.Fatal(err)
			}
		}
		took := time.Since(start)
		t.Logf("%-40s %4d runs %8s %6.0f runs/s", p.Name, len(bodies), took.Round(time.Millisecond), float64(len(bodies))/took.Seconds())
	}
}
