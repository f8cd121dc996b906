import { type ChildProcess, spawn } from 'node:child_process';
import { EventEmitter } from 'node:events';
import { closeSync, existsSync, mkdtempSync, openSync, rmSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { connect, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { fileURLToPath } from 'node:url';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { seededStore } from '../../test/fixtures.js';
import { waitFor } from '../../test/wait-for.js';
import { createApiKey } from '../http/api-keys.js';
import { buildApp } from '../http/app.js';
import { openStore } from '../store/open-store.js';
import { openSqliteStore } from '../store/sqlite/open-sqlite-store.js';
import type { CliIo } from './cli-io.js';
import { startDemo } from './demo.js';
import { startServer } from './serve.js';
import { drainApp, runUntilSignal, type SignalSource } from './shutdown.js';

/**
 * Graceful shutdown over real sockets: requests in flight are answered in full, new
 * connections are refused, the grace period bounds the wait, and the store is intact. The
 * last suite runs the built CLI as a child process and sends it a real SIGTERM.
 */

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const LOADER = new URL('../../test/typescript-loader.mjs', import.meta.url).href;
let dir: string;
let db: string;
let key: string;
let version: number;
/** The largest answer of the seeded history (~400 KB): it outlasts the socket buffers. */
let bigPath: string;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'gridquote-shutdown-'));
  db = join(dir, 'market.db');
  const { store, dates } = seededStore({ days: 2, path: db });
  // Unlimited: the tests send bursts, and the rate limiter is not what they are about.
  const created = createApiKey({ level: 'historical', now: new Date(), perSecond: 0, perMinute: 0 });
  await store.keys.insertKey(created.record);
  key = created.key;
  version = await store.reader.version();
  bigPath = `/api/data?options=au_electricity&date=${dates.at(-1)}`;
  await store.close();
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

interface Answer {
  readonly status: number;
  readonly body: string;
  readonly complete: boolean;
}

/** One GET on its own connection (no agent, no keep-alive pool). */
function get(base: string, path: string): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(`${base}${path}`, { agent: false, headers: { authorization: `Bearer ${key}` } });
    req.on('response', (response) => {
      let body = '';
      response.setEncoding('utf8');
      response.on('data', (chunk: string) => {
        body += chunk;
      });
      response.on('end', () => {
        const length = Number(response.headers['content-length']);
        resolve({ status: response.statusCode ?? 0, body, complete: Buffer.byteLength(body) === length });
      });
      response.on('error', reject);
    });
    req.on('error', reject);
    req.end();
  });
}

/** Whether a new TCP connection is refused (ECONNREFUSED) rather than accepted. */
function refused(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    socket.on('connect', () => {
      socket.destroy();
      resolve(false);
    });
    socket.on('error', (error: NodeJS.ErrnoException) => resolve(error.code === 'ECONNREFUSED'));
  });
}

/**
 * A client that sends a request and stops reading once the answer has started: its request
 * is accepted and answered, but the answer is still on its way when the server is told to stop.
 */
interface SlowReader {
  /** Resolves once the first bytes of the answer have arrived. */
  readonly started: Promise<void>;
  /** Reads the rest; resolves with the whole raw answer when the server closes. */
  finish(): Promise<string>;
}

function slowReader(port: number, path: string, pipelined = 1, bearer = key): SlowReader {
  const socket: Socket = connect(port, '127.0.0.1');
  const chunks: Buffer[] = [];
  // Listened for from the start: a paused socket whose buffer is empty still emits 'end' when the
  // server closes, which may happen before finish() is called (a short answer, a quick shutdown).
  const closed = new Promise<string>((resolve, reject) => {
    socket.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    socket.on('error', reject);
  });
  closed.catch(() => undefined); // rejections reach whoever calls finish()
  let reading = false;
  const started = new Promise<void>((resolve, reject) => {
    socket.once('data', (chunk: Buffer) => {
      chunks.push(chunk);
      socket.pause();
      resolve();
    });
    socket.once('error', reject);
  });
  socket.write(
    `GET ${path} HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${bearer}\r\n\r\n`.repeat(pipelined),
  );
  return {
    started,
    finish() {
      if (!reading) {
        reading = true;
        socket.on('data', (chunk: Buffer) => chunks.push(chunk));
        socket.resume();
      }
      return closed;
    },
  };
}

