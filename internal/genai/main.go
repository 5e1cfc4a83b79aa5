// Command genai is the peer process of Google's Go GenAI SDK
// (google.golang.org/genai): its streaming idioms, served to `sealfuzz
// peers` over JSON lines on stdin and stdout. It is a module of its own so
// that the SDK's dependencies stay out of the core go.mod.
package main

import (
	"os"

	"github.com/sealgate/sealgate/internal/peers"
)

func main() { os.Exit(peers.ServeProcess(os.Stdin, os.Stdout, Peers())) }
