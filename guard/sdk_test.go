package guard_test

// The guard under the real SDK clients. Each test points openai-go v3 or
// anthropic-sdk-go, with option.WithBaseURL, at an httptest server on
// loopback that serves captured bodies from ../shared/vendor-fixtures, and
// compares what the SDK reports with what the gate releases.

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/anthropics/anthropic-sdk-go"
	aoption "github.com/anthropics/anthropic-sdk-go/option"
	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
	"github.com/openai/openai-go/v3/responses"

	"github.com/sealgate/sealgate"
	"github.com/sealgate/sealgate/guard"
)

// vendorServer serves bodies, one per request in order (the last again
// once they run out), as event streams flushed event by event. A request
// whose handler is told to hang stops after its first hangAfter events
// and waits for the client to go away.
type vendorServer struct {
	*httptest.Server
	mu        sync.Mutex
	bodies    [][]byte
	served    int
	hangAfter int // 0: never hang
}

func newVendorServer(t *testing.T, bodies ...[]byte) *vendorServer {
	s := &vendorServer{bodies: bodies}
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		s.mu.Lock()
		b := s.bodies[min(s.served, len(s.bodies)-1)]
		s.served++
		hang := s.hangAfter
		s.mu.Unlock()
		w.Header().Set("Content-Type", "text/event-stream")
		w.WriteHeader(200)
		for i, ev := range sseEvents(b) {
			if hang > 0 && i == hang {
				<-r.Context().Done()
				return
			}
			w.Write(ev)
			w.(http.Flusher).Flush()
		}
	}))
	t.Cleanup(s.Close)
	return s
}

func openaiClient(s *vendorServer, rt http.RoundTripper) *openai.Client {
	c := openai.NewClient(option.WithBaseURL(s.URL+"/v1/"), option.WithAPIKey("sk-test"),
		option.WithHTTPClient(&http.Client{Transport: rt}), option.WithMaxRetries(0))
	return &c
}

func anthropicClient(s *vendorServer, rt http.RoundTripper) anthropic.Client {
	return anthropic.NewClient(aoption.WithBaseURL(s.URL), aoption.WithAPIKey("sk-ant-test"),
		aoption.WithHTTPClient(&http.Client{Transport: rt}), aoption.WithMaxRetries(0))
}

var chatParams = openai.ChatCompletionNewParams{Model: openai.ChatModelGPT5_5,
	Messages: []openai.ChatCompletionMessageParamUnion{openai.UserMessage("What is the weather?")}}

var messageParams = anthropic.MessageNewParams{Model: "claude-3-7-sonnet-20250219", MaxTokens: 1024,
	Messages: []anthropic.MessageParam{anthropic.NewUserMessage(anthropic.NewTextBlock("What is the weather?"))}}

// sdkCall is a tool call as an SDK reports it.
type sdkCall struct{ id, name, args string }

func compact(t *testing.T, s string) string {
	t.Helper()
	var b bytes.Buffer
	if err := json.Compact(&b, []byte(s)); err != nil {
		t.Fatalf("SDK arguments %q: %v", s, err)
	}
	return b.String()
}

// released are the gate's releases as sdkCalls.
func released(r *recorder) []sdkCall {
	var out []sdkCall
	for _, d := range r.of(sealgate.Release) {
		out = append(out, sdkCall{d.Call, d.Tool, string(d.Args)})
	}
	return out
}

func sameCalls(t *testing.T, sdk, gate []sdkCall) {
	t.Helper()
	if len(sdk) == 0 || len(sdk) != len(gate) {
		t.Fatalf("SDK calls %v, gate releases %v", sdk, gate)
	}
	for i := range sdk {
		if sdk[i] != gate[i] {
			t.Fatalf("call %d: SDK %v, gate %v", i, sdk[i], gate[i])
		}
	}
}

