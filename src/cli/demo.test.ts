import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { afterAll, describe, expect, it } from 'vitest';
import { openSqliteStore } from '../store/sqlite/open-sqlite-store.js';
import type { CliIo } from './cli-io.js';
import { demoBanner, startDemo } from './demo.js';

const dir = mkdtempSync(join(tmpdir(), 'gridquote-demo-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function io(): CliIo & { errors: () => string } {
  const stderr = new PassThrough();
  let text = '';
  stderr.on('data', (chunk) => {
    text += String(chunk);
  });
  return {
    stdout: new PassThrough(),
    stderr,
    stdin: new PassThrough().end(),
    now: () => new Date(),
    openStore: openSqliteStore,
    errors: () => text,
  };
}

describe('demo', () => {
  it('seeds a new database, prints working keys of both levels, and keeps the market moving', async () => {
    const db = join(dir, 'nested', 'demo.db');
    const cli = io();
    const demo = await startDemo(cli, { db, port: 0, host: '127.0.0.1', days: 3, seed: 7, speed: 20_000 });
    try {
      const banner = demoBanner(demo);
      expect(banner).toContain(demo.keys.historical);
      expect(banner).toContain(demo.keys.endOfDay);
      expect(banner).toMatch(
        /curl -H "Authorization: Bearer gq_[0-9a-f]{12}_[\w-]+" "http:\/\/127\.0\.0\.1:\d+\/api\//,
      );
      expect(banner).toContain(`${demo.server.url}/docs`);
      expect(cli.errors()).toMatch(/seeding .* 3 trading days/);

      const get = (key: string, path: string) =>
        fetch(`${demo.server.url}${path}`, { headers: { authorization: `Bearer ${key}` } });
      const historical = await get(
        demo.keys.historical,
        `/api/tradelog?market=au_gas&date=${demo.historyDate}`,
      );
      expect(historical.status).toBe(200);
      expect(historical.headers.get('ignored-parameters')).toBeNull();
      const endOfDay = await get(demo.keys.endOfDay, `/api/tradelog?market=au_gas&date=${demo.historyDate}`);
      expect(endOfDay.status).toBe(200);
      expect(endOfDay.headers.get('ignored-parameters')).toBe('date');

      // The live exchange ingests the next trading day while the server runs.
      const before = await demo.server.store.reader.version();
      await new Promise((resolve) => setTimeout(resolve, 1_500));
      expect(await demo.server.store.reader.version()).toBeGreaterThan(before);
      // The server hears the in-process feed (store.onAppend): its metrics count the events.
      const metrics = await (await fetch(`${demo.server.url}/metrics`)).text();
      expect(Number(/^gridquote_events_ingested_total (\d+)$/m.exec(metrics)?.[1])).toBeGreaterThan(0);
      const live = demo.live.position().date;
      expect(live > demo.historyDate).toBe(true);
      // At this replay speed the live day may roll over during the request: bracket it.
      const earliest = (await demo.server.store.reader.latestDate()) ?? '';
      const trades = await get(demo.keys.historical, '/api/trades?market=au_electricity');
      const served = ((await trades.json()) as { date: string }).date;
      expect(served >= earliest && served > demo.historyDate).toBe(true);
      expect(served <= ((await demo.server.store.reader.latestDate()) ?? '')).toBe(true);
    } finally {
      await demo.stop();
    }
  });

  it('continues an existing demo database and replaces the previous demo keys', async () => {
    const db = join(dir, 'again.db');
    const first = await startDemo(io(), { db, port: 0, host: '127.0.0.1', days: 2, seed: 3, speed: 1 });
    const oldKey = first.keys.historical;
    await first.stop();
    const second = await startDemo(io(), { db, port: 0, host: '127.0.0.1', days: 2, seed: 3, speed: 1 });
    try {
      const old = await fetch(`${second.server.url}/api/epi`, {
        headers: { authorization: `Bearer ${oldKey}` },
      });
      expect(old.status).toBe(401);
      const fresh = await fetch(`${second.server.url}/api/epi`, {
        headers: { authorization: `Bearer ${second.keys.historical}` },
      });
      expect(fresh.status).toBe(200);
    } finally {
      await second.stop();
    }
  });

  it('refuses a database made with another seed, with one clear message', async () => {
    const db = join(dir, 'other.db');
    const first = await startDemo(io(), { db, port: 0, host: '127.0.0.1', days: 2, seed: 3, speed: 1 });
    await first.stop();
    await expect(
      startDemo(io(), { db, port: 0, host: '127.0.0.1', days: 2, seed: 4, speed: 1 }),
    ).rejects.toThrow(/was not made by the demo with seed 4/);
  });
});
