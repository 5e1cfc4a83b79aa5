package peers

// What each SDK's own documentation says about the idiom, quoted from the
// module's doc comments and README at the versions in go.mod, so that the
// report states a fact about an idiom next to what its authors promise.
func init() {
	chatJustFinished.Docs = "openai-go, `ChatCompletionAccumulator.JustFinishedToolCall`: \"A tool call is \\\"just completed\\\" when the last added chunk no longer contains a tool call delta or contains a delta for a different tool call. [...] You cannot rely on this with a stream that has ParallelToolCalls enabled.\""
	chatCareful.Docs = "openai-go, `ssestream.Stream.Next`: \"Next returns false if the stream has ended or an error occurred. [...] Call Stream.Err() to get the error.\" A body that stops after its finish chunk, without `[DONE]`, ends the loop with `Err() == nil` as `[DONE]` does."
	responsesArgsDone.Docs = "openai-go has no SSE accumulator for Responses (`responses.ResponseAccumulator` serves the WebSocket transport); its README says of the snapshots: \"Function arguments and custom-tool input in snapshot.Output are data; the application decides whether and when to act on them.\""
	responsesCompleted.Docs = responsesArgsDone.Docs
	anthropicBlockStop.Docs = "anthropic-sdk-go, `Message.Accumulate` (example in its doc comment: `message.Accumulate(event)` for every event); at `content_block_stop` it refreshes the block, and \"A cut-off tool call left non-JSON input; empty it so the block marshals\" (the input becomes `{}`)."
	anthropicCareful.Docs = anthropicBlockStop.Docs
	anthropicToolRunner.Docs = "anthropic-sdk-go, `BetaMessageService.NewToolRunnerStreaming`: \"creates a BetaToolRunnerStreaming that automatically handles the loop between the model generating tool calls, executing those tool calls, and sending the results back to the model\"; it runs tools only for `stop_reason` `tool_use` (\"A cut-off turn left its last call's arguments incomplete\" stops on `max_tokens`), and marshals each block's `Input` (an `any`) before `Execute`."
	for _, c := range controls {
		c.Docs = "SPEC.md: a call is released only after its end and its attempt's close complete, with its own bytes, strictly valid, compacted."
	}
}