// chatStream runs one streamed Chat Completions request of the turn and
// returns the calls the accumulator holds at the end and those that
// JustFinishedToolCall reported on the way.
func chatStream(t *testing.T, client *openai.Client, turn string) (final, finished []sdkCall) {
	t.Helper()
	stream := client.Chat.Completions.NewStreaming(guard.WithTurn(context.Background(), turn), chatParams)
	defer stream.Close()
	acc := openai.ChatCompletionAccumulator{}
	for stream.Next() {
		acc.AddChunk(stream.Current())
		if tc, ok := acc.JustFinishedToolCall(); ok {
			finished = append(finished, sdkCall{tc.ID, tc.Name, tc.Arguments})
		}
	}
	if err := stream.Err(); err != nil {
		t.Fatalf("SDK stream: %v", err)
	}
	for _, c := range acc.Choices {
		for _, tc := range c.Message.ToolCalls {
			final = append(final, sdkCall{tc.ID, tc.Function.Name, compact(t, tc.Function.Arguments)})
		}
	}
	return final, finished
}

// A normal body: the tool calls the SDK accumulated are the gate's
// releases, call for call.
func TestOpenAIChatSDKAgrees(t *testing.T) {
	for _, f := range []string{"openai-chat/parallel-tool-calls-gpt4o.sse", "openai-chat/single-tool-call-strict.sse"} {
		t.Run(f, func(t *testing.T) {
			srv := newVendorServer(t, fixture(t, f))
			gd, rec := newGuard(t, srv.Client().Transport, guard.Options{})
			final, _ := chatStream(t, openaiClient(srv, gd), "t1")
			sameCalls(t, final, released(rec))
			if len(rec.decisions()) != len(final) {
				t.Fatal(rec.lines())
			}
		})
	}
}

// lengthCut is single-tool-call-strict.sse cut after its sixth event (the
// arguments stop at {"city":"Edinburgh) and ended the way a max_tokens
// stop ends a Chat stream: its own finish chunk with finish_reason
// "length", then [DONE]. DERIVED (SOURCES.md has no real capture of a
// length cut inside tool arguments; finish-length-max-tokens-1.sse cuts
// content, not a call).
func lengthCut(t *testing.T) []byte {
	body := fixture(t, "openai-chat/single-tool-call-strict.sse")
	events := sseEvents(body)
	finish := events[len(events)-3]
	if !bytes.Contains(finish, []byte(`"finish_reason":"tool_calls"`)) {
		t.Fatalf("fixture changed: %s", finish)
	}
	finish = bytes.Replace(finish, []byte(`"finish_reason":"tool_calls"`), []byte(`"finish_reason":"length"`), 1)
	return bytes.Join(append(events[:6:6], finish, events[len(events)-1]), nil)
}

// On a length cut the SDK's own accumulator reports the call finished,
// with arguments that are not even JSON, and the stream ends with no
// error. The guard rejects it.
func TestOpenAIChatLengthCutRejected(t *testing.T) {
	srv := newVendorServer(t, lengthCut(t))
	gd, rec := newGuard(t, srv.Client().Transport, guard.Options{})
	stream := openaiClient(srv, gd).Chat.Completions.NewStreaming(guard.WithTurn(context.Background(), "t1"), chatParams)
	acc := openai.ChatCompletionAccumulator{}
	var finished []openai.FinishedChatCompletionToolCall
	for stream.Next() {
		acc.AddChunk(stream.Current())
		if tc, ok := acc.JustFinishedToolCall(); ok {
			finished = append(finished, tc)
		}
	}
	stream.Close()
	if stream.Err() != nil || len(finished) != 1 || finished[0].Arguments != `{"city":"Edinburgh` ||
		acc.Choices[0].FinishReason != "length" {
		t.Fatalf("the SDK no longer reports the cut call finished: err %v, finished %+v", stream.Err(), finished)
	}
	want(t, rec.lines(), "reject r1:chatcmpl-ABfw8AOXnoa2kzy11vVTSjuQhHCQr item=0:0 reason=turn-truncated")
}

