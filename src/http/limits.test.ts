import { connect, type Socket } from 'node:net';
import fc from 'fast-check';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHarness, expectProblem, type Harness } from '../../test/api-harness.js';
import { seededStore } from '../../test/fixtures.js';
import { waitFor } from '../../test/wait-for.js';
import type { MarketStore } from '../store/store.js';
import { createApiKey } from './api-keys.js';
import { buildApp } from './app.js';
import { DEFAULT_HTTP_LIMITS, type HttpLimits } from './limits.js';
import { MAX_VALUE_LENGTH } from './params.js';

/**
 * Over real sockets: the limits Node enforces are not visible to inject(). Short timeouts only
 * on a second server, for the tests about them: every other request gets the defaults, so a
 * busy machine cannot make a well-behaved request look slow.
 */
const LIMITS: HttpLimits = DEFAULT_HTTP_LIMITS;
const SHORT_TIMEOUTS: HttpLimits = {
  ...DEFAULT_HTTP_LIMITS,
  requestTimeoutMs: 600,
  idleTimeoutMs: 800,
};

let store: MarketStore;
let app: FastifyInstance;
let port: number;
let impatient: FastifyInstance;
let impatientPort: number;
let key: string;

function portOf(server: FastifyInstance): number {
  const address = server.server.address();
  return typeof address === 'object' && address !== null ? address.port : 0;
}

beforeAll(async () => {
  ({ store } = seededStore({ days: 1 }));
  // Unlimited: some tests send bursts, and the rate limiter is not what they are about.
  const created = createApiKey({ level: 'historical', now: new Date(), perSecond: 0, perMinute: 0 });
  await store.keys.insertKey(created.record);
  key = created.key;
  app = buildApp({ reader: store.reader, keys: store.keys, limits: LIMITS });
  await app.listen({ port: 0, host: '127.0.0.1' });
  port = portOf(app);
  impatient = buildApp({ reader: store.reader, keys: store.keys, limits: SHORT_TIMEOUTS });
  await impatient.listen({ port: 0, host: '127.0.0.1' });
  impatientPort = portOf(impatient);
});
afterAll(async () => {
  await app.close();
  await impatient.close();
  await store.close();
});

interface RawAnswer {
  readonly text: string;
  /** Milliseconds from connecting until the server closed the connection. */
  readonly closedAfterMs: number;
  /** How many of the chunks had been written when the connection closed. */
  readonly written: number;
}

/**
 * Writes `chunks` to a fresh connection, `gapMs` apart, and collects the answer until the
 * server closes (or `giveUpMs`, which fails the test's expectations: no answer).
 */
function raw(
  chunks: readonly string[],
  { gapMs = 0, giveUpMs = 30_000, to = port }: { gapMs?: number; giveUpMs?: number; to?: number } = {},
): Promise<RawAnswer> {
  return new Promise((resolve, reject) => {
    const started = Date.now();
    const socket = connect(to, '127.0.0.1');
    let text = '';
    let timer: NodeJS.Timeout | undefined;
    const giveUp = setTimeout(() => socket.destroy(), giveUpMs);
    socket.on('data', (chunk) => {
      text += String(chunk);
    });
    socket.on('close', () => {
      clearTimeout(giveUp);
      clearTimeout(timer);
      resolve({ text, closedAfterMs: Date.now() - started, written });
    });
    socket.on('error', (error: NodeJS.ErrnoException) => {
      // The server may close while a slow client is still writing.
      if (error.code !== 'ECONNRESET' && error.code !== 'EPIPE') reject(error);
    });
    let next = 0;
    let written = 0;
    const writeNext = () => {
      const chunk = chunks[next++];
      if (chunk === undefined || socket.destroyed) return;
      socket.write(Buffer.from(chunk, 'latin1'));
      written++;
      timer = setTimeout(writeNext, gapMs);
    };
    socket.on('connect', writeNext);
  });
}

function statusOf(answer: RawAnswer): number {
  return Number(/^HTTP\/1\.1 (\d{3}) /.exec(answer.text)?.[1]);
}

function bodyOf(answer: RawAnswer): Record<string, unknown> {
  return JSON.parse(answer.text.slice(answer.text.indexOf('\r\n\r\n') + 4)) as Record<string, unknown>;
}

