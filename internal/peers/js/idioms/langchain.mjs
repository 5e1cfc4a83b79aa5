// LangChain.js (`@langchain/openai` over `@langchain/core`): ChatOpenAI
// with bindTools, streamed, the chunks concatenated, then each of the
// message's tool_calls invoked; over Chat Completions and over Responses.

import { ChatOpenAI } from '@langchain/openai';

function model(ctx, responses) {
  return new ChatOpenAI({
    model: 'gpt-peer',
    apiKey: 'sk-peer-offline',
    streaming: true,
    maxRetries: 0,
    useResponsesApi: responses,
    configuration: { baseURL: `${ctx.baseURL}/v1`, fetch: ctx.fetch },
  });
}

function stream(responses) {
  return async (ctx) => {
    const bound = model(ctx, responses).bindTools(
      ctx.tools.map((name) => ({ type: 'function', function: { name, description: `the ${name} tool`, parameters: { type: 'object' } } })),
    );
    let full;
    for await (const chunk of await bound.stream('What is the weather in Paris?', { signal: ctx.signal })) {
      full = full === undefined ? chunk : full.concat(chunk);
    }
    for (const tc of full?.tool_calls ?? []) {
      ctx.exec({ tool: tc.name, call: tc.id, args: tc.args });
    }
  };
}

const docs =
  'LangChain.js, tool calling: "AIMessage.tool_calls ... a list of tool calls, each a dict with name, args and id"; "When streaming, AIMessageChunk ... tool_call_chunks ... can be concatenated", ' +
  'and args that do not parse go to `invalid_tool_calls`, not `tool_calls`.';

export const idioms = [
  {
    name: 'langchain-chat',
    module: '@langchain/openai',
    protocol: 'openai-chat',
    idiom: 'new ChatOpenAI({streaming: true}).bindTools(tools).stream(...), chunks concatenated, then each of tool_calls invoked with its args',
    docs,
    run: stream(false),
  },
  {
    name: 'langchain-responses',
    module: '@langchain/openai',
    protocol: 'openai-responses',
    idiom: 'new ChatOpenAI({streaming: true, useResponsesApi: true}).bindTools(tools).stream(...), chunks concatenated, then each of tool_calls invoked with its args',
    docs,
    run: stream(true),
  },
];
