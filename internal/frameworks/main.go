// Command frameworks is the peer process of the Go agent frameworks: eino's
// ReAct and ADK agents and langchaingo's functions agent and Anthropic
// client, each driven through its own streaming tool loop over the
// harness's loopback server, so that `sealfuzz peers` judges what the
// framework executes by the same checks as the SDK idioms. It is a module
// of its own so that the core module requires no framework.
package main

import (
	"os"

	"github.com/sealgate/sealgate/internal/peers"
)

// all lists the framework idioms this process serves, then the same idioms
// behind the project's integrations (controls: they must show no
// violation).
func all() []*peers.Peer {
	return []*peers.Peer{einoReactRaw, einoReactInfer, einoADK, lcOpenAIFunctions, lcAnthropic,
		einoReactGated, lcFunctionsGatedPeer, lcAnthropicGatedPeer}
}

func main() { os.Exit(peers.ServeProcess(os.Stdin, os.Stdout, all())) }