const request = (target: string, headers = '') =>
  `GET ${target} HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${key}\r\nConnection: close\r\n${headers}\r\n`;

describe('limits', () => {
  it('answers a request target over the URL limit with 414, before looking at the key', async () => {
    const target = `/api/epi?date=${'1'.repeat(LIMITS.maxUrlBytes)}`;
    for (const text of [request(target), `GET ${target} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n`]) {
      const answer = await raw([text]);
      expect(statusOf(answer)).toBe(414);
      expect(answer.text).toMatch(/content-type: application\/problem\+json/i);
      expect(bodyOf(answer)).toMatchObject({ status: 414, type: 'tag:gridquote,2025:problems/uri-too-long' });
    }
  });

  it('counts the target in bytes and accepts one of exactly the limit', async () => {
    const base = '/api/epi?x=';
    const atLimit = await raw([request(`${base}${'a'.repeat(LIMITS.maxUrlBytes - base.length)}`)]);
    expect(statusOf(atLimit)).toBe(400);
    expect(bodyOf(atLimit)).toMatchObject({ errors: [{ parameter: 'x' }] });
    // Percent-encoded UTF-8 is counted as sent: 'é' is 6 bytes on the wire.
    const encoded = await raw([request(`${base}${'%C3%A9'.repeat(Math.ceil(LIMITS.maxUrlBytes / 6))}`)]);
    expect(statusOf(encoded)).toBe(414);
  });

  it('answers headers over the header limit with 431', async () => {
    const answer = await raw([request('/api/epi', `X-Padding: ${'p'.repeat(LIMITS.maxHeaderBytes)}\r\n`)]);
    expect(statusOf(answer)).toBe(431);
    expect(bodyOf(answer)).toMatchObject({ status: 431 });
  });

  it('cuts a slow-loris client that never finishes its headers, with a 408 problem', async () => {
    // One header byte every 100 ms keeps the socket busy, so only the request timeout helps.
    const drip = [...'GET /api/epi HTTP/1.1\r\nHost: x\r\nX-Slow: ', ...'s'.repeat(200)];
    const answer = await raw(drip, { gapMs: 100, to: impatientPort });
    expect(statusOf(answer)).toBe(408);
    expect(bodyOf(answer)).toMatchObject({
      status: 408,
      type: 'tag:gridquote,2025:problems/request-timeout',
    });
    // Cut while the client was still sending (the drip lasts 24 s or more), not before the timeout.
    expect(answer.written).toBeLessThan(drip.length);
    expect(answer.closedAfterMs).toBeGreaterThanOrEqual(SHORT_TIMEOUTS.requestTimeoutMs - 50);
  });

  it('cuts a connection that sends nothing at the request timeout', async () => {
    // The 408 itself shows the request timeout acted: the idle timeout closes without a word,
    // and the keep-alive timeout (72 s) is far beyond the 30 s this client waits.
    const answer = await raw([], { to: impatientPort });
    expect(statusOf(answer)).toBe(408);
    expect(answer.closedAfterMs).toBeGreaterThanOrEqual(SHORT_TIMEOUTS.requestTimeoutMs - 50);
  });

  it('destroys a connection whose client stops reading, after the idle timeout', async () => {
    const accepted = new Promise<Socket>((resolve) => impatient.server.once('connection', resolve));
    const socket = connect(impatientPort, '127.0.0.1');
    socket.on('error', () => {});
    // Pipelined big answers (no Connection: close): more than the socket buffers hold, so the
    // server's writes stall. The idle sweep (http-server.ts) waits until nothing has moved for
    // a whole period, so the socket goes a period (and at most a quarter more) after the stall.
    socket.write(request('/api/data?options=au_electricity').replace('Connection: close\r\n', '').repeat(40));
    socket.pause();
    const serverSide = await accepted;
    // Forty answers are megabytes: without the idle timeout the server would wait for this
    // reader until the test times out.
    await waitFor('the server to destroy the stalled connection', () => serverSide.destroyed);
    // A paused client notices nothing; reading now finds the connection already closed.
    const closed = new Promise((resolve) => socket.on('close', resolve));
    socket.resume();
    await closed;
  });

  it('still serves a well-behaved client', async () => {
    const answer = await raw([request('/api/epi?format=csv')]);
    expect(statusOf(answer)).toBe(200);
    expect(answer.text).toContain('date,year,epi\n');
  });
});

