// Command sealgate-stdio puts the project's own gate behind the stdio
// protocol (docs/protocol.md): the control of `sealfuzz test -gate`, which
// must show no violation, and a reference for gates in other languages.
// Its ledger is a journal file at the path each config line names, so that
// a restart (the client kills this process and starts another) keeps it
// (stdiogate.Control).
package main

import (
	"flag"
	"fmt"
	"os"

	"github.com/sealgate/sealgate/stdiogate"
)

func main() {
	fsync := flag.Bool("fsync", false, "fsync the ledger journal at every change (survives power loss, not only a crash)")
	flag.Usage = func() {
		fmt.Fprintf(os.Stderr, "usage: sealgate-stdio [-fsync]\n\nReads the stdio gate protocol on stdin and answers on stdout (docs/protocol.md).\n\n")
		flag.PrintDefaults()
	}
	flag.Parse()
	if flag.NArg() > 0 {
		flag.Usage()
		os.Exit(2)
	}
	if err := stdiogate.Serve(os.Stdin, os.Stdout, "sealgate", stdiogate.Control(*fsync)); err != nil {
		fmt.Fprintln(os.Stderr, "sealgate-stdio:", err)
		os.Exit(1)
	}
}
