// openai-node (`openai`): the streamed Chat tool runner, the Chat and
// Responses stream helpers' in-stream events, and the careful
// applications that wait for the final object.

import OpenAI from 'openai';

const prompt = 'What is the weather in Paris?';

function client(ctx) {
  return new OpenAI({ baseURL: `${ctx.baseURL}/v1`, apiKey: 'sk-peer-offline', fetch: ctx.fetch, maxRetries: 0 });
}

function chatTools(ctx) {
  return ctx.tools.map((name) => ({ type: 'function', function: { name, description: `the ${name} tool`, parameters: { type: 'object' } } }));
}

function responsesTools(ctx) {
  return ctx.tools.map((name) => ({ type: 'function', name, description: `the ${name} tool`, parameters: { type: 'object' }, strict: false }));
}

/** The careful parse: one JSON object, or nothing to run. */
function parseObject(s) {
  let v;
  try {
    v = JSON.parse(s);
  } catch {
    return undefined;
  }
  return v !== null && typeof v === 'object' && !Array.isArray(v) ? v : undefined;
}

/** The application's own parse in an event handler: bad JSON is skipped, not thrown into the SDK. */
function parseAny(s) {
  try {
    return { ok: true, v: JSON.parse(s) };
  } catch {
    return { ok: false };
  }
}

export const idioms = [
  {
    name: 'openai-node-runtools',
    module: 'openai',
    protocol: 'openai-chat',
    idiom: 'chat.completions.runTools({stream: true, tools: [{type: "function", function: {parse: JSON.parse, function}}]}), then finalChatCompletion()',
    docs:
      'openai-node, `runTools`: "A convenience helper for using tool calls with the /chat/completions endpoint which automatically calls the JavaScript functions you provide and sends their results back to the /chat/completions endpoint, looping as long as the model requests function calls."; `parse`: "the parsed arguments to pass to `function`".',
    async run(ctx) {
      // The callback gets no call id; the runner calls the tools of the
      // last assistant message in order, so the first unclaimed call of the
      // tool is this one (the harness needs the id, the application does not).
      const claimed = new Set();
      const callOf = (runner, name) => {
        const msg = runner.messages.findLast((m) => m.role === 'assistant' && m.tool_calls?.length);
        const tc = msg?.tool_calls?.find((t) => t.type === 'function' && t.function.name === name && !claimed.has(t.id));
        if (tc) claimed.add(tc.id);
        return tc?.id;
      };
      const runner = client(ctx).chat.completions.runTools(
        {
          model: 'gpt-peer',
          stream: true,
          messages: [{ role: 'user', content: prompt }],
          tools: ctx.tools.map((name) => ({
            type: 'function',
            function: {
              name,
              description: `the ${name} tool`,
              parameters: { type: 'object' },
              parse: JSON.parse,
              function: async (args, runner) => {
                ctx.exec({ tool: name, call: callOf(runner, name), args });
                return 'ok';
              },
            },
          })),
        },
        { signal: ctx.signal, maxChatCompletions: 3 },
      );
      await runner.finalChatCompletion();
    },
  },
  {
    name: 'openai-node-args-done',
    module: 'openai',
    protocol: 'openai-chat',
    idiom: 'chat.completions.stream(...).on("tool_calls.function.arguments.done", e => run(e.name, JSON.parse(e.arguments))), then done()',
    docs:
      'openai-node, `ChatCompletionStreamEvents`: "\'tool_calls.function.arguments.done\': Called once a function tool\'s complete arguments are available."',
    async run(ctx) {
      const stream = client(ctx).chat.completions.stream(
        { model: 'gpt-peer', messages: [{ role: 'user', content: prompt }], tools: chatTools(ctx) },
        { signal: ctx.signal },
      );
      stream.on('tool_calls.function.arguments.done', (e) => {
        const p = parseAny(e.arguments);
        if (!p.ok) return;
        const call = stream.currentChatCompletionSnapshot?.choices?.[0]?.message?.tool_calls?.[e.index]?.id;
        ctx.exec({ tool: e.name, call, args: p.v });
      });
      await stream.done();
    },
  },
  {
    name: 'openai-node-chat-careful',
    module: 'openai',
    protocol: 'openai-chat',
    idiom: 'chat.completions.stream(...).finalChatCompletion(); for each choice with finish_reason "tool_calls", run each call whose arguments JSON.parse to an object',
    docs:
      'openai-node, `finalChatCompletion()`: "Returns a promise that resolves with the final ChatCompletion, or rejects if an error occurred or the stream ended prematurely without producing a ChatCompletion."',
    async run(ctx) {
      const stream = client(ctx).chat.completions.stream(
        { model: 'gpt-peer', messages: [{ role: 'user', content: prompt }], tools: chatTools(ctx) },
        { signal: ctx.signal },
      );
      const completion = await stream.finalChatCompletion();
      for (const choice of completion.choices) {
        if (choice.finish_reason !== 'tool_calls') continue;
        for (const tc of choice.message.tool_calls ?? []) {
          if (tc.type !== 'function') continue;
          const args = parseObject(tc.function.arguments);
          if (args !== undefined) ctx.exec({ tool: tc.function.name, call: tc.id, args });
        }
      }
    },
  },
  {
    name: 'openai-node-responses-args-done',
    module: 'openai',
    protocol: 'openai-responses',
    idiom: 'for await (event of responses.stream(...)): keep each function_call item from response.output_item.added, run it at response.function_call_arguments.done with JSON.parse(event.arguments)',
    docs:
      'OpenAI function calling guide, streaming: "response.function_call_arguments.done ... the function call arguments are finalized"; the guide\'s example keeps each item from response.output_item.added and sets its arguments at .done.',
    async run(ctx) {
      const stream = client(ctx).responses.stream(
        { model: 'gpt-peer', input: prompt, tools: responsesTools(ctx) },
        { signal: ctx.signal },
      );
      const calls = new Map();
      for await (const event of stream) {
        if (event.type === 'response.output_item.added' && event.item.type === 'function_call') {
          calls.set(event.output_index, event.item);
        } else if (event.type === 'response.function_call_arguments.done') {
          const item = calls.get(event.output_index);
          const p = parseAny(event.arguments);
          if (item && p.ok) ctx.exec({ tool: item.name, call: item.call_id, args: p.v });
        }
      }
    },
  },
  {
    name: 'openai-node-responses-careful',
    module: 'openai',
    protocol: 'openai-responses',
    idiom: 'responses.stream(...).finalResponse(); if status === "completed", run each function_call of output whose arguments JSON.parse to an object',
    docs:
      'openai-node, `ResponseStream.finalResponse()`: resolves with the final response built from the stream; the Responses API reference: status "completed" means the response finished.',
    async run(ctx) {
      const stream = client(ctx).responses.stream(
        { model: 'gpt-peer', input: prompt, tools: responsesTools(ctx) },
        { signal: ctx.signal },
      );
      const resp = await stream.finalResponse();
      if (resp.status !== 'completed') return;
      for (const item of resp.output ?? []) {
        if (item.type !== 'function_call') continue;
        const args = parseObject(item.arguments);
        if (args !== undefined) ctx.exec({ tool: item.name, call: item.call_id, args });
      }
    },
  },
];