/** A raw HTTP/1.1 answer with a Content-Length: status 200 and every byte of the body there. */
function expectComplete200(raw: string): void {
  const split = raw.indexOf('\r\n\r\n');
  const head = raw.slice(0, split);
  const body = raw.slice(split + 4);
  expect(head).toMatch(/^HTTP\/1\.1 200 /);
  const length = Number(/\r\ncontent-length: (\d+)/i.exec(head)?.[1]);
  expect(Buffer.byteLength(body)).toBe(length);
  expect(() => JSON.parse(body)).not.toThrow();
}

function portOf(url: string): number {
  return Number(new URL(url).port);
}

async function expectStoreIntact(): Promise<void> {
  const check = new Database(db, { readonly: true });
  try {
    expect(check.pragma('integrity_check', { simple: true })).toBe('ok');
  } finally {
    check.close();
  }
  const store = openSqliteStore(db);
  try {
    expect(await store.reader.version()).toBe(version);
    expect(await store.reader.latestDate()).toBeDefined();
  } finally {
    await store.close();
  }
}

describe('drainApp', () => {
  it('lets requests in the middle of being handled finish, while refusing new connections', async () => {
    const store = openSqliteStore(db);
    const app = buildApp({ reader: store.reader, keys: store.keys });
    let arrived = 0;
    let release = () => {};
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    // Holds every request inside the pipeline: they are truly in flight when the drain starts.
    app.addHook('onRequest', async () => {
      arrived++;
      await gate;
    });
    const base = await app.listen({ port: 0, host: '127.0.0.1' });
    const answers = Array.from({ length: 12 }, () => get(base, '/api/epi'));
    await expect.poll(() => arrived, { timeout: 20_000 }).toBe(12);

    const drained = drainApp(app, 5_000);
    await expect.poll(() => refused(portOf(base)), { timeout: 20_000 }).toBe(true);
    release();
    for (const answer of await Promise.all(answers)) {
      expect(answer.status).toBe(200);
      expect(answer.complete).toBe(true);
    }
    expect(await drained).toEqual({ forced: false });
    await store.close();
    await expectStoreIntact();
  });

  it('cuts a request still stuck after the grace period, so shutdown is bounded', async () => {
    const store = openSqliteStore(db);
    const app = buildApp({ reader: store.reader, keys: store.keys });
    let arrived = 0;
    app.addHook('onRequest', () => {
      arrived++;
      return new Promise<void>(() => {});
    });
    const base = await app.listen({ port: 0, host: '127.0.0.1' });
    const stuck = get(base, '/api/epi').catch((error: Error) => error);
    await waitFor('the request to reach the app', () => arrived === 1);
    const started = Date.now();
    // The request never finishes by itself: that the drain returns at all shows it was cut,
    // and not before the grace period (timers never fire early; 10 ms for clock rounding).
    expect(await drainApp(app, 300)).toEqual({ forced: true });
    expect(Date.now() - started).toBeGreaterThanOrEqual(290);
    expect(await stuck).toBeInstanceOf(Error);
    await store.close();
  });
});

