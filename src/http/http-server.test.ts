import { createServer, type Server, type ServerResponse } from 'node:http';
import { connect } from 'node:net';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { describe, expect, it } from 'vitest';
import { DrainingServer } from './http-server.js';
import { DEFAULT_HTTP_LIMITS } from './limits.js';

/** Larger than any socket buffer on the way, so the answer is still being sent at close(). */
const BODY = 'x'.repeat(8_000_000);

function listen(server: Server): Promise<number> {
  return new Promise((resolve) => {
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      resolve(typeof address === 'object' && address !== null ? address.port : 0);
    });
  });
}

describe('DrainingServer', () => {
  it('closes without cutting an answer that is still being sent to a slow reader', async () => {
    const server = new DrainingServer(DEFAULT_HTTP_LIMITS, (_request, response) => {
      response.setHeader('content-length', BODY.length);
      response.end(BODY);
    });
    const port = await listen(server);
    const socket = connect(port, '127.0.0.1');
    const received: Buffer[] = [];
    await new Promise<void>((resolve) => {
      socket.once('data', (chunk: Buffer) => {
        received.push(chunk);
        socket.pause();
        resolve();
      });
      socket.write('GET / HTTP/1.1\r\nHost: x\r\n\r\n');
    });
    // Node's own server.close() would destroy this socket here (its response has ended).
    const closed = new Promise<void>((resolve) => server.close(() => resolve()));
    // Node's close() would have cut the socket synchronously, inside close(): no need to wait.
    expect(server.draining).toBe(true);
    const whole = new Promise<string>((resolve) => {
      socket.on('data', (chunk: Buffer) => received.push(chunk));
      socket.on('end', () => resolve(Buffer.concat(received).toString('latin1')));
      socket.resume();
    });
    const text = await whole;
    expect(text.length - text.indexOf('\r\n\r\n') - 4).toBe(BODY.length);
    await closed;
  });

  it('closes idle keep-alive connections at once', async () => {
    const server = new DrainingServer(DEFAULT_HTTP_LIMITS, (_request, response) => response.end('ok'));
    const port = await listen(server);
    const socket = connect(port, '127.0.0.1');
    const ended = new Promise<string>((resolve) => {
      let text = '';
      socket.on('data', (chunk) => {
        text += String(chunk);
      });
      socket.on('close', () => resolve(text));
    });
    socket.write('GET / HTTP/1.1\r\nHost: x\r\n\r\n');
    await expect.poll(() => socket.bytesRead).toBeGreaterThan(0);
    const started = Date.now();
    await new Promise<void>((resolve) => server.close(() => resolve()));
    // At once, not when its keep-alive timeout (72 s) runs out; the bound leaves a busy machine room.
    expect(DEFAULT_HTTP_LIMITS.keepAliveTimeoutMs).toBeGreaterThanOrEqual(60_000);
    expect(Date.now() - started).toBeLessThan(20_000);
    expect(await ended).toMatch(/^HTTP\/1\.1 200 [\s\S]*\r\n\r\nok$/);
  });

  it('waits for answers still being made, pipelined ones included, then closes their connection', async () => {
    let requests = 0;
    const server = new DrainingServer(DEFAULT_HTTP_LIMITS, (request, response) => {
      requests += 1;
      // Answered later: at close() the first response is neither ended nor flushed.
      setTimeout(() => response.end(`answer ${request.url}`), 150);
    });
    const port = await listen(server);
    const socket = connect(port, '127.0.0.1');
    const ended = new Promise<string>((resolve) => {
      let text = '';
      socket.on('data', (chunk) => {
        text += String(chunk);
      });
      socket.on('close', () => resolve(text));
    });
    socket.write('GET /one HTTP/1.1\r\nHost: x\r\n\r\nGET /two HTTP/1.1\r\nHost: x\r\n\r\n');
    await expect.poll(() => requests).toBeGreaterThan(0);
    const closed = new Promise<void>((resolve) => server.close(() => resolve()));
    const text = await ended;
    expect(text).toMatch(/\r\n\r\nanswer \/one/);
    expect(text).toMatch(/\r\n\r\nanswer \/two$/);
    await closed;
  });

  it("adds no listener of its own to a response's 'finish', where Node has its own", async () => {
    // One after Node's made V8 keep every poller's request and response alive through each
    // young-generation collection (docs/benchmarks.md, "Live pollers"): the count is Node's alone.
    const finishListeners = async (server: Server) => {
      const counted = new Promise<number>((resolve) => {
        server.on('request', (_request, response: ServerResponse) => {
          resolve(response.listenerCount('finish'));
          response.end('ok');
        });
      });
      const socket = connect(await listen(server), '127.0.0.1');
      socket.write('GET / HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n');
      const count = await counted;
      socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      return count;
    };
    const node = await finishListeners(createServer());
    expect(node).toBeGreaterThan(0);
    expect(await finishListeners(new DrainingServer(DEFAULT_HTTP_LIMITS, () => {}))).toBe(node);
  });

  it("keeps nothing of a kept-alive connection's answered request until its next one", async () => {
    // A full collection on demand, without starting the test process with --expose-gc.
    setFlagsFromString('--expose-gc');
    const collect = runInNewContext('gc') as () => void;
    const answered: WeakRef<object>[] = [];
    const server = new DrainingServer(DEFAULT_HTTP_LIMITS, (request, response) => {
      answered.push(new WeakRef(response), new WeakRef(request));
      response.end('ok');
    });
    const port = await listen(server);
    const socket = connect(port, '127.0.0.1');
    let text = '';
    socket.on('data', (chunk) => {
      text += String(chunk);
    });
    socket.write('GET / HTTP/1.1\r\nHost: x\r\n\r\n');
    await expect.poll(() => text).toMatch(/\r\n\r\nok$/);
    // The connection stays open and idle: its answered request and response must be garbage.
    await expect
      .poll(async () => {
        await new Promise((resolve) => setImmediate(resolve));
        collect();
        return answered.filter((ref) => ref.deref() !== undefined).length;
      })
      .toBe(0);
    expect(answered).toHaveLength(2);
    const closed = new Promise<void>((resolve) => server.close(() => resolve()));
    await closed;
    socket.destroy();
  });

  describe('keep-alive timeout, applied by the sweep instead of a timer per answer', () => {
    // Node closes an idle kept-alive connection after keepAliveTimeout plus a margin of its own (1 s).
    const limits = { ...DEFAULT_HTTP_LIMITS, keepAliveTimeoutMs: 500 };

    /** A raw connection to the server: its text so far, and when it closed (undefined while open). */
    function client(port: number) {
      const socket = connect(port, '127.0.0.1');
      const state = { text: '', closedAt: undefined as number | undefined };
      socket.on('data', (chunk) => {
        state.text += String(chunk);
      });
      socket.on('close', () => {
        state.closedAt = Date.now();
      });
      const ask = async (answers: number) => {
        socket.write('GET / HTTP/1.1\r\nHost: x\r\n\r\n');
        await expect.poll(() => state.text.split('\r\n\r\nok').length - 1).toBe(answers);
      };
      return { socket, state, ask };
    }

    it('closes a kept-alive connection left idle, no sooner than Node would and soon after', async () => {
      const server = new DrainingServer(limits, (_request, response) => response.end('ok'));
      const { state, ask } = client(await listen(server));
      await ask(1);
      const answered = Date.now();
      // The header is still Node's, from the server's keep-alive timeout.
      expect(state.text).toMatch(/\r\nKeep-Alive: timeout=0\r\n/);
      await expect.poll(() => state.closedAt, { timeout: 10_000, interval: 20 }).toBeDefined();
      const idle = (state.closedAt ?? 0) - answered;
      expect(idle).toBeGreaterThanOrEqual(1_400);
      expect(idle).toBeLessThan(6_000);
      await new Promise<void>((resolve) => server.close(() => resolve()));
    });

    it('keeps a connection that polls more often than the timeout open', async () => {
      const server = new DrainingServer(limits, (_request, response) => response.end('ok'));
      const { socket, state, ask } = client(await listen(server));
      const started = Date.now();
      let answers = 0;
      // Twice Node's limit in all, never idle for longer than a fifth of it.
      while (Date.now() - started < 3_000) {
        answers += 1;
        await ask(answers);
        await new Promise((resolve) => setTimeout(resolve, 300));
      }
      expect(state.closedAt).toBeUndefined();
      socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    });

    it("leaves a socket timeout with a callback to Node's own timer", async () => {
      let timedOut = 0;
      // Not answered: the timeout runs out first (an answer would replace it with Node's keep-alive one).
      const server = new DrainingServer(DEFAULT_HTTP_LIMITS, (request) => {
        request.socket.setTimeout(200, () => {
          timedOut += 1;
          request.socket.destroy();
        });
      });
      const { socket, state } = client(await listen(server));
      socket.write('GET / HTTP/1.1\r\nHost: x\r\n\r\n');
      await expect.poll(() => state.closedAt, { timeout: 5_000 }).toBeDefined();
      expect(timedOut).toBe(1);
      await new Promise<void>((resolve) => server.close(() => resolve()));
    });
  });
});