// The real length capture cuts structured-output content: no call, so no
// decision, and the body still reaches the SDK whole.
func TestOpenAIChatLengthContent(t *testing.T) {
	body := fixture(t, "openai-chat/finish-length-max-tokens-1.sse")
	srv := newVendorServer(t, body)
	gd, rec := newGuard(t, srv.Client().Transport, guard.Options{})
	final, finished := chatStream(t, openaiClient(srv, gd), "t1")
	if len(final)+len(finished)+len(rec.decisions()) != 0 {
		t.Fatalf("SDK %v %v, gate %v", final, finished, rec.lines())
	}
}

// The application sends a turn again (its own retry after, say, a
// timeout): the SDK reports the same call again, the gate does not release
// it again. The next turn's call runs.
func TestOpenAIChatRetriedTurnDoesNotRunAgain(t *testing.T) {
	srv := newVendorServer(t, fixture(t, "openai-chat/single-tool-call-strict.sse"))
	gd, rec := newGuard(t, srv.Client().Transport, guard.Options{})
	client := openaiClient(srv, gd)
	var sdk int
	for _, turn := range []string{"t1", "t1", "t2"} {
		final, _ := chatStream(t, client, turn)
		sdk += len(final)
	}
	var got []string
	for _, d := range rec.decisions() {
		got = append(got, d.Kind.String()+" "+strings.SplitN(d.Attempt, ":", 2)[0]+" "+string(d.Reason))
	}
	if sdk != 3 {
		t.Fatalf("SDK reported %d calls", sdk)
	}
	want(t, got, "release r1 ", "reject r2 duplicate", "release r3 ")
}

// countingBody counts the Reads made of the body it wraps.
type countingBody struct {
	io.ReadCloser
	reads []int
}

func (c *countingBody) Read(p []byte) (int, error) {
	n, err := c.ReadCloser.Read(p)
	c.reads = append(c.reads, n)
	return n, err
}

// partialBody is gatedBody (guard_test.go) for a reader that may ask for
// fewer bytes than an event: Read hands out the rest of the current event,
// or of the next one once the test allowed it.
type partialBody struct {
	gatedBody
	off int // bytes of events[len(reads)] already handed out
}

func (b *partialBody) Read(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	i := b.whole()
	if i == len(b.events) {
		return 0, io.EOF
	}
	if i >= b.allowed {
		b.ahead = true
		return 0, errors.New("read past the events the reader was given")
	}
	n := copy(p, b.events[i][b.off:])
	b.off += n
	b.reads = append(b.reads, n)
	return n, nil
}

// whole counts the events handed out in full, and moves to the next.
func (b *partialBody) whole() int {
	done := 0
	for _, n := range b.reads {
		done += n
	}
	i := 0
	for i < len(b.events) && done >= len(b.events[i]) {
		done -= len(b.events[i])
		i++
	}
	if done == 0 {
		b.off = 0
	}
	return i
}

// Under the real SDK, with a body that blocks after each event: every Read
// the SDK makes is one Read underneath and returns what it returned, so the
// SDK has each chunk as soon as it arrived; and the release is handed over
// before the SDK sees the end of the stream.
func TestSDKReadsNeverWaitForTheNextEvent(t *testing.T) {
	events := sseEvents(fixture(t, "openai-chat/single-tool-call-strict.sse"))
	under := &partialBody{gatedBody: gatedBody{events: events}}
	gd, rec := newGuard(t, serve(func() io.ReadCloser { return under }), guard.Options{})
	var seen *countingBody
	above := roundTrip(func(r *http.Request) (*http.Response, error) {
		resp, err := gd.RoundTrip(r)
		if err == nil {
			seen = &countingBody{ReadCloser: resp.Body}
			resp.Body = seen
		}
		return resp, err
	})
	client := openai.NewClient(option.WithBaseURL("http://vendor.test/v1/"), option.WithAPIKey("sk-test"),
		option.WithHTTPClient(&http.Client{Transport: above}), option.WithMaxRetries(0))
	under.allow()
	stream := client.Chat.Completions.NewStreaming(guard.WithTurn(context.Background(), "t1"), chatParams)
	defer stream.Close()
	for i := range events {
		if i > 0 {
			under.allow()
		}
		if i == len(events)-1 { // [DONE]
			if stream.Next() || stream.Err() != nil {
				t.Fatalf("after [DONE]: err %v", stream.Err())
			}
			break
		}
		if !stream.Next() {
			t.Fatalf("event %d: the SDK got nothing (err %v; the guard read ahead: %v)", i, stream.Err(), under.ahead)
		}
		if len(rec.decisions()) != 0 {
			t.Fatalf("decision before the end, at event %d: %v", i, rec.lines())
		}
	}
	if len(rec.of(sealgate.Release)) != 1 {
		t.Fatalf("at the end: %v", rec.lines())
	}
	if under.ahead || len(seen.reads) < len(events) || !slices.Equal(seen.reads, under.reads) {
		t.Fatalf("read ahead %v; SDK reads %v, reads underneath %v", under.ahead, seen.reads, under.reads)
	}
}

