import { connect } from 'node:net';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { seededStore } from '../../test/fixtures.js';
import { logInto, parsedLines } from '../../test/log-lines.js';
import type { MarketStore } from '../store/store.js';
import { buildApp } from './app.js';
import { DEFAULT_HTTP_LIMITS, type HttpLimits } from './limits.js';

/**
 * Answers written before a request is parsed (431 headers too large, 408 too slow, 400 garbage)
 * and the missing-Host 400: each is a problem with a request id, one request line in the log
 * and a count in /metrics, like every other answer. Over real sockets: inject() never meets
 * Node's parser.
 */

const LIMITS: HttpLimits = { ...DEFAULT_HTTP_LIMITS, requestTimeoutMs: 600, idleTimeoutMs: 800 };

let store: MarketStore;
let app: FastifyInstance;
let port: number;
const output: string[] = [];

beforeAll(async () => {
  ({ store } = seededStore({ days: 1 }));
  const stream = logInto(output);
  app = buildApp({
    reader: store.reader,
    keys: store.keys,
    limits: LIMITS,
    logger: { level: 'info', stream },
  });
  await app.listen({ port: 0, host: '127.0.0.1' });
  const address = app.server.address();
  port = typeof address === 'object' && address !== null ? address.port : 0;
});
afterAll(async () => {
  await app?.close();
  await store?.close();
});
beforeEach(() => {
  output.length = 0;
});

/** Writes the request and reads until the server closes the connection. */
function exchange(text: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    let answer = '';
    socket.on('data', (chunk) => {
      answer += String(chunk);
    });
    socket.on('close', () => resolve(answer));
    socket.on('error', (error: NodeJS.ErrnoException) => {
      if (error.code !== 'ECONNRESET' && error.code !== 'EPIPE') reject(error);
    });
    socket.on('connect', () => {
      if (text !== '') socket.write(Buffer.from(text, 'latin1'));
    });
  });
}

interface Line {
  reqId: string;
  operation: string;
  status: number;
  url: string | null;
}

