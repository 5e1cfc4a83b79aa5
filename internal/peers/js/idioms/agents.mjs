// The OpenAI Agents SDK (`@openai/agents`): an Agent with function tools,
// run streamed over the Responses API, the stream read to its end, then the
// run awaited.

import OpenAI from 'openai';
import { Agent, OpenAIProvider, Runner, tool } from '@openai/agents';

export const idioms = [
  {
    name: 'openai-agents',
    module: '@openai/agents',
    protocol: 'openai-responses',
    idiom: 'run(new Agent({tools: [tool({parameters, strict: false, execute})]}), input, {stream: true}): for await over the result, then await result.completed',
    docs:
      '@openai/agents, running agents: "the runner ... calls the LLM ... If the LLM returns tool calls, the runner executes those tool calls, appends the results, and re-runs the loop"; ' +
      'streaming: "you can await stream.completed to be sure everything is finished".',
    async run(ctx) {
      const client = new OpenAI({ baseURL: `${ctx.baseURL}/v1`, apiKey: 'sk-peer-offline', fetch: ctx.fetch, maxRetries: 0 });
      const runner = new Runner({
        modelProvider: new OpenAIProvider({ openAIClient: client, useResponses: true }),
        tracingDisabled: true,
      });
      const agent = new Agent({
        name: 'peer',
        instructions: 'Answer with the tools.',
        model: 'gpt-peer',
        tools: ctx.tools.map((name) =>
          tool({
            name,
            description: `the ${name} tool`,
            parameters: { type: 'object', properties: {}, required: [], additionalProperties: true },
            strict: false,
            execute: async (input, _runContext, details) => {
              ctx.exec({ tool: name, call: details?.toolCall?.callId, args: input });
              return 'ok';
            },
          }),
        ),
      });
      const result = await runner.run(agent, 'What is the weather in Paris?', { stream: true, maxTurns: 3, signal: ctx.signal });
      for await (const _ of result) {
        // the events are the application's to show; the tools run inside the runner
      }
      await result.completed;
      if (result.error) throw result.error;
    },
  },
];