describe('startServer + runUntilSignal', () => {
  it('on SIGTERM, finishes answers still being sent to slow readers, then closes the store', async () => {
    const server = await startServer({
      db,
      port: 0,
      host: '127.0.0.1',
      logLevel: false,
      shutdownGraceMs: 10_000,
    });
    const signals = new EventEmitter();
    const log: string[] = [];
    const running = runUntilSignal(
      { stop: (hurry) => server.close(hurry) },
      (line) => log.push(line),
      10_000,
      signals as SignalSource,
    );
    const port = portOf(server.url);
    const readers = Array.from({ length: 16 }, () => slowReader(port, bigPath));
    await Promise.all(readers.map((reader) => reader.started));

    signals.emit('SIGTERM');
    await expect.poll(() => refused(port), { timeout: 20_000 }).toBe(true);
    // The readers resume only now, after the drain began: their answers arrive whole.
    for (const raw of await Promise.all(readers.map((reader) => reader.finish()))) expectComplete200(raw);
    await running;
    expect(log).toEqual(['SIGTERM: stopping; requests in flight have 10000 ms to finish', 'stopped']);
    await expect(server.store.reader.version()).rejects.toThrow();
    await expectStoreIntact();
  });

  it('a second signal cuts the connections at once rather than waiting out the grace period', async () => {
    const server = await startServer({
      db,
      port: 0,
      host: '127.0.0.1',
      logLevel: false,
      shutdownGraceMs: 60_000,
    });
    const signals = new EventEmitter();
    const log: string[] = [];
    const running = runUntilSignal(
      { stop: (hurry) => server.close(hurry) },
      (line) => log.push(line),
      60_000,
      signals as SignalSource,
    );
    // Many pipelined big answers: more than the socket buffers hold, so the drain cannot finish.
    const reader = slowReader(portOf(server.url), bigPath, 40);
    await reader.started;
    signals.emit('SIGINT');
    // The stop has begun (and listens for a second signal) once it has said so.
    await waitFor('the first signal to start the stop', () => log.length === 1);
    signals.emit('SIGINT');
    await running;
    expect(log.slice(1)).toEqual([
      'signal received again: closing open connections now',
      'stopped; connections still open after the grace period were cut',
    ]);
    await reader.finish().catch(() => '');
    await expectStoreIntact();
  });
});

describe('runUntilSignal', () => {
  it('stops a service that failed by itself, says why, and returns the reason', async () => {
    const signals = new EventEmitter();
    const log: string[] = [];
    let stopped = 0;
    let fail: (reason: string) => void = () => undefined;
    const failed = new Promise<string>((resolve) => {
      fail = resolve;
    });
    const running = runUntilSignal(
      {
        stop: async () => {
          stopped += 1;
          return { forced: false };
        },
        failed,
      },
      (line) => log.push(line),
      5_000,
      signals as SignalSource,
    );
    // A signal before the failure would have stopped it: nothing has happened yet.
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(stopped).toBe(0);
    fail('its exchange was taken');
    expect(await running).toBe('its exchange was taken');
    expect(stopped).toBe(1);
    expect(log).toEqual([
      'its exchange was taken; stopping, requests in flight have 5000 ms to finish',
      'stopped',
    ]);
    // Its signal handlers are gone with it.
    expect(signals.listenerCount('SIGTERM') + signals.listenerCount('SIGINT')).toBe(0);
  });

  it('returns no reason when a signal stopped the service', async () => {
    const signals = new EventEmitter();
    const running = runUntilSignal(
      { stop: async () => ({ forced: false }), failed: new Promise<string>(() => undefined) },
      () => undefined,
      5_000,
      signals as SignalSource,
    );
    signals.emit('SIGTERM');
    expect(await running).toBeUndefined();
    expect(signals.listenerCount('SIGTERM') + signals.listenerCount('SIGINT')).toBe(0);
  });
});

describe('the demo', () => {
  it('on SIGTERM stops the live exchange, drains, closes the store and leaves it intact', async () => {
    const demoDb = join(dir, 'demo.db');
    const stderr = new PassThrough();
    let errors = '';
    stderr.on('data', (chunk) => {
      errors += String(chunk);
    });
    const io: CliIo = {
      stdout: new PassThrough(),
      stderr,
      stdin: new PassThrough().end(),
      now: () => new Date(),
      openStore,
    };
    const demo = await startDemo(io, {
      db: demoDb,
      port: 0,
      host: '127.0.0.1',
      days: 2,
      seed: 5,
      speed: 20_000,
      shutdownGraceMs: 5_000,
    });
    const signals = new EventEmitter();
    const log: string[] = [];
    const running = runUntilSignal(
      { stop: (hurry) => demo.stop(hurry) },
      (line) => log.push(line),
      5_000,
      signals as SignalSource,
    );
    const reader = slowReader(portOf(demo.server.url), '/api/epi', 1, demo.keys.historical);
    await reader.started;
    signals.emit('SIGTERM');
    await running;
    expectComplete200(await reader.finish());
    expect(log).toEqual(['SIGTERM: stopping; requests in flight have 5000 ms to finish', 'stopped']);
    // Had the live feed outlived the store, its next tick (every 250 ms) would fail and report
    // it on stderr. A check that something does not happen needs some time to pass; this wait
    // can only miss a fault, never fail a good run.
    await new Promise((resolve) => setTimeout(resolve, 750));
    expect(errors).not.toMatch(/^live: (?!trading day|replaying)/m);
    const check = new Database(demoDb, { readonly: true });
    try {
      expect(check.pragma('integrity_check', { simple: true })).toBe('ok');
    } finally {
      check.close();
    }
  });
});

