// The JavaScript peer process of `sealfuzz peers`: JSON lines on stdin and
// stdout, one request at a time (docs/research/peers/javascript.md). It
// writes a hello line listing its idioms, then for each request serves the
// body on 127.0.0.1 one SSE event per read, runs the idiom with a time
// limit, and answers with each tool execution stamped with how far into the
// body the SDK had read. Everything else (the bodies, what they mean, the
// judge) stays in Go.

import readline from 'node:readline';
import { createRequire } from 'node:module';
import { Server, Session, steppedFetch } from './serve.mjs';
import { idioms as vercel } from './idioms/vercel.mjs';
import { idioms as openaiNode } from './idioms/openai-node.mjs';
import { idioms as anthropic } from './idioms/anthropic.mjs';
import { idioms as langchain } from './idioms/langchain.mjs';
import { idioms as agents } from './idioms/agents.mjs';
import { idioms as raw } from './idioms/raw.mjs';

const all = [...vercel, ...openaiNode, ...anthropic, ...langchain, ...agents, ...raw];
const byName = new Map(all.map((p) => [p.name, p]));
byName.set('raw', raw[0]); // the control reads bytes: any protocol's raw idiom reads the same
const require = createRequire(import.meta.url);

/** The installed version of an npm package, from its package.json. */
function version(pkg) {
  if (!pkg) return '';
  try {
    return require(`${pkg}/package.json`).version;
  } catch {
    try {
      // packages whose exports map hides package.json
      const main = require.resolve(pkg);
      const i = main.lastIndexOf(`/node_modules/${pkg}/`);
      return require(main.slice(0, i + `/node_modules/${pkg}/`.length) + 'package.json').version;
    } catch {
      return '';
    }
  }
}

// What is running now, so that an uncaught exception or an unhandled
// rejection can be charged to it.
let current = null;

function charge(kind, err) {
  const text = `${kind}: ${err && err.stack ? err.stack : String(err)}`.split('\n').slice(0, 12).join('\n');
  if (current && !current.crash) {
    current.crash = text;
    current.settle();
  } else {
    process.stderr.write(`harness: ${text}\n`);
  }
}
process.on('uncaughtException', (err) => charge('uncaught exception', err));
process.on('unhandledRejection', (err) => charge('unhandled rejection', err));

function out(obj) {
  process.stdout.write(JSON.stringify(obj) + '\n');
}

/** A value a tool was given, as the protocol carries it. */
function argsOf(v) {
  if (typeof v === 'string') return { args: v, object: false };
  const s = JSON.stringify(v);
  return { args: s === undefined ? '' : s, object: true };
}

function errorText(e) {
  if (e == null) return '';
  if (e instanceof Error) {
    const cause = e.cause instanceof Error ? ` (cause: ${e.cause.message})` : '';
    return `${e.name}: ${e.message}${cause}`;
  }
  return typeof e === 'string' ? e : JSON.stringify(e) ?? String(e);
}

async function run(server, req) {
  const peer = byName.get(req.peer);
  const reply = { run: req.run, executions: [], error: '', crash: '', hung: false };
  if (!peer) {
    reply.error = `harness: no idiom named ${JSON.stringify(req.peer)}`;
    reply.crash = reply.error;
    return reply;
  }
  const events = (req.events ?? []).map((e) => Buffer.from(e, 'base64'));
  const followUp = Buffer.from(req.followUp ?? '', 'base64');
  const sess = new Session(req.run, events, Boolean(req.reset), followUp);
  server.start(sess);
  const ctl = new AbortController();
  const state = { crash: '', settle: null };
  const settled = new Promise((resolve) => {
    state.settle = resolve;
  });
  current = state;
  const exec = (x) => {
    if (sess.over) return;
    reply.executions.push({
      tool: x.tool ?? '',
      call: x.call ?? '',
      ...argsOf(x.args),
      attempt: x.attempt ?? '',
      item: x.item ?? '',
      delivered: sess.delivered(),
      eof: sess.eof,
    });
  };
  const reads = [];
  const ctx = {
    baseURL: server.baseURL(sess),
    fetch: steppedFetch(sess),
    tools: req.tools ?? [],
    signal: ctl.signal,
    exec,
    read: (bytes) => reads.push({ bytes: Buffer.from(bytes).toString('base64'), delivered: sess.delivered(), eof: sess.eof }),
  };
  let timer;
  const timeout = new Promise((resolve) => {
    timer = setTimeout(() => resolve('hung'), req.timeoutMs > 0 ? req.timeoutMs : 20000);
  });
  const ran = (async () => peer.run(ctx))().then(
    (err) => ({ err }),
    (err) => ({ err }),
  );
  const res = await Promise.race([ran, timeout, settled.then(() => 'crash')]);
  clearTimeout(timer);
  if (res === 'hung') {
    reply.hung = true;
  } else if (res === 'crash') {
    reply.crash = state.crash;
  } else if (res.err) {
    reply.error = errorText(res.err);
  }
  reply.delivered = sess.delivered();
  reply.eof = sess.eof;
  ctl.abort();
  server.finish(sess);
  current = null;
  if (peer.control) reply.reads = reads;
  return reply;
}

async function main() {
  const server = await new Server().listen();
  out({
    hello: {
      runtime: `node ${process.version}`,
      peers: all.map((p) => ({
        name: p.name,
        module: p.module,
        version: version(p.module),
        protocol: p.protocol,
        idiom: p.idiom,
        docs: p.docs,
        control: Boolean(p.control),
        raw: Boolean(p.control),
      })),
    },
  });
  const rl = readline.createInterface({ input: process.stdin, crlfDelay: Infinity });
  for await (const line of rl) {
    if (line.trim() === '') continue;
    let req;
    try {
      req = JSON.parse(line);
    } catch (e) {
      out({ run: null, executions: [], error: `harness: a request line is not JSON: ${e.message}`, crash: '', hung: false });
      continue;
    }
    out(await run(server, req));
  }
  server.close();
}

main().catch((e) => {
  process.stderr.write(`harness: ${e.stack ?? e}\n`);
  process.exit(1);
});
