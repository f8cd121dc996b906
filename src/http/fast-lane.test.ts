import { Agent, request as httpRequest } from 'node:http';
import { connect } from 'node:net';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { everyOperation } from '../../test/every-operation.js';
import { seededStore } from '../../test/fixtures.js';
import { logInto } from '../../test/log-lines.js';
import { nextTradingDay } from '../domain/calendar.js';
import type { Simulator } from '../feed/simulator/simulator.js';
import { ingestEvents } from '../ingest/ingest-events.js';
import type { MarketStore } from '../store/store.js';
import { createApiKey } from './api-keys.js';
import { type AppOptions, buildApp } from './app.js';

/**
 * The fast lane (fast-lane.ts) against Fastify's route, over real sockets: one app with the lane,
 * one without, on the same store and keys. Every answer must be the same bytes with the same
 * headers (but the request id and the date), every request counted once, logged once.
 */

interface Server {
  readonly app: FastifyInstance;
  readonly base: string;
  readonly log: string[];
}

let store: MarketStore;
let simulator: Simulator;
let dates: readonly string[];
let lane: Server;
let plain: Server;
const keys: Record<'historical' | 'end_of_day' | 'limited' | 'counted' | 'revoked', string> = {
  historical: '',
  end_of_day: '',
  limited: '',
  counted: '',
  revoked: '',
};
const NOW = new Date('2025-02-28T05:00:00Z');

async function start(options: Partial<AppOptions>): Promise<Server> {
  const log: string[] = [];
  const stream = logInto(log);
  const app = buildApp({
    reader: store.reader,
    keys: store.keys,
    onAppend: (listener) => store.onAppend(listener),
    clock: () => NOW,
    logger: { level: 'info', stream },
    ...options,
  });
  await app.listen({ port: 0, host: '127.0.0.1' });
  const address = app.server.address();
  const port = typeof address === 'object' && address !== null ? address.port : 0;
  return { app, base: `http://127.0.0.1:${port}`, log };
}

beforeAll(async () => {
  ({ store, simulator, dates } = seededStore({ days: 3 }));
  const made = {
    historical: createApiKey({ level: 'historical', now: NOW, perSecond: 0, perMinute: 0 }),
    end_of_day: createApiKey({ level: 'end_of_day', now: NOW, perSecond: 0, perMinute: 0 }),
    limited: createApiKey({ level: 'historical', now: NOW, perSecond: 0, perMinute: 5 }),
    counted: createApiKey({ level: 'historical', now: NOW, perSecond: 0, perMinute: 1000 }),
    revoked: createApiKey({ level: 'historical', now: NOW, perSecond: 0, perMinute: 0 }),
  };
  for (const [name, created] of Object.entries(made)) {
    await store.keys.insertKey(created.record);
    keys[name as keyof typeof keys] = created.key;
  }
  await store.keys.revokeKey(made.revoked.record.id, NOW.toISOString());
  lane = await start({});
  plain = await start({ fastLane: false });
});
afterAll(async () => {
  await lane?.app.close();
  await plain?.app.close();
  await store?.close();
});

interface Answer {
  readonly status: number;
  readonly headers: Record<string, string>;
  readonly body: string;
}

/** What may differ between two answers to the same request. */
const PER_REQUEST = new Set(['date', 'x-request-id']);

async function ask(
  server: Server,
  path: string,
  headers: Record<string, string>,
  method = 'GET',
): Promise<Answer> {
  const response = await fetch(`${server.base}${path}`, { method, headers });
  const body = await response.text();
  const kept: Record<string, string> = {};
  response.headers.forEach((value, name) => {
    if (!PER_REQUEST.has(name)) kept[name] = value;
  });
  return { status: response.status, headers: kept, body };
}

async function laneAnswers(): Promise<number> {
  const response = await fetch(`${lane.base}/metrics`);
  const text = await response.text();
  return Number(/^gridquote_fast_lane_answers_total (\d+)$/m.exec(text)?.[1] ?? Number.NaN);
}

/** The same request of both servers, twice each: the first fills the caches, the second is the lane's. */
async function compare(path: string, headers: Record<string, string>, method = 'GET'): Promise<Answer> {
  await ask(lane, path, headers, method);
  await ask(plain, path, headers, method);
  const fast = await ask(lane, path, headers, method);
  const framework = await ask(plain, path, headers, method);
  expect({ path, ...fast }).toEqual({ path, ...framework });
  return fast;
}

