// The control: the body read through the same stepped fetch with no SDK,
// every read returned with its stamp, for Go to decode with wire and gate
// with the project's gate.

async function readAll(ctx) {
  const res = await ctx.fetch(`${ctx.baseURL}/v1/raw`, { method: 'POST', body: '{}', signal: ctx.signal });
  const reader = res.body.getReader();
  for (;;) {
    let r;
    try {
      r = await reader.read();
    } catch (e) {
      ctx.read(new Uint8Array(0));
      throw e;
    }
    if (r.done) {
      ctx.read(new Uint8Array(0));
      return undefined;
    }
    ctx.read(r.value);
  }
}

export const idioms = ['openai-chat', 'openai-responses', 'anthropic'].map((protocol) => ({
  name: `raw/${protocol}`,
  module: 'github.com/sealgate/sealgate',
  protocol,
  control: true,
  idiom: 'no SDK: the body read through the stepped fetch, each read returned with its stamp; Go decodes it with wire and gates it',
  docs: 'SPEC.md: a call is released only after its end and its attempt\'s close complete, with its own bytes, strictly valid, compacted.',
  run: readAll,
}));
