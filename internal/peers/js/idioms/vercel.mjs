// The Vercel AI SDK (`ai`): streamText with tools that have an `execute`,
// over the OpenAI Chat, OpenAI Responses and Anthropic providers.

import { streamText, tool, jsonSchema } from 'ai';
import { createOpenAI } from '@ai-sdk/openai';
import { createAnthropic } from '@ai-sdk/anthropic';

// The SDK's compatibility warnings (an unknown model name) go to stderr on every run: not a finding.
globalThis.AI_SDK_LOG_WARNINGS = false;

const docs =
  'ai docs, "Tool Calling": "When a model uses a tool, it is called a tool call and the output of the tool is called a tool result"; ' +
  'a tool\'s `execute` is "an optional async function that is called with the arguments from the tool call", and the arguments are ' +
  '"validated against the inputSchema"; on errors: "streamText ... errors become part of the stream and are not thrown".';

/** One tool per name the body uses, each executing what the model asked, as the docs show. */
function toolsFor(ctx) {
  return Object.fromEntries(
    ctx.tools.map((name) => [
      name,
      tool({
        description: `the ${name} tool`,
        inputSchema: jsonSchema({ type: 'object' }),
        execute: async (input, { toolCallId }) => {
          ctx.exec({ tool: name, call: toolCallId, args: input });
          return 'ok';
        },
      }),
    ]),
  );
}

/** streamText over a model, the full stream read to its end; an error part is the run's error. */
async function stream(ctx, model) {
  const result = streamText({
    model,
    prompt: 'What is the weather in Paris?',
    tools: toolsFor(ctx),
    maxRetries: 0,
    abortSignal: ctx.signal,
    onError: () => {},
  });
  let err;
  for await (const part of result.fullStream) {
    if (part.type === 'error' && err === undefined) err = part.error ?? new Error('error part');
  }
  return err;
}

function openai(ctx) {
  return createOpenAI({ baseURL: `${ctx.baseURL}/v1`, apiKey: 'sk-peer-offline', fetch: ctx.fetch });
}

export const idioms = [
  {
    name: 'vercel-chat',
    module: 'ai',
    protocol: 'openai-chat',
    idiom: 'streamText({model: openai.chat(...), tools: {NAME: tool({inputSchema, execute})}}), fullStream read to its end',
    docs,
    run: (ctx) => stream(ctx, openai(ctx).chat('gpt-peer')),
  },
  {
    name: 'vercel-responses',
    module: 'ai',
    protocol: 'openai-responses',
    idiom: 'streamText({model: openai.responses(...), tools: {NAME: tool({inputSchema, execute})}}), fullStream read to its end',
    docs,
    run: (ctx) => stream(ctx, openai(ctx).responses('gpt-peer')),
  },
  {
    name: 'vercel-anthropic',
    module: 'ai',
    protocol: 'anthropic',
    idiom: 'streamText({model: anthropic(...), tools: {NAME: tool({inputSchema, execute})}}), fullStream read to its end',
    docs,
    run: (ctx) =>
      stream(ctx, createAnthropic({ baseURL: `${ctx.baseURL}/v1`, apiKey: 'sk-ant-peer-offline', fetch: ctx.fetch })('claude-peer')),
  },
];
