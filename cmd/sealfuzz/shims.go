package main

import (
	"github.com/sealgate/sealgate/internal/campaign"
	"github.com/sealgate/sealgate/internal/replay"
)

// The test, peers and power commands call these by their names from
// before the campaign, the failure loading and the replay moved to their
// packages.
var (
	runFuzzer     = campaign.RunFuzzer
	genericSeed   = campaign.GenericSeed
	fuzzScenario  = campaign.FuzzScenario
	firstLine     = campaign.FirstLine
	scenarioFiles = replay.Files
	indent        = replay.Indent
	progressRE    = campaign.ProgressRE
	failedRE      = campaign.FailedRE
)