const bearer = (key: string) => ({ authorization: `Bearer ${key}` });

describe('the fast lane', () => {
  it('answers every operation and code form with the framework’s bytes and headers, JSON and CSV', async () => {
    const before = await laneAnswers();
    const paths = [...new Set(await everyOperation(store.reader, dates))];
    let cached = 0;
    for (const path of paths) {
      for (const headers of [{ accept: 'application/json' }, { accept: 'text/csv' }]) {
        const answer = await compare(path, { ...bearer(keys.historical), ...headers });
        if (answer.status === 200) cached += 1;
      }
    }
    expect(cached).toBeGreaterThan(paths.length);
    // Every second request of a cached answer was the lane's; refusals and misses went to Fastify.
    expect((await laneAnswers()) - before).toBe(cached);
  }, 60_000);

  it('answers an end_of_day key, HEAD, format=, Ignored-Parameters, 304 and the codings alike', async () => {
    const past = dates[0] ?? '';
    const cases: [string, Record<string, string>, string?][] = [
      ['/api/data?futures=au_electricity', bearer(keys.end_of_day)],
      [`/api/tradelog?market=au_electricity&date=${past}`, bearer(keys.historical), 'HEAD'],
      [`/api/tradelog?market=au_electricity&date=${past}&format=csv`, bearer(keys.historical)],
      [`/api/ticker?futures=au_electricity&date=${past}&from=100000`, bearer(keys.historical)],
      [
        `/api/tradelog?market=au_electricity&date=${past}`,
        { ...bearer(keys.historical), 'accept-encoding': 'gzip' },
      ],
      [
        `/api/tradelog?market=au_electricity&date=${past}`,
        { ...bearer(keys.historical), 'accept-encoding': 'br' },
      ],
    ];
    for (const [path, headers, method] of cases) await compare(path, headers, method);
    const ignored = await compare(
      `/api/ticker?futures=au_electricity&date=${past}&from=100000`,
      bearer(keys.historical),
    );
    expect(ignored.headers['ignored-parameters']).toBe('from');
    const gzip = await compare(`/api/tradelog?market=au_electricity&date=${past}`, {
      ...bearer(keys.historical),
      'accept-encoding': 'gzip',
    });
    expect(gzip.headers['content-encoding']).toBe('gzip');
    const etag = gzip.headers.etag ?? '';
    const revalidated = await compare(`/api/tradelog?market=au_electricity&date=${past}`, {
      ...bearer(keys.historical),
      'accept-encoding': 'gzip',
      'if-none-match': etag,
    });
    expect(revalidated.status).toBe(304);
    expect(revalidated.body).toBe('');
  });

  it('leaves refused keys to the framework: the same 401s', async () => {
    for (const key of [keys.revoked, `${keys.historical.slice(0, -4)}AAAA`, 'gq_not_a_key']) {
      const answer = await compare('/api/epi', bearer(key));
      expect(answer.status).toBe(401);
    }
  });

  it('counts every request once against the key’s limits, and refuses over them as the framework does', async () => {
    const path = `/api/epi?date=${dates[0]}`;
    const statuses = async (server: Server) => {
      const seen: string[] = [];
      for (let i = 0; i < 7; i++) {
        const answer = await ask(server, path, bearer(keys.limited));
        seen.push(
          `${answer.status} ${/r=(\d+)/.exec(answer.headers.ratelimit ?? '')?.[1]} ${answer.headers['retry-after'] !== undefined}`,
        );
      }
      return seen;
    };
    const fast = await statuses(lane);
    expect(fast).toEqual([
      '200 4 false',
      '200 3 false',
      '200 2 false',
      '200 1 false',
      '200 0 false',
      '429 0 true',
      '429 0 true',
    ]);
    expect(await statuses(plain)).toEqual(fast);
  });

  it('answers with the new data once a commit lands, counting the request that missed once', async () => {
    const path = '/api/intraday?futures=au_electricity';
    const remaining = async () => {
      const answer = await ask(lane, path, bearer(keys.counted));
      return {
        remaining: Number(/r=(\d+)/.exec(answer.headers.ratelimit ?? '')?.[1]),
        etag: answer.headers.etag,
      };
    };
    const before = await compare(path, bearer(keys.historical));
    const first = await remaining();
    // The next trading day's feed: the intraday snapshot moves to it.
    const next = nextTradingDay(dates.at(-1) ?? '');
    await ingestEvents(store.writer, simulator.simulateDay(next));
    // A miss (the lane counts it, the route computes it), then a hit: one count each.
    const missed = await remaining();
    const hit = await remaining();
    expect([missed.remaining, hit.remaining]).toEqual([first.remaining - 1, first.remaining - 2]);
    expect(missed.etag).not.toBe(first.etag);
    expect(hit.etag).toBe(missed.etag);
    const after = await compare(path, bearer(keys.historical));
    expect(after.body).not.toBe(before.body);
    expect(after.headers.etag).toBe(missed.etag);
  });

  it('knows a keep-alive connection’s key once verified, yet refuses it on that connection once revoked', async () => {
    const path = `/api/epi?date=${dates[0]}`;
    const first = createApiKey({ level: 'historical', now: NOW, perSecond: 0, perMinute: 0 });
    const second = createApiKey({ level: 'end_of_day', now: NOW, perSecond: 0, perMinute: 0 });
    for (const created of [first, second]) await store.keys.insertKey(created.record);
    // One connection for every request: the agent keeps it and never opens a second.
    const agent = new Agent({ keepAlive: true, maxSockets: 1 });
    const ports = new Set<number>();
    const get = (key: string) =>
      new Promise<number>((resolve, reject) => {
        const sent = httpRequest(`${lane.base}${path}`, { agent, headers: bearer(key) }, (response) => {
          ports.add(response.socket.localPort ?? 0);
          response.resume();
          response.on('end', () => resolve(response.statusCode ?? 0));
        });
        sent.on('error', reject);
        sent.end();
      });
    const keyIdOfLastLine = () => JSON.parse(lane.log.at(-1) ?? '{}').keyId;
    try {
      // Both levels' answers cached (on other connections): every request below is the lane's.
      for (const key of [keys.historical, keys.end_of_day]) await ask(lane, path, bearer(key));
      const before = await laneAnswers();
      const seen: [number, string][] = [];
      for (const created of [first, first, second, first, second, first]) {
        seen.push([await get(created.key), keyIdOfLastLine()]);
      }
      const [a, b] = [first.record.id, second.record.id];
      expect(seen).toEqual([
        [200, a],
        [200, a],
        [200, b],
        [200, a],
        [200, b],
        [200, a],
      ]);
      expect((await laneAnswers()) - before).toBe(6);

      // Revoked while it is the key this connection last had verified.
      await store.keys.revokeKey(first.record.id, NOW.toISOString());
      expect(await get(first.key)).toBe(401);
      expect(await get(second.key)).toBe(200);
      expect(await get(first.key)).toBe(401);
      expect(ports.size).toBe(1);
    } finally {
      agent.destroy();
    }
  });

  it('leaves a repeated or invalid Host to the framework, which refuses it', async () => {
    const path = `/api/epi?date=${dates[0]}`;
    await compare(path, bearer(keys.historical));
    const before = await laneAnswers();
    const { port } = new URL(lane.base);
    for (const host of ['Host: a.example\r\nHost: b.example', 'Host: a.example@b.example']) {
      const answer = await new Promise<string>((resolve, reject) => {
        const socket = connect(Number(port), '127.0.0.1');
        let text = '';
        socket.on('data', (chunk) => {
          text += String(chunk);
        });
        socket.on('close', () => resolve(text));
        socket.on('error', reject);
        socket.write(`GET ${path} HTTP/1.1\r\n${host}\r\nAuthorization: Bearer ${keys.historical}\r\n\r\n`);
      });
      expect(answer).toMatch(/^HTTP\/1\.1 400 [\s\S]*application\/problem\+json/);
    }
    expect(await laneAnswers()).toBe(before);
  });

  it('writes the same request line as the framework', async () => {
    const path = `/api/npi?date=${dates[0]}`;
    lane.log.length = 0;
    plain.log.length = 0;
    await compare(path, bearer(keys.historical));
    const comparable = (line: string | undefined) => {
      const { reqId, time, durationMs, pid, ...rest } = JSON.parse(line ?? '{}');
      expect(typeof reqId).toBe('string');
      expect(typeof durationMs).toBe('number');
      return rest;
    };
    expect(lane.log).toHaveLength(2);
    expect(comparable(lane.log[1])).toEqual(comparable(plain.log[1]));
    expect(comparable(lane.log[1])).toMatchObject({
      operation: 'npi',
      status: 200,
      url: path,
      msg: 'request',
    });
  });
});
