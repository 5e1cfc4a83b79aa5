package peers

import (
	"maps"

	"github.com/sealgate/sealgate/wire"
)

// openaiFollowUps answer a tool runner's next turn on the OpenAI protocols
// with a plain final text message, as a real server ends a tool loop, so a
// runner that sends its tools' results (openai-node's runTools, the
// Agents SDK) stops instead of failing on an empty body. The envelopes are
// those Enrich writes.
var openaiFollowUps = map[wire.Protocol][]byte{
	wire.OpenAIChat: []byte(
		`data: {"id":"chatcmpl-followup","object":"chat.completion.chunk","created":1785273853,"model":"gpt-peer","system_fingerprint":"fp_peer","choices":[{"index":0,"delta":{"role":"assistant","content":""},"logprobs":null,"finish_reason":null}]}` + "\n\n" +
			`data: {"id":"chatcmpl-followup","object":"chat.completion.chunk","created":1785273853,"model":"gpt-peer","system_fingerprint":"fp_peer","choices":[{"index":0,"delta":{"content":"Done."},"logprobs":null,"finish_reason":null}]}` + "\n\n" +
			`data: {"id":"chatcmpl-followup","object":"chat.completion.chunk","created":1785273853,"model":"gpt-peer","system_fingerprint":"fp_peer","choices":[{"index":0,"delta":{},"logprobs":null,"finish_reason":"stop"}]}` + "\n\n" +
			"data: [DONE]\n\n"),
	wire.OpenAIResponses: []byte(
		"event: response.created\n" + `data: {"type":"response.created","sequence_number":0,"response":{"id":"resp_followup","object":"response","created_at":1785273853,"model":"gpt-peer","status":"in_progress","error":null,"incomplete_details":null,"output":[],"parallel_tool_calls":true,"tool_choice":"auto","tools":[],"usage":null}}` + "\n\n" +
			"event: response.output_item.added\n" + `data: {"type":"response.output_item.added","sequence_number":1,"output_index":0,"item":{"id":"msg_followup","type":"message","status":"in_progress","content":[],"role":"assistant"}}` + "\n\n" +
			"event: response.content_part.added\n" + `data: {"type":"response.content_part.added","sequence_number":2,"item_id":"msg_followup","output_index":0,"content_index":0,"part":{"type":"output_text","annotations":[],"logprobs":[],"text":""}}` + "\n\n" +
			"event: response.output_text.delta\n" + `data: {"type":"response.output_text.delta","sequence_number":3,"item_id":"msg_followup","output_index":0,"content_index":0,"delta":"Done.","logprobs":[]}` + "\n\n" +
			"event: response.output_text.done\n" + `data: {"type":"response.output_text.done","sequence_number":4,"item_id":"msg_followup","output_index":0,"content_index":0,"text":"Done.","logprobs":[]}` + "\n\n" +
			"event: response.content_part.done\n" + `data: {"type":"response.content_part.done","sequence_number":5,"item_id":"msg_followup","output_index":0,"content_index":0,"part":{"type":"output_text","annotations":[],"logprobs":[],"text":"Done."}}` + "\n\n" +
			"event: response.output_item.done\n" + `data: {"type":"response.output_item.done","sequence_number":6,"output_index":0,"item":{"id":"msg_followup","type":"message","status":"completed","content":[{"type":"output_text","annotations":[],"logprobs":[],"text":"Done."}],"role":"assistant"}}` + "\n\n" +
			"event: response.completed\n" + `data: {"type":"response.completed","sequence_number":7,"response":{"id":"resp_followup","object":"response","created_at":1785273853,"model":"gpt-peer","status":"completed","error":null,"incomplete_details":null,"output":[{"id":"msg_followup","type":"message","status":"completed","content":[{"type":"output_text","annotations":[],"logprobs":[],"text":"Done."}],"role":"assistant"}],"parallel_tool_calls":true,"tool_choice":"auto","tools":[],` + envelopeRespUsage + `}}` + "\n\n"),
}

func init() { maps.Copy(followUps, openaiFollowUps) }
