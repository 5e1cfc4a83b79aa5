package replay

import (
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/sealgate/sealgate"
	"github.com/sealgate/sealgate/check"
	"github.com/sealgate/sealgate/scn"
	"github.com/sealgate/sealgate/wire"
)

// decodeWire decodes one vendor body and prints it as a scenario: the
// configuration, the decoded events, "----", then the decisions; with
// -print, the decisions alone. Gate and model must agree.
func decodeWire(chk *check.Checker, proto, config string, printOnly bool, files []string, stdout, stderr io.Writer) int {
	p, err := wire.ParseProtocol(proto)
	if err != nil {
		fmt.Fprintf(stderr, "sealfuzz replay: %v\n", err)
		return 2
	}
	if len(files) != 1 {
		fmt.Fprintf(stderr, "sealfuzz replay -wire: exactly one body FILE, got %d\n", len(files))
		return 2
	}
	path := files[0]
	f, err := os.Open(path)
	if err != nil {
		fmt.Fprintf(stderr, "sealfuzz replay: %v\n", err)
		return 2
	}
	events, decErr := wire.Decode(p, f, wire.Options{Framing: wire.FramingFor(path)})
	f.Close()
	var setup []scn.Directive
	var cfg sealgate.Config
	var cfgErr error
	if config != "" {
		s, err := scn.ParseFile(config)
		if err != nil {
			fmt.Fprintf(stderr, "INVALID %v\n", err)
			return 2
		}
		setup = s.Setup
		cfg, cfgErr = (&scn.Scenario{Name: config, Setup: s.Setup}).Config()
	} else {
		cfg = wire.ToolsConfig(events)
		setup, err = scn.FromConfig(cfg)
		if err != nil {
			fmt.Fprintf(stderr, "sealfuzz replay: %v\n", err)
			return 1
		}
	}
	var r check.Result
	if cfgErr != nil {
		r.Gate = []sealgate.Decision{{Kind: sealgate.Refused, Text: cfgErr.Error()}}
		r.Model = r.Gate
	} else {
		r = chk.Run(cfg, events)
	}
	var b strings.Builder
	if !printOnly {
		fmt.Fprintf(&b, "# decoded from %s (wire %s)\n", path, p)
		if config == "" {
			b.WriteString("# configuration: every tool named in the stream, schema {\"type\":\"object\"}, no rule\n")
		} else {
			fmt.Fprintf(&b, "# configuration: from %s\n", config)
		}
		if decErr != nil {
			fmt.Fprintf(&b, "# decode error: %s\n", strings.ReplaceAll(decErr.Error(), "\n", " "))
		}
		for _, d := range setup {
			b.WriteString(d.String() + "\n")
		}
		for _, e := range events {
			b.WriteString(e.String() + "\n")
		}
		b.WriteString(scn.Separator + "\n")
	}
	b.Write(scn.FormatDecisions(r.Gate))
	io.WriteString(stdout, b.String())
	code := 0
	if err := r.Agree(); err != nil {
		var m *check.Mismatch
		if errors.As(err, &m) {
			fmt.Fprintf(stderr, "gate and model disagree:\n%s", check.Diff(m.AName, m.A, m.BName, m.B))
		} else {
			fmt.Fprintf(stderr, "%v\n", err)
		}
		code = 1
	}
	if decErr != nil {
		fmt.Fprintf(stderr, "%s: %v\n", path, decErr)
		code = 1
	}
	return code
}
