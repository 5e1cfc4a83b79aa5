package wire_test

import (
	"fmt"
	"log"
	"strings"

	"github.com/sealgate/sealgate"
	"github.com/sealgate/sealgate/wire"
)

// chatBody is an OpenAI Chat Completions stream of one tool call, in the
// shape the API sends (fields it does not need trimmed).
const chatBody = `data: {"id":"chatcmpl-1","object":"chat.completion.chunk","choices":[{"index":0,"delta":{"role":"assistant","tool_calls":[{"index":0,"id":"call_1","type":"function","function":{"name":"get_weather","arguments":""}}]},"finish_reason":null}]}

data: {"id":"chatcmpl-1","object":"chat.completion.chunk","choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":"{\"city\":"}}]},"finish_reason":null}]}

data: {"id":"chatcmpl-1","object":"chat.completion.chunk","choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":"\"Paris\"}"}}]},"finish_reason":null}]}

data: {"id":"chatcmpl-1","object":"chat.completion.chunk","choices":[{"index":0,"delta":{},"finish_reason":"tool_calls"}]}

data: [DONE]

`

// Decoding a vendor body with DecodeFunc: each normalized event is handed
// over as soon as the body has decided it, so a gate can follow a live
// stream (feed each event to gate.Gate.Feed) without holding the body.
func ExampleDecodeFunc() {
	err := wire.DecodeFunc(wire.OpenAIChat, strings.NewReader(chatBody), wire.Options{Turn: "t1"},
		func(ev sealgate.Event) error {
			switch ev.Kind {
			case sealgate.Open:
				fmt.Println("open", ev.Attempt, "turn", ev.Turn)
			case sealgate.Begin:
				fmt.Println("begin", ev.Item, ev.Call, ev.Tool)
			case sealgate.Delta:
				fmt.Printf("delta %s %q\n", ev.Item, ev.Bytes)
			case sealgate.End:
				fmt.Println("end", ev.Item)
			case sealgate.Close:
				fmt.Println("close", ev.Attempt, ev.Status)
			}
			return nil
		})
	if err != nil {
		log.Fatal(err)
	}
	// Output:
	// open chatcmpl-1 turn t1
	// begin 0:0 call_1 get_weather
	// delta 0:0 ""
	// delta 0:0 "{\"city\":"
	// delta 0:0 "\"Paris\"}"
	// end 0:0
	// close chatcmpl-1 complete
}

// A body cut mid-arguments (a dropped connection) still ends closed, as
// disconnected and with no error: the gate then rejects the call.
func ExampleDecode_cut() {
	cut := chatBody[:strings.Index(chatBody, `"Paris`)]
	evs, err := wire.Decode(wire.OpenAIChat, strings.NewReader(cut), wire.Options{})
	last := evs[len(evs)-1]
	fmt.Println(len(evs), "events, the last:", last.Kind, last.Status, "error:", err)
	// Output:
	// 5 events, the last: close disconnected error: <nil>
}
