// The loopback server and the stepped fetch: one SSE event handed to the
// SDK each time its body reader asks for more, so that every tool execution
// can be stamped with how far into the body the SDK had read.

import http from 'node:http';

/**
 * A run's body as the server sends it, and where the SDK stands in it.
 * `events` are Buffers; `reset` breaks the connection after the last one
 * instead of ending the body cleanly; `followUp` answers every later
 * request of the run (a tool runner's next turn).
 */
export class Session {
  constructor(id, events, reset, followUp) {
    this.id = id;
    this.events = events;
    this.reset = reset;
    this.followUp = followUp;
    this.requests = 0;
    this.got = 0; // bytes of the body handed to the SDK
    this.eof = false; // the SDK was told the body ended (clean end or reset)
    this.over = false; // the run is finished: late requests and executions are ignored
    this.waiting = null; // the first request's handler waiting for an ask
    this.asks = 0; // asks not yet served
    this.res = null; // the first request's response, to break it when the run is abandoned
  }

  /** Whole events handed to the SDK. */
  delivered() {
    let n = 0;
    let sum = 0;
    for (const ev of this.events) {
      if (sum + ev.length > this.got) break;
      sum += ev.length;
      n++;
    }
    return n;
  }

  /** The SDK asks for the next event (or the end). */
  ask() {
    this.asks++;
    if (this.waiting) {
      const w = this.waiting;
      this.waiting = null;
      w();
    }
  }

  next() {
    if (this.asks > 0) {
      this.asks--;
      return Promise.resolve();
    }
    return new Promise((resolve) => {
      this.waiting = () => {
        this.asks--;
        resolve();
      };
    });
  }

  /** Abandon the run: its body breaks and anything the SDK does later is ignored. */
  end() {
    this.over = true;
    if (this.res && !this.res.writableEnded) this.res.destroy();
    if (this.waiting) {
      const w = this.waiting;
      this.waiting = null;
      w();
    }
  }
}

/** The loopback server: requests under /r<run>/ belong to that run's session. */
export class Server {
  constructor() {
    this.sessions = new Map();
    this.srv = http.createServer((req, res) => this.handle(req, res));
    this.srv.keepAliveTimeout = 1000;
  }

  listen() {
    return new Promise((resolve, reject) => {
      this.srv.once('error', reject);
      this.srv.listen(0, '127.0.0.1', () => {
        this.port = this.srv.address().port;
        resolve(this);
      });
    });
  }

  close() {
    this.srv.closeAllConnections?.();
    this.srv.close();
  }

  /** The base URL of a run: every request under it is served from its session. */
  baseURL(sess) {
    return `http://127.0.0.1:${this.port}/r${sess.id}`;
  }

  start(sess) {
    this.sessions.set(String(sess.id), sess);
  }

  finish(sess) {
    sess.end();
    this.sessions.delete(String(sess.id));
  }

  async handle(req, res) {
    for await (const _ of req); // the request body: read and dropped
    const m = /^\/r(\d+)(\/|$)/.exec(req.url);
    const sess = m && this.sessions.get(m[1]);
    if (!sess || sess.over) {
      res.writeHead(410, { 'content-type': 'application/json' });
      res.end('{"error":{"message":"this run is over","type":"peer_harness"}}');
      return;
    }
    sess.requests++;
    const headers = { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', 'request-id': 'req_peer', 'x-request-id': 'req_peer' };
    if (sess.requests > 1) {
      res.writeHead(200, headers);
      res.end(sess.followUp);
      return;
    }
    sess.res = res;
    res.writeHead(200, { ...headers, 'x-peer-body': 'stepped' });
    res.flushHeaders();
    res.socket?.setNoDelay(true);
    for (let i = 0; i <= sess.events.length; i++) {
      await sess.next();
      if (sess.over) return;
      if (i === sess.events.length) break;
      res.write(sess.events[i]);
    }
    if (sess.reset) {
      res.destroy(); // the connection breaks mid-body
      return;
    }
    res.end();
  }
}

/**
 * steppedFetch is the `fetch` every idiom hands its SDK: Node's own fetch
 * to the loopback server, with the first response's body re-exposed as a
 * pull ReadableStream (highWaterMark 0) that asks the server for one more
 * SSE event only when the SDK's reader wants bytes it does not have.
 */
export function steppedFetch(sess) {
  return async (input, init) => {
    const res = await fetch(input, init);
    if (res.headers.get('x-peer-body') !== 'stepped' || !res.body) return res;
    const reader = res.body.getReader();
    let asked = 0; // events asked for; events.length + 1 asks for the end
    let bound = 0; // bytes the server has been asked to send
    let read = 0; // bytes read from the connection
    let held = []; // bytes read, not yet handed over
    const body = new ReadableStream(
      {
        async pull(ctrl) {
          if (read >= bound && asked <= sess.events.length) {
            if (asked < sess.events.length) bound += sess.events[asked].length;
            asked++;
            sess.ask();
          }
          try {
            while (read < bound) {
              const { done, value } = await reader.read();
              if (done) break;
              held.push(value);
              read += value.length;
            }
            if (held.length > 0) {
              const chunk = Buffer.concat(held);
              held = [];
              sess.got += chunk.length;
              ctrl.enqueue(new Uint8Array(chunk.buffer, chunk.byteOffset, chunk.length));
              return;
            }
            const { done, value } = await reader.read();
            if (done) {
              sess.eof = true;
              ctrl.close();
              return;
            }
            // more bytes than asked for: hand them over as they are
            read += value.length;
            sess.got += value.length;
            ctrl.enqueue(value);
          } catch (err) {
            sess.eof = true;
            ctrl.error(err);
          }
        },
        cancel(reason) {
          return reader.cancel(reason);
        },
      },
      { highWaterMark: 0 },
    );
    return new Response(body, { status: res.status, statusText: res.statusText, headers: res.headers });
  };
}
