package loopback

import (
	"bytes"
	"testing"
)

// The OpenAI Chat Completions bodies every integration is tested on, all
// from the captures: one call (GetWeatherArgs, arguments
// {"city":"Edinburgh","country":"UK","units":"c"}) and two parallel calls
// (GetWeatherArgs and get_stock_price).
const (
	ChatSingle   = "openai-chat/single-tool-call-strict.sse"
	ChatParallel = "openai-chat/parallel-tool-calls-gpt4o.sse"
)

// ChatLengthCut is ChatSingle cut after its sixth event (the arguments stop
// at {"city":"Edinburgh) and ended the way a max_tokens stop ends a Chat
// stream: its own finish chunk with finish_reason "length", then [DONE].
// DERIVED: no capture cuts a call by length (SOURCES.md).
func ChatLengthCut(t testing.TB) Body {
	t.Helper()
	events := Events(Fixture(t, ChatSingle))
	finish := events[len(events)-3]
	if !bytes.Contains(finish, []byte(`"finish_reason":"tool_calls"`)) {
		t.Fatalf("%s changed: its third event from the end is not the tool_calls finish: %s", ChatSingle, finish)
	}
	finish = bytes.Replace(finish, []byte(`"finish_reason":"tool_calls"`), []byte(`"finish_reason":"length"`), 1)
	return Body{Events: append(events[:6:6], finish, events[len(events)-1])}
}

// ChatDropMidArgs is ChatSingle's first six events (the arguments so far:
// {"city":"Edinburgh), then a broken connection.
func ChatDropMidArgs(t testing.TB) Body {
	t.Helper()
	return Body{Events: Events(Fixture(t, ChatSingle))[:6], Drop: true}
}

// ChatDropAfterEnd is ChatSingle up to and with its finish_reason
// "tool_calls" chunk (the call has ended), then a broken connection before
// the usage chunk and [DONE].
func ChatDropAfterEnd(t testing.TB) Body {
	t.Helper()
	events := Events(Fixture(t, ChatSingle))
	if !bytes.Contains(events[len(events)-3], []byte(`"finish_reason":"tool_calls"`)) {
		t.Fatalf("%s changed: its third event from the end is not the tool_calls finish", ChatSingle)
	}
	return Body{Events: events[: len(events)-2 : len(events)-2], Drop: true}
}

// The Anthropic Messages bodies: one get_weather call ({"location":
// "Paris"}) after text, and a make_file call cut by max_tokens (real).
const (
	AnthropicSingle   = "anthropic/text-then-tool-use.sse"
	AnthropicMaxToken = "anthropic/max-tokens-mid-tool-use-fine-grained.sse"
)

// AnthropicDropMidArgs is AnthropicSingle's first ten events (the input so
// far: {"location": "P), then a broken connection.
func AnthropicDropMidArgs(t testing.TB) Body {
	t.Helper()
	events := Events(Fixture(t, AnthropicSingle))
	if !bytes.Contains(events[9], []byte(`on\": \"P`)) {
		t.Fatalf("%s changed: its tenth event is not the second piece of the input", AnthropicSingle)
	}
	return Body{Events: events[:10], Drop: true}
}

// AnthropicDropAfterEnd is AnthropicSingle up to and with its
// message_delta (stop_reason tool_use; the block had its stop), then a
// broken connection before message_stop.
func AnthropicDropAfterEnd(t testing.TB) Body {
	t.Helper()
	events := Events(Fixture(t, AnthropicSingle))
	last := events[len(events)-1]
	if !bytes.HasPrefix(last, []byte("event: message_stop")) {
		t.Fatalf("%s changed: its last event is not message_stop", AnthropicSingle)
	}
	return Body{Events: events[: len(events)-1 : len(events)-1], Drop: true}
}