// The SDK cancels its context mid-stream: the SDK reports the cancel, the
// gate rejects the open call turn-cancelled.
func TestSDKContextCancel(t *testing.T) {
	srv := newVendorServer(t, fixture(t, "openai-chat/single-tool-call-strict.sse"))
	srv.hangAfter = 8
	gd, rec := newGuard(t, srv.Client().Transport, guard.Options{})
	ctx, cancel := context.WithCancel(guard.WithTurn(context.Background(), "t1"))
	defer cancel()
	stream := openaiClient(srv, gd).Chat.Completions.NewStreaming(ctx, chatParams)
	defer stream.Close()
	for n := 0; stream.Next(); n++ {
		if n == 6 {
			cancel()
		}
	}
	if !errors.Is(stream.Err(), context.Canceled) {
		t.Fatalf("SDK err %v", stream.Err())
	}
	want(t, rec.lines(), "reject r1:chatcmpl-ABfw8AOXnoa2kzy11vVTSjuQhHCQr item=0:0 reason=turn-cancelled")
}

// The application stops reading and closes the SDK stream before the end:
// cancelled. Closing it after the end changes nothing.
func TestSDKCloseEarlyAndLate(t *testing.T) {
	srv := newVendorServer(t, fixture(t, "openai-chat/single-tool-call-strict.sse"))
	gd, rec := newGuard(t, srv.Client().Transport, guard.Options{})
	client := openaiClient(srv, gd)
	stream := client.Chat.Completions.NewStreaming(guard.WithTurn(context.Background(), "t1"), chatParams)
	for n := 0; n < 6 && stream.Next(); n++ {
	}
	stream.Close()
	want(t, rec.lines(), "reject r1:chatcmpl-ABfw8AOXnoa2kzy11vVTSjuQhHCQr item=0:0 reason=turn-cancelled")

	stream = client.Chat.Completions.NewStreaming(guard.WithTurn(context.Background(), "t2"), chatParams)
	for stream.Next() {
	}
	stream.Close()
	if rel := rec.of(sealgate.Release); len(rel) != 1 || len(rec.decisions()) != 2 {
		t.Fatal(rec.lines())
	}
}

// Responses: the SDK's function_call_arguments.done, with the call id and
// name of its output_item.added, is the gate's release.
func TestOpenAIResponsesSDKAgrees(t *testing.T) {
	for _, f := range []string{"openai-responses/message-then-function-call.sse", "openai-responses/function-call-no-sequence-number-2025-03.sse"} {
		t.Run(f, func(t *testing.T) {
			srv := newVendorServer(t, fixture(t, f))
			gd, rec := newGuard(t, srv.Client().Transport, guard.Options{})
			stream := openaiClient(srv, gd).Responses.NewStreaming(guard.WithTurn(context.Background(), "t1"),
				responses.ResponseNewParams{Model: "gpt-5", Input: responses.ResponseNewParamsInputUnion{OfString: openai.String("weather?")}})
			defer stream.Close()
			items := map[string]sdkCall{}
			var sdk []sdkCall
			for stream.Next() {
				ev := stream.Current()
				switch ev.Type {
				case "response.output_item.added":
					if it := ev.AsResponseOutputItemAdded().Item; it.Type == "function_call" {
						fc := it.AsFunctionCall()
						items[fc.ID] = sdkCall{id: fc.CallID, name: fc.Name}
					}
				case "response.function_call_arguments.done":
					done := ev.AsResponseFunctionCallArgumentsDone()
					c := items[done.ItemID]
					c.args = compact(t, done.Arguments)
					sdk = append(sdk, c)
				}
			}
			if err := stream.Err(); err != nil {
				t.Fatal(err)
			}
			sameCalls(t, sdk, released(rec))
		})
	}
}

