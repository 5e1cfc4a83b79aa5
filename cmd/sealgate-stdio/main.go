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
	"runtime/pprof"

	"github.com/sealgate/sealgate/stdiogate"
)

func main() {
	fsync := flag.Bool("fsync", false, "fsync the ledger journal at every change (survives power loss, not only a crash)")
	kill := flag.Bool("kill-restarts", false, "ask the client to kill and restart this process at each restart, as a crash would")
	cpuProfile := flag.String("cpuprofile", "", "write this process's CPU profile to this file when its input ends (go tool pprof reads it; one process per file: sealfuzz test -workers 1)")
	flag.Usage = func() {
		fmt.Fprintf(os.Stderr, "usage: sealgate-stdio [-fsync] [-kill-restarts] [-cpuprofile FILE]\n\nReads the stdio gate protocol on stdin and answers on stdout (docs/protocol.md).\n\n")
		flag.PrintDefaults()
	}
	flag.Parse()
	if flag.NArg() > 0 {
		flag.Usage()
		os.Exit(2)
	}
	if *cpuProfile != "" {
		f, err := os.Create(*cpuProfile)
		if err == nil {
			err = pprof.StartCPUProfile(f)
		}
		if err != nil {
			fmt.Fprintln(os.Stderr, "sealgate-stdio: -cpuprofile:", err)
			os.Exit(1)
		}
		code := serve(*fsync, *kill)
		pprof.StopCPUProfile()
		f.Close()
		os.Exit(code)
	}
	os.Exit(serve(*fsync, *kill))
}

// serve runs the control gate on stdin and stdout and returns the exit
// code, so that main can write the profile before it exits.
func serve(fsync, kill bool) int {
	b := stdiogate.Control(fsync)
	if kill {
		b = stdiogate.KillRestarts(b)
	}
	if err := stdiogate.Serve(os.Stdin, os.Stdout, "sealgate", b); err != nil {
		fmt.Fprintln(os.Stderr, "sealgate-stdio:", err)
		return 1
	}
	return 0
}
