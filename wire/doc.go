// Package wire turns vendor response bodies into the normalized events of
// SPEC section 2, and events back into vendor bodies. It is where "this call
// ended" and "this turn completed" are decided, so every rule is written
// here, and each is strict: an event the decoder cannot read exactly is an
// error naming its line and byte, never a guess.
//
// # Common rules
//
//	body stops without the protocol's terminal event   close disconnected, always (no error)
//	last event cut inside its JSON (no blank line)     part of that disconnection
//	last event complete but without its blank line     delivered
//	line or event past its limit, bad SSE line,        error; the open attempt gets close failed
//	bad JSON, duplicate member, lone surrogate,
//	a shape the protocol does not allow
//	second start inside an open attempt (a spliced     open with the SAME attempt id: the gate
//	body)                                              reports reopen and poisons the attempt;
//	                                                   the rest up to the terminal event is ignored,
//	                                                   then its close (failed) is emitted
//	attempt id                                         the response / message / chunk id, else a<N>
//	turn                                               Options.Turn (default t1) for every attempt
//	ids, tool names                                    must be bare tokens (no blank, quote,
//	                                                   control, not "-"): an error otherwise
//
// SSE: LF, CRLF or CR line ends; ":" comment lines skipped; data lines joined
// with LF; one space after the colon removed; event, id, retry fields; any
// other field name is an error. JSONL (stored fixtures): one data payload a
// line. JSONArray (Gemini's streamGenerateContent without alt=sse, as Vertex
// AI serves it): one JSON array whose elements are the chunks, read one by
// one as they arrive; the array's closing ] is the body's terminal event,
// so a body without it ends close disconnected. Events of other kinds than
// those below are ignored.
//
// # OpenAI Responses (item = output_index)
//
//	response.created                         open (attempt = response.id)
//	output_item.added, function_call         begin (call = call_id, tool = name);
//	                                         non-empty item.arguments: one delta
//	output_item.added, any other type        nothing: hosted tools, custom_tool_call,
//	                                         message, reasoning never become a begin
//	function_call_arguments.delta            delta for the item its item_id names (checked
//	                                         against output_index); unknown item: delta
//	                                         anyway (the gate reports unknown-call)
//	function_call_arguments.done             end final=arguments
//	output_item.done, function_call          completed: checked equal to the done's
//	                                         arguments (error otherwise), never a second
//	                                         end; the end itself when no done came;
//	                                         incomplete: close truncated at once
//	response.completed                       close complete (the only one)
//	response.incomplete                      close truncated
//	response.failed, error (nested or not)   close failed
//	sequence_number (when present)           must grow by one: a gap is an error
//
// # OpenAI Chat Completions (item = "choice:index")
//
//	first chunk                              open (attempt = chunk id); a different id
//	                                         while open is a splice
//	tool_calls[j], first for (choice, index) begin: id and name of this fragment only
//	later fragment                           delta for its arguments ("" included); a
//	                                         different id or name: begin again (the gate
//	                                         reports duplicate-begin)
//	index missing or negative                error, never slot 0
//	type other than function                 never a begin; its fragments skipped
//	finish_reason tool_calls or stop         end for each open call of that choice, in
//	                                         begin order
//	finish_reason length, content_filter     recorded; no end
//	[DONE]                                   close: complete if every choice finished with
//	                                         tool_calls/stop, truncated if one hit
//	                                         length/content_filter, else disconnected
//	error object, or event: error            close failed, even after finish_reason
//	delta.function_call, finish function_call error: unsupported (legacy)
//
// # Anthropic Messages (item = "msgid:index")
//
//	message_start                            open (attempt = message.id); tool_use
//	                                         blocks already in message.content: begin,
//	                                         one delta (its input as received), end
//	content_block_start tool_use             begin; input other than {}: one delta
//	content_block_start other types          nothing (server_tool_use, mcp_tool_use,
//	                                         results, text, thinking)
//	input_json_delta on a tool_use           delta (first "" kept); on other blocks skipped
//	content_block_stop of a tool_use         end; if no non-empty partial_json came, the
//	                                         start input {} is its bytes (delta first)
//	message_delta                            stop_reason recorded
//	message_stop                             close by stop_reason: tool_use complete;
//	                                         end_turn, stop_sequence complete only with no
//	                                         client tool_use in the message, else failed;
//	                                         max_tokens, model_context_window_exceeded,
//	                                         pause_turn truncated; refusal, none, unknown
//	                                         failed
//	error                                    close failed
//	ping, unknown types                      ignored
//
// Fine-grained tool streaming decodes the same way: partial_json is passed
// on as received, valid JSON or not.
//
// # Gemini (item = "candidate:N", N counting that candidate's calls)
//
//	first chunk                              open (attempt = responseId)
//	functionCall{name, args, id?}            begin (call = id, else "pos:C:N"), one delta
//	                                         (args JSON as received; no args: {}), end
//	finishReason on every candidate seen     close: all STOP complete; MAX_TOKENS
//	                                         truncated; MALFORMED_FUNCTION_CALL, SAFETY and
//	                                         every other reason failed
//	promptFeedback.blockReason, error object close failed
//
// # Vertex streamed arguments (streamFunctionCallArguments)
//
// Gemini 3 on Vertex AI may send a call as pieces: values at JSONPaths.
// The decoder builds the call's argument text from them, one way only
// (docs/wire-vertex.md has the whole rule and the captures worked through):
//
//	functionCall{name, willContinue|partialArgs} begin (call = id, else "pos:C:N"); its pieces
//	partialArgs[k]                           one delta each, the bytes it appends
//	functionCall{} (terminal)                delta of the closers, then end
//	chunk without willContinue, then the     the same end, at the finishReason
//	candidate's finishReason
//	chunk with willContinue, then finish     no end: the call is cut
//
// The text is compact JSON, members in arrival order, appended only. The
// first piece writes the root's {; a piece closes the containers its path
// leaves, writes a comma if its container already has a member, then the
// names and openers of the containers its path enters, then its value. A
// stringValue with willContinue leaves its string open: the next pieces of
// the same path append to it, the one without willContinue closes it. A
// number is written as received, true, false and null as themselves. A
// call that sent no piece is {}. For example the pieces
//
//	$.ops[0].k "a" (willContinue)   {"ops":[{"k":"a
//	$.ops[0].k ""                   "
//	$.ops[1].k 2                    },{"k":2
//	$.n true                        }],"n":true
//	functionCall{}                  }
//
// build {"ops":[{"k":"a"},{"k":2}],"n":true}, five deltas and an end.
// A numberValue that is no finite double (1e400 as received, the proto3
// strings "NaN", "Infinity", "-Infinity" as bare tokens) makes the text
// invalid on purpose: the gate rejects that call malformed-json.
//
// Protocol errors, each failing the attempt with a named error:
// ErrClosedMember (a path back into a member or element already closed),
// ErrIndexOrder (an array index not next: arrays from 0, in order, no
// gaps), ErrNoOpenCall (a piece or functionCall{} with no streamed call
// open, or after its last chunk), ErrTypeChange (the kind of value under
// one path changes), ErrOpenString (another path, or the end, while a
// string continues), ErrCallOpen (a new call before the streamed one
// ended), ErrBadPiece (a jsonPath outside RFC 9535's singular queries, no
// value or two, willContinue on a non-string).
//
// Encode is the inverse for every sequence a protocol can express; see its
// doc for what that excludes.
package wire