describe('the gridquote serve process', () => {
  function spawnServe(
    args: readonly string[],
    env: Record<string, string> = {},
    stdout: 'pipe' | number = 'pipe',
  ): ChildProcess {
    // Straight from the sources (test/typescript-loader.mjs): no build, no type check here.
    return spawn(
      process.execPath,
      ['--import', LOADER, join(ROOT, 'src', 'cli', 'main.ts'), 'serve', ...args],
      {
        env: { PATH: process.env.PATH ?? '', LOG_LEVEL: 'warn', ...env },
        stdio: ['ignore', stdout, 'pipe'],
      },
    );
  }

  function collect(child: ChildProcess): { text: () => string; exit: Promise<number | null> } {
    let text = '';
    child.stderr?.on('data', (chunk) => {
      text += String(chunk);
    });
    const exit = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
    return { text: () => text, exit };
  }

  // --workers 2: the primary tells both workers to drain; the answers in flight are spread over them.
  it.each([1, 2])(
    'drains on SIGTERM with %i worker(s): accepted requests get complete answers, then refusal, exit 0, store intact',
    async (workers) => {
      const child = spawnServe([
        '--db',
        db,
        '--port',
        '0',
        '--shutdown-grace-ms',
        '10000',
        '--workers',
        String(workers),
      ]);
      const stderr = collect(child);
      await expect.poll(() => stderr.text(), { timeout: 20_000 }).toMatch(/at http:\/\/127\.0\.0\.1:\d+/);
      const base = /at (http:\/\/127\.0\.0\.1:\d+)/.exec(stderr.text())?.[1] ?? '';
      const port = portOf(base);

      // Answers on their way to slow readers, and a steady stream of new requests meanwhile.
      const readers = Array.from({ length: 12 }, () => slowReader(port, bigPath));
      await Promise.all(readers.map((reader) => reader.started));
      let stopped = false;
      const outcomes: (Answer | Error)[] = [];
      const clients = Array.from({ length: 4 }, async () => {
        while (!stopped) outcomes.push(await get(base, '/api/epi?format=csv').catch((error: Error) => error));
      });
      await waitFor('the clients to get answers', () => outcomes.length >= 8);

      child.kill('SIGTERM');
      await expect.poll(() => refused(port), { timeout: 20_000 }).toBe(true);
      stopped = true;
      await Promise.all(clients);
      for (const raw of await Promise.all(readers.map((reader) => reader.finish()))) expectComplete200(raw);

      expect(await stderr.exit).toBe(0);
      expect(stderr.text()).toMatch(
        /SIGTERM: stopping; requests in flight have 10000 ms to finish\nstopped\n$/,
      );
      // Every answer is whole and a 200; a request the server never took fails to connect instead.
      const answered = outcomes.filter((outcome): outcome is Answer => !(outcome instanceof Error));
      expect(answered.length).toBeGreaterThan(0);
      for (const answer of answered) {
        expect(answer.status).toBe(200);
        expect(answer.complete).toBe(true);
      }
      for (const error of outcomes.filter((outcome) => outcome instanceof Error)) {
        expect((error as NodeJS.ErrnoException).code).toMatch(/^(ECONNREFUSED|ECONNRESET)$/);
      }
      await expectStoreIntact();
    },
  );

  // A full disk under the log: every write fails with ENOSPC, as /dev/full's do.
  it.runIf(existsSync('/dev/full')).each([1, 2])(
    'goes on answering with %i worker(s) when its log cannot be written (stdout /dev/full), and stops on SIGTERM',
    async (workers) => {
      const full = openSync('/dev/full', 'w');
      const child = spawnServe(
        ['--db', db, '--port', '0', '--workers', String(workers)],
        { LOG_LEVEL: 'info' },
        full,
      );
      closeSync(full);
      const stderr = collect(child);
      // Bounded: a server that hangs (as one did, in sonic-boom's retries) fails the test, not the run.
      const within = <T>(work: Promise<T>) =>
        Promise.race([
          work,
          new Promise<never>((_, reject) => setTimeout(() => reject(new Error('hung')), 10_000)),
        ]);
      try {
        await expect.poll(() => stderr.text(), { timeout: 20_000 }).toMatch(/at http:\/\/127\.0\.0\.1:\d+/);
        const base = /at (http:\/\/127\.0\.0\.1:\d+)/.exec(stderr.text())?.[1] ?? '';
        for (let round = 0; round < 5; round++) {
          for (let i = 0; i < 40; i++)
            expect((await within(get(base, '/api/epi?format=csv'))).status).toBe(200);
          // Past the 20 ms a batch waits: the next requests meet a log whose writes failed.
          await new Promise((resolve) => setTimeout(resolve, 30));
        }
        expect(stderr.text()).toMatch(
          /gridquote: writing the request log failed \(ENOSPC: no space left on device, write\): its lines are dropped until a write succeeds\n/,
        );
        child.kill('SIGTERM');
        expect(await within(stderr.exit)).toBe(0);
        expect(stderr.text()).toMatch(/stopped\n$/);
      } finally {
        child.kill('SIGKILL');
      }
    },
  );

  it('logs one line per answer on stdout, naming the key by its public id only', async () => {
    const child = spawnServe(['--db', db, '--port', '0'], { LOG_LEVEL: 'info' });
    const stderr = collect(child);
    let stdout = '';
    child.stdout?.on('data', (chunk) => {
      stdout += String(chunk);
    });
    const requestLines = () =>
      stdout
        .split('\n')
        .filter((line) => line.includes('"msg":"request"'))
        .map((line) => JSON.parse(line) as Record<string, unknown>);
    await expect.poll(() => stderr.text(), { timeout: 20_000 }).toMatch(/at http:\/\/127\.0\.0\.1:\d+/);
    const base = /at (http:\/\/127\.0\.0\.1:\d+)/.exec(stderr.text())?.[1] ?? '';

    expect((await get(base, '/api/epi?format=csv')).status).toBe(200);
    await expect.poll(() => requestLines().length, { timeout: 20_000 }).toBe(1);
    for (let i = 0; i < 5; i++) expect((await get(base, '/api/epi?format=csv')).status).toBe(200);
    child.kill('SIGTERM');
    expect(await stderr.exit).toBe(0);
    const lines = requestLines();
    expect(lines).toHaveLength(6);
    // gq_<12 hex id>_<secret>; the secret itself may contain "_".
    const [, id = '', secret = ''] = /^gq_([0-9a-f]{12})_(.+)$/.exec(key) ?? [];
    for (const line of lines) expect(line).toMatchObject({ operation: 'epi', status: 200, keyId: id });
    expect(secret).toHaveLength(43);
    expect(stdout).not.toContain(secret);
  });

  it('prints one line per configuration problem and exits 1', async () => {
    const child = spawnServe(['--db', db, '--port', 'http'], {
      LOG_LEVEL: 'loud',
      GRIDQUOTE_SHUTDOWN_GRACE_MS: '-1',
    });
    const stderr = collect(child);
    expect(await stderr.exit).toBe(1);
    expect(stderr.text()).toBe(
      [
        'gridquote: config: --port must be a port number 0..65535, got "http"',
        'gridquote: config: LOG_LEVEL must be one of fatal, error, warn, info, debug, trace, silent, got "loud"',
        'gridquote: config: GRIDQUOTE_SHUTDOWN_GRACE_MS must be milliseconds 0..600000, got "-1"',
        '',
      ].join('\n'),
    );
  });
});
