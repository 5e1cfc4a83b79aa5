package main

import (
	"context"
	"encoding/json"
	"net/http"
	"sync"

	anthropicsdk "github.com/anthropics/anthropic-sdk-go"
	"github.com/firebase/genkit/go/ai"
	"github.com/firebase/genkit/go/genkit"
	"github.com/firebase/genkit/go/plugins/anthropic"
	"github.com/firebase/genkit/go/plugins/compat_oai/openai"
	"github.com/openai/openai-go/option"
)

const (
	genkitModule = "github.com/firebase/genkit/go"
	// genkitDocs is what genkit says of its tool loop (ai/option.go, the
	// options of Generate): it runs the tools the model asks for itself.
	genkitDocs = "ai.WithTools \"sets the tools to use for the generate request\"; ai.WithReturnToolRequests(false), the default: genkit makes \"the tool calls\" and continues the generation; ai.WithMaxTurns: \"A tool call happens when tools are provided in the request and a model decides to call one or more as a response.\""
	anyIdiom   = "ai.NewTool[any, string]: the function gets the input genkit decoded from the call's arguments, untyped; it is the execution"
	typedIdiom = "ai.NewTool[map[string]any, string]: typed input, which genkit decodes (and checks against the schema it inferred) before the function runs; the function is the execution"
)

// genkitIdioms are genkit.Generate's tool loop, streaming on, over its two
// model plugins, each with an untyped and a typed tool.
func genkitIdioms() []*idiom {
	return []*idiom{
		{peerHello: peerHello{Name: "genkit/openai-any", Module: genkitModule, Protocol: "openai-chat", Docs: genkitDocs,
			Idiom: "genkit.Generate(WithTools, WithStreaming) over the compat_oai openai plugin (option.WithHTTPClient, option.WithBaseURL); " + anyIdiom},
			run: generate(openaiInstance, "openai/gpt-4o", nil, anyTools)},
		{peerHello: peerHello{Name: "genkit/openai-typed", Module: genkitModule, Protocol: "openai-chat", Docs: genkitDocs,
			Idiom: "genkit.Generate(WithTools, WithStreaming) over the compat_oai openai plugin (option.WithHTTPClient, option.WithBaseURL); " + typedIdiom},
			run: generate(openaiInstance, "openai/gpt-4o", nil, typedTools)},
		{peerHello: peerHello{Name: "genkit/anthropic-any", Module: genkitModule, Protocol: "anthropic", Docs: genkitDocs,
			Idiom: "genkit.Generate(WithTools, WithStreaming) over the anthropic plugin (BaseURL; no HTTP client option, so http.DefaultTransport is swapped); " + anyIdiom},
			run: generate(anthropicInstance, "anthropic/claude-sonnet-4-5", anthropicConfig, anyTools)},
		{peerHello: peerHello{Name: "genkit/anthropic-typed", Module: genkitModule, Protocol: "anthropic", Docs: genkitDocs,
			Idiom: "genkit.Generate(WithTools, WithStreaming) over the anthropic plugin (BaseURL; no HTTP client option, so http.DefaultTransport is swapped); " + typedIdiom},
			run: generate(anthropicInstance, "anthropic/claude-sonnet-4-5", anthropicConfig, typedTools)},
	}
}

// instances are the genkit instances by plugin and base URL: Init
// registers every model the plugin knows, which a run need not pay for
// again, and one process serves one base URL (tests start more).
var (
	instMu    sync.Mutex
	instances = map[string]*genkit.Genkit{}
)

func instance(key string, init func() *genkit.Genkit) *genkit.Genkit {
	instMu.Lock()
	defer instMu.Unlock()
	if g, ok := instances[key]; ok {
		return g
	}
	g := init()
	instances[key] = g
	return g
}

// openaiInstance is genkit with the compat_oai OpenAI plugin on the
// stepped client.
func openaiInstance(ctx context.Context, c conn) *genkit.Genkit {
	return instance("openai "+c.BaseURL, func() *genkit.Genkit {
		return genkit.Init(ctx, genkit.WithPlugins(&openai.OpenAI{APIKey: "sk-peer-offline",
			Opts: []option.RequestOption{option.WithHTTPClient(c.HTTP), option.WithBaseURL(c.BaseURL + "/v1/")}}))
	})
}

// anthropicInstance is genkit with the Anthropic plugin, which takes a
// base URL but no HTTP client: its SDK client uses http.DefaultClient,
// so the run swaps http.DefaultTransport (see generate).
func anthropicInstance(ctx context.Context, c conn) *genkit.Genkit {
	return instance("anthropic "+c.BaseURL, func() *genkit.Genkit {
		return genkit.Init(ctx, genkit.WithPlugins(&anthropic.Anthropic{APIKey: "sk-ant-peer-offline", BaseURL: c.BaseURL}))
	})
}

// anthropicConfig is the request config the Anthropic plugin requires
// (it refuses a request without max_tokens), in the SDK's own type, as
// genkit's samples pass it.
var anthropicConfig = &anthropicsdk.MessageNewParams{MaxTokens: 1024}

// generate is one genkit.Generate over the body, streaming on, with a tool
// per name the body calls; genkit runs the tools itself. The Anthropic
// plugin is reached only through http.DefaultTransport, which is swapped
// for the stepped transport during the run: this process runs one run at
// a time and makes no other request through it, so the swap is safe here
// (it would not be in a program with other HTTP traffic).
func generate(inst func(context.Context, conn) *genkit.Genkit, model string, config any, tools func(conn, func(execution)) []ai.ToolRef) func(context.Context, conn, func(execution)) error {
	return func(ctx context.Context, c conn, exec func(execution)) error {
		g := inst(ctx, c)
		saved := http.DefaultTransport
		http.DefaultTransport = c.Transport
		defer func() { http.DefaultTransport = saved }()
		_, err := genkit.Generate(ctx, g,
			ai.WithModelName(model),
			ai.WithConfig(config),
			ai.WithPrompt("What is the weather?"),
			ai.WithTools(tools(c, exec)...),
			ai.WithMaxTurns(3),
			ai.WithStreaming(func(context.Context, *ai.ModelResponseChunk) error { return nil }))
		return err
	}
}

// anyTools take whatever genkit decoded from the call's arguments.
func anyTools(c conn, exec func(execution)) []ai.ToolRef {
	var ts []ai.ToolRef
	for _, name := range c.Tools {
		ts = append(ts, ai.NewTool(name, "a tool under test", func(_ *ai.ToolContext, in any) (string, error) {
			return run(exec, name, in)
		}))
	}
	return ts
}

// typedTools take typed input, which genkit decodes before they run.
func typedTools(c conn, exec func(execution)) []ai.ToolRef {
	var ts []ai.ToolRef
	for _, name := range c.Tools {
		ts = append(ts, ai.NewTool(name, "a tool under test", func(_ *ai.ToolContext, in map[string]any) (string, error) {
			return run(exec, name, in)
		}))
	}
	return ts
}

// run is a tool's body: it records the execution with the arguments as
// the tool got them, re-serialized, since genkit hands tools a parsed
// value (and no call id: the parent finds the call by name and bytes).
func run(exec func(execution), name string, in any) (string, error) {
	b, err := json.Marshal(in)
	if err != nil {
		return "", err
	}
	exec(execution{Tool: name, Args: string(b), Object: true})
	return "ok", nil
}