describe('garbage on the wire', () => {
  const byte = fc.integer({ min: 0, max: 255 }).map((code) => String.fromCharCode(code));
  const token = fc.string({
    unit: fc.constantFrom(...'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghij-_!#~'),
    minLength: 1,
  });
  const printable = fc.integer({ min: 0x21, max: 0x7e }).map((code) => String.fromCharCode(code));
  /** Mostly well-formed, so the garbage in one part reaches past the others. */
  const mostly = <T>(usual: fc.Arbitrary<T>, odd: fc.Arbitrary<T>) =>
    fc.oneof({ weight: 4, arbitrary: usual }, { weight: 1, arbitrary: odd });
  const head = fc.record({
    method: mostly(
      fc.constantFrom('GET', 'HEAD'),
      fc.oneof(fc.constantFrom('POST', 'OPTIONS', 'CONNECT', 'get', ''), token),
    ),
    target: mostly(
      fc.string({ unit: printable, maxLength: 40 }).map((tail) => `/api/epi?${tail}`),
      fc.oneof(
        fc.string({ unit: byte, maxLength: 40 }).map((tail) => `/api/epi?${tail}`),
        fc.string({ unit: byte, maxLength: 40 }),
        fc.constantFrom('*', 'http://x/api/epi', '//api/epi', '/api/../api/epi', '/%', '/api/epi#x'),
      ),
    ),
    version: mostly(
      fc.constant('HTTP/1.1'),
      fc.constantFrom('HTTP/1.0', 'HTTP/2.0', 'HTTP/1.1x', 'HTTP/9', ''),
    ),
    headers: fc.array(
      mostly(
        fc
          .tuple(token, fc.string({ unit: printable, maxLength: 30 }))
          .map(([name, value]) => `${name}: ${value}`),
        fc.oneof(
          fc
            .tuple(token, fc.string({ unit: byte, maxLength: 30 }))
            .map(([name, value]) => `${name}: ${value}`),
          fc.constantFrom(
            `Authorization: Bearer ${'x'.repeat(8)}`,
            'Transfer-Encoding: chunked',
            'Content-Length: abc',
            'Content-Length: 0',
            'Content-Length: 0\r\nContent-Length: 1',
            'Host:',
            ' folded',
            'no colon',
          ),
        ),
      ),
      { maxLength: 4 },
    ),
  });

  it('is answered with an HTTP status below 500 (or a closed connection), and the server stays up', async () => {
    await fc.assert(
      fc.asyncProperty(head, async ({ method, target, version, headers }) => {
        const text = `${method} ${target} ${version}\r\n${['Host: x', ...headers, 'Connection: close'].join('\r\n')}\r\n\r\n0\r\n\r\n`;
        const answer = await raw([text]);
        if (answer.text !== '') expect(statusOf(answer)).toBeLessThan(500);
      }),
      { numRuns: 150 },
    );
    const after = await raw([request('/api/epi')]);
    expect(statusOf(after)).toBe(200);
  });
});

describe('parameter values', () => {
  let harness: Harness;
  beforeAll(async () => {
    harness = await createHarness({ days: 1 });
  });
  afterAll(() => harness.close());

  it(`refuses a value longer than ${MAX_VALUE_LENGTH} characters with a 400 naming it`, async () => {
    const long = 'B'.repeat(MAX_VALUE_LENGTH + 1);
    const body = expectProblem(await harness.get(`/api/data?futures=${long}`), 400, 'futures');
    expect(body.errors?.[0]?.message).toBe(`longer than ${MAX_VALUE_LENGTH} characters`);
    expect(body.detail).not.toContain(long);
  });

  it('does not validate a long date-like value an end_of_day key has ignored', async () => {
    const response = await harness.get(`/api/epi?date=${'9'.repeat(200)}`, { key: 'end_of_day' });
    expect(response.statusCode).toBe(200);
    expect(response.headers['ignored-parameters']).toBe('date');
  });
});
