import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { seededStore } from '../../test/fixtures.js';
import { logInto } from '../../test/log-lines.js';
import type { MarketStore } from '../store/store.js';
import { createApiKey } from './api-keys.js';
import { buildApp } from './app.js';

/** Over a real socket: what Node's HTTP parser refuses, and what reaches the log. */
let store: MarketStore;
let port: number;
let key: string;
const log: string[] = [];
let close: () => Promise<void>;

beforeAll(async () => {
  ({ store } = seededStore({ days: 1 }));
  const created = createApiKey({ level: 'historical', now: new Date() });
  await store.keys.insertKey(created.record);
  key = created.key;
  const stream = logInto(log);
  const app = buildApp({ reader: store.reader, keys: store.keys, logger: { level: 'trace', stream } });
  await app.listen({ port: 0, host: '127.0.0.1' });
  const address = app.server.address();
  port = typeof address === 'object' && address !== null ? address.port : 0;
  close = async () => {
    await app.close();
    await store.close();
  };
});
afterAll(() => close?.());

function raw(request: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    let answer = '';
    socket.on('data', (chunk) => {
      answer += String(chunk);
    });
    socket.on('end', () => resolve(answer));
    socket.on('error', reject);
    socket.end(request);
  });
}

describe('the server', () => {
  it('answers an over-long URL with a 431 problem', async () => {
    const answer = await raw(`GET /api/epi?x=${'a'.repeat(20_000)} HTTP/1.1\r\nHost: x\r\n\r\n`);
    expect(answer).toMatch(/^HTTP\/1\.1 431 /);
    expect(answer).toContain('application/problem+json');
    expect(answer).toContain('"status":431');
  });

  it('answers garbage with a 400 problem', async () => {
    const answer = await raw('NOT HTTP AT ALL\r\n\r\n');
    expect(answer).toMatch(/^HTTP\/1\.1 400 /);
    expect(answer).toContain('"status":400');
  });

  it('serves over HTTP and never writes a key to the log', async () => {
    const ok = await fetch(`http://127.0.0.1:${port}/api/epi`, {
      headers: { authorization: `Bearer ${key}` },
    });
    expect(ok.status).toBe(200);
    await ok.text();
    const wrong = `${key.slice(0, -4)}AAAA`;
    const refused = await fetch(`http://127.0.0.1:${port}/api/epi`, {
      headers: { authorization: `Bearer ${wrong}` },
    });
    expect(refused.status).toBe(401);
    await refused.text();
    const text = log.join('');
    expect(text).toContain('/api/epi');
    expect(text).not.toContain(key.slice(16));
    expect(text).not.toContain(wrong.slice(16));
  });
});
