import { closeSync, mkdtempSync, openSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { seededStore } from '../../test/fixtures.js';
import { logInto } from '../../test/log-lines.js';
import type { MarketStore } from '../store/store.js';
import { buildApp } from './app.js';
import { batchedStdout } from './log-destination.js';
import { type RequestLine, requestLineWriter } from './request-line.js';

/** The template's lines against pino's own for the same fields, on the app's own logger. */
let store: MarketStore;
let app: FastifyInstance;
const output: string[] = [];

beforeAll(async () => {
  ({ store } = seededStore({ days: 1 }));
  const stream = logInto(output);
  app = buildApp({ reader: store.reader, keys: store.keys, logger: { level: 'info', stream } });
  await app.ready();
});
afterAll(async () => {
  await app?.close();
  store?.close();
});
beforeEach(() => {
  output.length = 0;
});

/** The time is the one field two calls may not share. */
function withoutTime(line: string | undefined): string {
  return (line ?? '').replace(/,"time":\d+,/, ',"time":0,');
}

function bothWays(line: RequestLine): { template: string; pino: string } {
  output.length = 0;
  requestLineWriter(app.log)(line);
  app.log.info(line, 'request');
  expect(output).toHaveLength(2);
  return { template: withoutTime(output[0]), pino: withoutTime(output[1]) };
}

const ordinary: RequestLine = {
  reqId: '9d965b8b-3bfa-4acd-8af6-7bbaa12de1b0',
  keyId: 'ef8be23851a1',
  operation: 'epi',
  method: 'GET',
  url: '/api/epi?date=20250220',
  status: 200,
  durationMs: 0.123,
  bytes: 224,
};

describe('the request line', () => {
  it('is written by the template, not through pino’s generic path, on the app’s logger', () => {
    const info = vi.spyOn(app.log, 'info');
    try {
      requestLineWriter(app.log)(ordinary);
      expect(info).not.toHaveBeenCalled();
      expect(output).toHaveLength(1);
      expect(JSON.parse(output[0] ?? '')).toMatchObject({ level: 30, msg: 'request', ...ordinary });
    } finally {
      info.mockRestore();
    }
  });

  it('has the bytes pino writes for the same fields', () => {
    const { template, pino } = bothWays(ordinary);
    expect(template).toBe(pino);
  });

  it('has pino’s bytes for nulls (a request never parsed, a key never found)', () => {
    const { template, pino } = bothWays({
      ...ordinary,
      keyId: null,
      method: null,
      url: null,
      durationMs: null,
      bytes: null,
      status: 400,
    });
    expect(template).toBe(pino);
  });

  it('escapes any URL exactly as pino does (quotes, backslashes, control and Latin-1 characters)', () => {
    // Node hands the request target over as Latin-1 text: every code unit is 0-255.
    const latin1 = fc.string({
      unit: fc.integer({ min: 0, max: 255 }).map((code) => String.fromCharCode(code)),
    });
    fc.assert(
      fc.property(
        latin1,
        fc.double({ min: 0, max: 1e6, noNaN: true }),
        fc.nat(),
        (url, durationMs, bytes) => {
          const { template, pino } = bothWays({ ...ordinary, url: `/api/epi?${url}`, durationMs, bytes });
          expect(template).toBe(pino);
        },
      ),
      { numRuns: 300 },
    );
  });

  it('goes through pino at error for a 5xx, and not at all above info', () => {
    const error = vi.spyOn(app.log, 'error');
    try {
      requestLineWriter(app.log)({ ...ordinary, status: 503 });
      expect(error).toHaveBeenCalledTimes(1);
      expect(JSON.parse(output[0] ?? '')).toMatchObject({ level: 50, status: 503 });
    } finally {
      error.mockRestore();
    }
    output.length = 0;
    app.log.level = 'warn';
    try {
      requestLineWriter(app.log)(ordinary);
      expect(output).toHaveLength(0);
    } finally {
      app.log.level = 'info';
    }
  });

  it('follows the level set after the writer was made, both ways', () => {
    const write = requestLineWriter(app.log);
    try {
      app.log.level = 'warn';
      write(ordinary);
      expect(output).toHaveLength(0);
      app.log.level = 'info';
      write(ordinary);
      expect(output).toHaveLength(1);
      app.log.level = 'error';
      write(ordinary);
      app.log.level = 'debug';
      write(ordinary);
      expect(output).toHaveLength(2);
    } finally {
      app.log.level = 'info';
    }
  });

  it('leaves a logger whose settings change the line to pino', () => {
    const prefixed = app.log.child({}, { msgPrefix: '[api] ' });
    requestLineWriter(prefixed)(ordinary);
    expect(JSON.parse(output[0] ?? '')).toMatchObject({ msg: '[api] request', reqId: ordinary.reqId });
  });
});

describe('the request line on the app’s own destination', () => {
  it('is made later, with the request’s time and pino’s bytes, in its place among the other lines', async () => {
    const directory = mkdtempSync(join(tmpdir(), 'gridquote-request-line-'));
    const path = join(directory, 'log');
    const fd = openSync(path, 'w');
    const destination = batchedStdout(fd);
    const own = buildApp({
      reader: store.reader,
      keys: store.keys,
      logger: { level: 'info', stream: destination },
    });
    try {
      await own.ready();
      const write = requestLineWriter(own.log);
      const before = Date.now();
      write(ordinary);
      const after = Date.now();
      // Not at info when it is made: it was logged when info was on.
      own.log.level = 'warn';
      await new Promise((resolve) => setTimeout(resolve, 5));
      own.log.warn('between');
      write({ ...ordinary, reqId: 'not-logged' });
      own.log.level = 'info';
      own.log.info(ordinary, 'request');
      destination.flushSync();
      const lines = readFileSync(path, 'utf8').trimEnd().split('\n');
      expect(lines).toHaveLength(3);
      const [kept, between, fromPino] = lines.map((line) => JSON.parse(line) as Record<string, unknown>);
      expect(between?.msg).toBe('between');
      // Stamped when the request logged it, not when its text was made (5 ms later at least).
      expect(kept?.time).toBeGreaterThanOrEqual(before);
      expect(kept?.time).toBeLessThanOrEqual(after);
      expect(withoutTime(lines[0])).toBe(withoutTime(lines[2]));
      expect(fromPino?.reqId).toBe(ordinary.reqId);
    } finally {
      await own.close();
      closeSync(fd);
      rmSync(directory, { recursive: true, force: true });
    }
  });
});
