package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
)

// command is one of sealfuzz's commands, as cmd/go spells its own: the
// overview and each command's -h are made from these fields, and run finds
// the command here by name.
type command struct {
	name  string // "" for the campaign, the command run without a name
	usage string // the command line after "sealfuzz", for the overview and -h
	short string // the overview's help (lines may wrap with \n)
	long  string // -h's text between the usage line and the flags
	// flags defines the command's flags on fs and returns its run, which
	// reads them once parsed; args are what follows the flags.
	flags func(fs *flag.FlagSet) (run func(args []string, stdout, stderr io.Writer) int)
	// main, instead of flags, is the whole of a command that makes its
	// own flag set (with newFlagSet and parseFlags).
	main func(args []string, stdout, stderr io.Writer) int
}

// commands is every command, in the overview's order. It is filled by init:
// a command's run prints the overview, made from this table, so a
// variable initializer would depend on itself.
var commands []*command

func init() {
	commands = []*command{
		campaignCmd, replayCmd, reduceCmd,
		{name: "power", usage: "power [flags]", short: "measure how fast each technique finds each zoo bug;\nwrites docs/research/power/power.md and power.png", main: powerMain},
		sharedCmd,
		{name: "test", usage: "test -gate 'CMD ARGS'", short: "check a gate process that speaks the stdio protocol\n(docs/protocol.md) with every check that applies", main: testMain},
		{name: "peers", usage: "peers [flags]", short: "the official SDKs' tool-call idioms under the suite;\nwrites docs/research/peers/", main: peersMain},
		coverageCmd, reachCmd, exhaustCmd, throughputCmd,
	}
}

// usage is the overview: every command's usage line and short help.
func usage() string {
	var b strings.Builder
	b.WriteString("usage:\n")
	for _, c := range commands {
		for i, l := range strings.Split(c.short, "\n") {
			left := ""
			if i == 0 {
				left = "sealfuzz " + c.usage
			}
			fmt.Fprintf(&b, "  %-31s  %s\n", left, l)
		}
	}
	b.WriteString(`
Each command's -h lists its flags with their defaults. SEALGATE_FAULTS=BUG plants a
zoo bug in the gate for the campaign, replay and reduce.
`)
	return b.String()
}

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

// run dispatches to the command args name: none (or a flag first) is the
// campaign; "help CMD" is CMD -h.
func run(args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 || strings.HasPrefix(args[0], "-") {
		return campaignCmd.run(args, stdout, stderr)
	}
	if args[0] == "help" {
		if len(args) > 1 && args[1] != "help" {
			return run([]string{args[1], "-h"}, stdout, stderr)
		}
		return campaignCmd.run([]string{"-h"}, stdout, stderr)
	}
	for _, c := range commands {
		if c.name == args[0] {
			return c.run(args[1:], stdout, stderr)
		}
	}
	fmt.Fprintf(stderr, "sealfuzz: unknown command %q\n%s", args[0], usage())
	return 2
}

// run parses the command's flags and runs it.
func (c *command) run(args []string, stdout, stderr io.Writer) int {
	if c.main != nil {
		return c.main(args, stdout, stderr)
	}
	name := c.name
	if name == "" {
		name = "sealfuzz"
	}
	long := c.long
	if c.name == "" {
		long += "\n" + usage() // the campaign's -h is also the overview
	}
	fs := newFlagSet(name, "usage: sealfuzz "+c.usage+"\n\n"+long, stderr)
	runFlags := c.flags(fs)
	if done, code := parseFlags(fs, args, stdout, stderr); done {
		return code
	}
	return runFlags(fs.Args(), stdout, stderr)
}

// newFlagSet makes a command's flag set. Its help (-h) goes to stdout and
// exits 0; a flag error prints the same help to stderr.
func newFlagSet(name, synopsis string, stderr io.Writer) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {}
	helpText[fs] = synopsis
	return fs
}

// helpText holds each flag set's synopsis, for printHelp.
var helpText = map[*flag.FlagSet]string{}

// parseFlags parses args; done is true when the command should stop now,
// with code (0 after -h, 2 after a bad flag).
func parseFlags(fs *flag.FlagSet, args []string, stdout, stderr io.Writer) (done bool, code int) {
	err := fs.Parse(args)
	switch {
	case err == nil:
		return false, 0
	case errors.Is(err, flag.ErrHelp):
		printHelp(stdout, fs)
		return true, 0
	default:
		printHelp(stderr, fs)
		return true, 2
	}
}

// printHelp writes a command's synopsis and every one of its flags with its
// default, zero defaults included (flag.PrintDefaults leaves those out).
func printHelp(w io.Writer, fs *flag.FlagSet) {
	fmt.Fprint(w, helpText[fs])
	fmt.Fprintln(w, "\nflags:")
	fs.VisitAll(func(f *flag.Flag) {
		typ, text := flag.UnquoteUsage(f)
		def := f.DefValue
		if typ == "string" {
			def = strconv.Quote(def)
		}
		if typ == "" {
			typ = "(bool)"
		}
		text = strings.ReplaceAll(text, "\n", "\n    \t")
		if !strings.Contains(text, "(default") { // else the text says what the zero value means
			text += " (default " + def + ")"
		}
		fmt.Fprintf(w, "  -%s %s\n    \t%s\n", f.Name, typ, text)
	})
}

// wrapList joins items with ", " into lines of at most width characters,
// each starting with indent.
func wrapList(items []string, indent string, width int) string {
	var b strings.Builder
	line := indent
	for i, it := range items {
		if i < len(items)-1 {
			it += ","
		}
		if line != indent && len(line)+1+len(it) > width {
			b.WriteString(line + "\n")
			line = indent
		}
		if line != indent {
			line += " "
		}
		line += it
	}
	b.WriteString(line)
	return b.String()
}