// messageStream runs one streamed Messages request and returns the
// accumulated message.
func messageStream(t *testing.T, client anthropic.Client, turn string) anthropic.Message {
	t.Helper()
	stream := client.Messages.NewStreaming(guard.WithTurn(context.Background(), turn), messageParams)
	defer stream.Close()
	var msg anthropic.Message
	for stream.Next() {
		if err := msg.Accumulate(stream.Current()); err != nil {
			t.Fatalf("Accumulate: %v", err)
		}
	}
	if err := stream.Err(); err != nil {
		t.Fatalf("SDK stream: %v", err)
	}
	return msg
}

func toolUses(msg anthropic.Message) []anthropic.ContentBlockUnion {
	var out []anthropic.ContentBlockUnion
	for _, b := range msg.Content {
		if b.Type == "tool_use" {
			out = append(out, b)
		}
	}
	return out
}

// Anthropic, normal bodies (one padded with blanks inside its event JSON):
// the tool_use blocks the SDK accumulated are the gate's releases.
func TestAnthropicSDKAgrees(t *testing.T) {
	for _, f := range []string{"anthropic/text-then-tool-use.sse", "anthropic/text-then-tool-use-padded-json.sse", "anthropic/tool-use-no-args.jsonl"} {
		t.Run(f, func(t *testing.T) {
			body := fixture(t, f)
			if strings.HasSuffix(f, ".jsonl") {
				body = jsonlToSSE(t, body, true)
			}
			srv := newVendorServer(t, body)
			gd, rec := newGuard(t, srv.Client().Transport, guard.Options{})
			msg := messageStream(t, anthropicClient(srv, gd), "t1")
			var sdk []sdkCall
			for _, b := range toolUses(msg) {
				sdk = append(sdk, sdkCall{b.ID, b.Name, compact(t, string(b.Input))})
			}
			if msg.StopReason != "tool_use" {
				t.Fatalf("stop reason %q", msg.StopReason)
			}
			sameCalls(t, sdk, released(rec))
		})
	}
}

// The real max_tokens capture cuts a tool_use mid-string. The SDK ends the
// stream with no error and its accumulated message holds the tool_use
// block, whose typed form is a finished-looking call with the {}
// placeholder as input. The guard rejects it.
func TestAnthropicMaxTokensCutRejected(t *testing.T) {
	srv := newVendorServer(t, fixture(t, "anthropic/max-tokens-mid-tool-use-fine-grained.sse"))
	gd, rec := newGuard(t, srv.Client().Transport, guard.Options{})
	msg := messageStream(t, anthropicClient(srv, gd), "t1")
	uses := toolUses(msg)
	if msg.StopReason != "max_tokens" || len(uses) != 1 || uses[0].Name != "make_file" || json.Valid(uses[0].Input) {
		t.Fatalf("the SDK no longer holds the cut call: stop %q, tool_use blocks %d", msg.StopReason, len(uses))
	}
	if typed := uses[0].AsToolUse(); typed.Name != "make_file" || string(typed.Input) != "{}" {
		t.Fatalf("AsToolUse: %s %s", typed.Name, typed.Input)
	}
	want(t, rec.lines(), "reject r1:msg_01UdjYBBipA9omjYhicnevgq item=msg_01UdjYBBipA9omjYhicnevgq:1 reason=turn-truncated")
}