/** Waits (with a deadline) for the request line of a status: the log follows the answer. */
async function requestLine(status: number): Promise<Line> {
  const deadline = Date.now() + 5_000;
  for (;;) {
    const line = parsedLines<Line & { msg: string }>(output).find(
      (entry) => entry.msg === 'request' && entry.status === status,
    );
    if (line) return line;
    if (Date.now() > deadline) throw new Error(`no request line with status ${status}: ${output.join('')}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

async function counted(status: number, operation = 'unmatched'): Promise<number> {
  const metrics = await app.inject({ url: '/metrics' });
  const sample = `gridquote_http_requests_total{operation="${operation}",status="${status}"} `;
  const line = metrics.body.split('\n').find((text) => text.startsWith(sample));
  return line === undefined ? 0 : Number(line.slice(sample.length));
}

function header(answer: string, name: string): string | undefined {
  const head = answer.slice(0, answer.indexOf('\r\n\r\n'));
  const match = new RegExp(`^${name}: (.*)$`, 'im').exec(head);
  return match?.[1];
}

function body(answer: string): Record<string, unknown> {
  return JSON.parse(answer.slice(answer.indexOf('\r\n\r\n') + 4)) as Record<string, unknown>;
}

describe('answers written before a request is parsed', () => {
  it.each([
    [
      431,
      `GET /api/epi HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer sk_live_secret0123456789\r\nX-Pad: ${'p'.repeat(20_000)}\r\n\r\n`,
    ],
    [408, 'GET /api/epi HTTP/1.1\r\nHost: x\r\nX-Slow: '],
    [400, 'NOT HTTP AT ALL\r\n\r\n'],
  ])('%i: a problem with a request id, one request line, one count', async (status, text) => {
    const before = await counted(status);
    const answer = await exchange(text);
    expect(answer).toMatch(new RegExp(`^HTTP/1\\.1 ${status} `));
    expect(header(answer, 'content-type')).toMatch(/^application\/problem\+json/);
    expect(body(answer)).toMatchObject({ status });
    const requestId = header(answer, 'x-request-id');
    expect(requestId).toMatch(/^[A-Za-z0-9_-]{22}$/);
    const line = await requestLine(status);
    expect(line).toMatchObject({ reqId: requestId, operation: 'unmatched', status, url: null });
    expect(output.join('')).not.toContain('sk_live_secret');
    expect(await counted(status)).toBe(before + 1);
  });
});

describe('requests no route answers', () => {
  it('CONNECT: a 405 problem with Allow and a request id, logged and counted, then closed', async () => {
    const before = await counted(405);
    const answer = await exchange('CONNECT 127.0.0.1:22 HTTP/1.1\r\nHost: 127.0.0.1:22\r\n\r\n');
    expect(answer).toMatch(/^HTTP\/1\.1 405 /);
    expect(header(answer, 'content-type')).toMatch(/^application\/problem\+json/);
    expect(header(answer, 'allow')).toBe('GET, HEAD, OPTIONS');
    expect(body(answer)).toMatchObject({
      status: 405,
      type: 'tag:gridquote,2025:problems/method-not-allowed',
    });
    expect(await requestLine(405)).toMatchObject({
      reqId: header(answer, 'x-request-id'),
      operation: 'unmatched',
    });
    expect(await counted(405)).toBe(before + 1);
  });

  it('the asterisk form: OPTIONS * is the server’s methods, anything else a 400', async () => {
    const options = await exchange('OPTIONS * HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n');
    expect(options).toMatch(/^HTTP\/1\.1 204 /);
    expect(header(options, 'allow')).toBe('GET, HEAD, OPTIONS');
    const get = await exchange('GET * HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n');
    expect(get).toMatch(/^HTTP\/1\.1 400 /);
    expect(body(get)).toMatchObject({ detail: 'the request target * is for OPTIONS only' });
  });
});

describe('an expectation', () => {
  it('other than 100-continue is a 417 problem with a request id, logged and counted', async () => {
    const before = await counted(417, 'epi');
    const answer = await exchange(
      'GET /api/epi HTTP/1.1\r\nHost: x\r\nExpect: 200-ok\r\nConnection: close\r\n\r\n',
    );
    expect(answer).toMatch(/^HTTP\/1\.1 417 /);
    expect(header(answer, 'content-type')).toMatch(/^application\/problem\+json/);
    expect(body(answer)).toMatchObject({
      type: 'tag:gridquote,2025:problems/expectation-failed',
      status: 417,
      detail: 'the only expectation this server meets is Expect: 100-continue',
    });
    expect(await requestLine(417)).toMatchObject({ reqId: header(answer, 'x-request-id'), url: '/api/epi' });
    expect(await counted(417, 'epi')).toBe(before + 1);
  });

  it('of 100-continue is met, and the request answered', async () => {
    const answer = await exchange(
      'GET /healthz HTTP/1.1\r\nHost: x\r\nExpect: 100-continue\r\nConnection: close\r\n\r\n',
    );
    expect(answer).toMatch(/^HTTP\/1\.1 100 Continue\r\n\r\nHTTP\/1\.1 200 /);
  });
});

describe('an HTTP/1.1 request without Host', () => {
  it('is a 400 problem with a request id, logged and counted, and the connection closes', async () => {
    const before = await counted(400, 'epi');
    const answer = await exchange('GET /api/epi HTTP/1.1\r\n\r\n');
    expect(answer).toMatch(/^HTTP\/1\.1 400 /);
    expect(header(answer, 'content-type')).toMatch(/^application\/problem\+json/);
    expect(header(answer, 'connection')).toBe('close');
    expect(body(answer)).toMatchObject({
      status: 400,
      type: 'tag:gridquote,2025:problems/bad-request',
      detail: 'an HTTP/1.1 request must carry a Host header (RFC 9112, section 3.2)',
    });
    const requestId = header(answer, 'x-request-id');
    expect(requestId).toMatch(/^[A-Za-z0-9_-]{22}$/);
    expect(await requestLine(400)).toMatchObject({ reqId: requestId, operation: 'epi', url: '/api/epi' });
    expect(await counted(400, 'epi')).toBe(before + 1);
  });

  it.each([
    ['two Host lines', 'Host: a.example\r\nHost: b.example', /one Host header, not 2/],
    ['a Host that is not a host', 'Host: a.example/evil', /must be a host name or address/],
  ])('nor with %s: a 400 problem, logged and counted', async (_name, host, detail) => {
    const before = await counted(400, 'epi');
    const answer = await exchange(`GET /api/epi HTTP/1.1\r\n${host}\r\n\r\n`);
    expect(answer).toMatch(/^HTTP\/1\.1 400 /);
    expect(header(answer, 'connection')).toBe('close');
    expect(body(answer)).toMatchObject({ status: 400, detail: expect.stringMatching(detail) });
    expect(await requestLine(400)).toMatchObject({ reqId: header(answer, 'x-request-id'), url: '/api/epi' });
    expect(await counted(400, 'epi')).toBe(before + 1);
  });

  it('is not needed by HTTP/1.0, which has no Host rule', async () => {
    const answer = await exchange('GET /healthz HTTP/1.0\r\n\r\n');
    expect(answer).toMatch(/^HTTP\/1\.1 200 /);
  });
});
