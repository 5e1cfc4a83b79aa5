// The Anthropic TypeScript SDK (`@anthropic-ai/sdk`): the beta tool runner
// with streaming, without and with runToolsEagerly, and the message
// stream's contentBlock event and finalMessage.

import Anthropic from '@anthropic-ai/sdk';
import { betaTool } from '@anthropic-ai/sdk/helpers/beta/json-schema';

const messages = [{ role: 'user', content: 'What is the weather in Paris?' }];

function client(ctx) {
  return new Anthropic({ baseURL: ctx.baseURL, apiKey: 'sk-ant-peer-offline', fetch: ctx.fetch, maxRetries: 0 });
}

function tools(ctx) {
  return ctx.tools.map((name) => ({ name, description: `the ${name} tool`, input_schema: { type: 'object' } }));
}

/** The streaming tool runner, each turn's stream read to its final message. */
function runner(eager) {
  return async (ctx) => {
    const r = client(ctx).beta.messages.toolRunner(
      {
        model: 'claude-peer',
        max_tokens: 1024,
        messages,
        stream: true,
        runToolsEagerly: eager,
        max_iterations: 3,
        tools: ctx.tools.map((name) =>
          betaTool({
            name,
            description: `the ${name} tool`,
            inputSchema: { type: 'object' },
            run: async (input, context) => {
              ctx.exec({ tool: name, call: context?.toolUse?.id, args: input });
              return 'ok';
            },
          }),
        ),
      },
      { signal: ctx.signal },
    );
    for await (const stream of r) {
      await stream.finalMessage();
    }
  };
}

const runnerDocs =
  '@anthropic-ai/sdk, `BetaToolRunner`: "A ToolRunner handles the automatic conversation loop between the assistant and tools."; ' +
  '`runToolsEagerly`: "Run each tool as soon as its call is complete, before the reply finishes, instead of once you are done with the reply. ' +
  'This is optimistic: if the reply is interrupted or changes course, the tool may have already run".';

const streamDocs =
  '@anthropic-ai/sdk, `MessageStream` events: `contentBlock: (content: ContentBlock) => void` is emitted when a content block is complete (at content_block_stop); ' +
  '`finalMessage()` resolves with the accumulated message once the stream ends, or rejects on an error.';

export const idioms = [
  {
    name: 'anthropic-ts-tool-runner',
    module: '@anthropic-ai/sdk',
    protocol: 'anthropic',
    idiom: 'beta.messages.toolRunner({stream: true, tools: [betaTool({inputSchema, run})]}), each turn\'s stream awaited to finalMessage()',
    docs: runnerDocs,
    run: runner(false),
  },
  {
    name: 'anthropic-ts-tool-runner-eager',
    module: '@anthropic-ai/sdk',
    protocol: 'anthropic',
    idiom: 'beta.messages.toolRunner({stream: true, runToolsEagerly: true, tools: [betaTool({inputSchema, run})]}), each turn\'s stream awaited to finalMessage()',
    docs: runnerDocs,
    run: runner(true),
  },
  {
    name: 'anthropic-ts-content-block',
    module: '@anthropic-ai/sdk',
    protocol: 'anthropic',
    idiom: 'messages.stream(...).on("contentBlock", b => b.type === "tool_use" && run(b.name, b.input)), then done()',
    docs: streamDocs,
    async run(ctx) {
      const stream = client(ctx).messages.stream(
        { model: 'claude-peer', max_tokens: 1024, messages, tools: tools(ctx) },
        { signal: ctx.signal },
      );
      stream.on('contentBlock', (block) => {
        if (block.type === 'tool_use') ctx.exec({ tool: block.name, call: block.id, args: block.input });
      });
      await stream.done();
    },
  },
  {
    name: 'anthropic-ts-careful',
    module: '@anthropic-ai/sdk',
    protocol: 'anthropic',
    idiom: 'messages.stream(...).finalMessage(); if stop_reason === "tool_use", run each tool_use block',
    docs: streamDocs,
    async run(ctx) {
      const stream = client(ctx).messages.stream(
        { model: 'claude-peer', max_tokens: 1024, messages, tools: tools(ctx) },
        { signal: ctx.signal },
      );
      const msg = await stream.finalMessage();
      if (msg.stop_reason !== 'tool_use') return;
      for (const block of msg.content) {
        if (block.type === 'tool_use') ctx.exec({ tool: block.name, call: block.id, args: block.input });
      }
    },
  },
];
