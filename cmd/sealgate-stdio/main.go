// Command sealgate-stdio puts the project's own gate behind the stdio
// protocol (docs/protocol.md): the control of `sealfuzz test -gate`, which
// must show no violation, and a reference for gates in other languages.
// Its ledger is a journal file at the path each config line names, so that
// a restart (the same config line again, or with -kill-restarts a new
// process) keeps it (stdiogate.Control).
package main

import (
	"flag"
	"fmt"
	"os"

	"github.com/sealgate/sealgate/stdiogate"
)

func main() {
	fsync := flag.Bool("fsync", false, "fsync the ledger journal at every change (survives power loss, not only a crash)")
	kill := flag.Bool("kill-restarts", false, "ask the client to kill and restart this process at each restart, as a crash would")
	flag.Usage = func() {
		fmt.Fprintf(os.Stderr, "usage: sealgate-stdio [-fsync] [-kill-restarts]\n\nReads the stdio gate protocol on stdin and answers on stdout (docs/protocol.md).\n\n")
		flag.PrintDefaults()
	}
	flag.Parse()
	if flag.NArg() > 0 {
		flag.Usage()
		os.Exit(2)
	}
	b := stdiogate.Control(*fsync)
	if *kill {
		b = stdiogate.KillRestarts(b)
	}
	if err := stdiogate.Serve(os.Stdin, os.Stdout, "sealgate", b); err != nil {
		fmt.Fprintln(os.Stderr, "sealgate-stdio:", err)
		os.Exit(1)
	}
}
