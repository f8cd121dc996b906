import { once } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import Database from 'better-sqlite3';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { PROCESS_TEST_TIMEOUT_MS, spawnCli } from '../../test/cli-process.js';
import { cutClaim } from '../../test/pg-exchange-claim.js';
import { waitFor } from '../../test/wait-for.js';
import { openStore } from '../store/open-store.js';
import { schemaUrl } from '../store/postgres/schema-url.js';
import { reportSkipped, TEST_PG_URL, testSchemas } from '../store/postgres/test-schemas.js';
import type { CliIo } from './cli-io.js';
import { demoBanner, startDemo } from './demo.js';

const dir = mkdtempSync(join(tmpdir(), 'gridquote-demo-'));
reportSkipped('the demo on PostgreSQL');
const schemas = testSchemas();
afterAll(async () => {
  rmSync(dir, { recursive: true, force: true });
  if (TEST_PG_URL !== undefined) await schemas.dropAll();
});

function io(now: () => Date = () => new Date()): CliIo & { errors: () => string } {
  const stderr = new PassThrough();
  let text = '';
  stderr.on('data', (chunk) => {
    text += String(chunk);
  });
  return {
    stdout: new PassThrough(),
    stderr,
    stdin: new PassThrough().end(),
    now,
    openStore,
    errors: () => text,
  };
}

/** A real time the test moves by hand. */
function pinnedTime(iso: string) {
  let current = new Date(iso).getTime();
  return {
    now: () => new Date(current),
    advance: (ms: number) => {
      current += ms;
    },
  };
}

interface TickerAnswer {
  readonly date: string;
  readonly to: string;
  readonly data: readonly { readonly time: string }[];
}

describe('demo', () => {
  it('answers on the simulated exchange clock outside the session: the default ticker grows', async () => {
    // Saturday 17 January 2026, 14:00 in Sydney: no session, so Monday the 19th is replayed.
    const time = pinnedTime('2026-01-17T03:00:00Z');
    const demo = await startDemo(io(time.now), {
      db: join(dir, 'clock.db'),
      port: 0,
      host: '127.0.0.1',
      days: 2,
      seed: 5,
      speed: 60,
    });
    try {
      const ticker = async (path = '/api/ticker?futures=au_electricity') => {
        const response = await fetch(`${demo.server.url}${path}`, {
          headers: { authorization: `Bearer ${demo.keys.historical}` },
        });
        expect(response.status).toBe(200);
        return (await response.json()) as TickerAnswer;
      };
      expect(demo.live.position()).toMatchObject({ date: '20260119', mode: 'replay' });
      time.advance(30_000); // 30 virtual minutes into the replayed day
      await demo.live.tick();
      const first = await ticker();
      expect(demo.live.position().time).toBe('102900');
      expect(first).toMatchObject({ date: '20260119', to: '102900' });
      expect(first.data.length).toBeGreaterThan(0);
      // Row times are yyyyMMddHHmmss: all of the replayed day, none after the clock.
      expect(
        first.data.every((row) => row.time.startsWith('20260119') && row.time.slice(8) <= '102900'),
      ).toBe(true);

      time.advance(15_000); // two requests 15 s apart: a quarter of an hour on the exchange
      await demo.live.tick();
      const second = await ticker();
      expect(second).toMatchObject({ date: '20260119', to: '104400' });
      expect(second.to).toBe(demo.live.position().time);
      expect(second.data.length).toBeGreaterThan(first.data.length);
      expect(second.data.slice(-first.data.length)).toEqual(first.data);
      // The ingest lag is measured on the same clock: the replayed feed is current, not days ahead.
      const metrics = await (await fetch(`${demo.server.url}/metrics`)).text();
      const lag = Number(/^gridquote_ingest_lag_seconds (\S+)$/m.exec(metrics)?.[1]);
      expect(lag).toBeGreaterThanOrEqual(0);
      expect(lag).toBeLessThan(15 * 60);
      // The banner's trade ticker is not empty on the first replayed day either.
      time.advance(60_000);
      await demo.live.tick();
      expect((await ticker('/api/ticker?futures=BNZ&type=trade')).data.length).toBeGreaterThan(0);
    } finally {
      await demo.stop();
    }
  });

  it('restarted inside the session it stopped in, resumes that day on the real clock: nothing published ahead of it', async () => {
    // Monday 19 January 2026, 11:00 in Sydney: in session, so the demo runs on the real clock.
    const time = pinnedTime('2026-01-19T00:00:00Z');
    const options = { db: join(dir, 'resumed.db'), port: 0, host: '127.0.0.1', days: 2, seed: 5, speed: 60 };
    const first = await startDemo(io(time.now), options);
    expect(first.live.position()).toMatchObject({ date: '20260119', mode: 'real-time' });
    await first.live.tick();
    await first.stop();

    time.advance(5 * 60_000);
    const second = await startDemo(io(time.now), options);
    try {
      expect(second.live.position()).toMatchObject({ date: '20260119', time: '110500', mode: 'real-time' });
      const ask = async (path: string) => {
        const response = await fetch(`${second.server.url}${path}`, {
          headers: { authorization: `Bearer ${second.keys.historical}` },
        });
        expect(response.status).toBe(200);
        return (await response.json()) as TickerAnswer;
      };
      const before = await ask('/api/ticker?futures=au_electricity&date=20260119');
      expect(before.data.length).toBeGreaterThan(0);
      expect(before.data.every((row) => row.time <= '20260119110500')).toBe(true);
      time.advance(10 * 60_000);
      await second.live.tick();
      const after = await ask('/api/ticker?futures=au_electricity&date=20260119');
      expect(after.data.length).toBeGreaterThan(before.data.length);
      // Released up to the clock, and no further: no settlement (16:00) in the middle of the session.
      expect(after.data.every((row) => row.time <= '20260119111500')).toBe(true);
      expect((await ask('/api/ticker?futures=au_electricity&date=20260119&type=settle')).data).toEqual([]);
    } finally {
      await second.stop();
    }
  });

  it('does not hold its serving thread while another process holds the write lock: the feed waits its turn', async () => {
    const time = pinnedTime('2026-01-17T03:00:00Z'); // Saturday: Monday the 19th is replayed
    const log = io(time.now);
    const db = join(dir, 'locked.db');
    const demo = await startDemo(log, { db, port: 0, host: '127.0.0.1', days: 2, seed: 5, speed: 60 });
    // Another writer (an ingest into the same file) holds the lock for a while.
    const other = new Database(db);
    try {
      const version = await demo.server.store.reader.version();
      other.exec('BEGIN IMMEDIATE');
      time.advance(30_000); // 30 virtual minutes: events are due
      const started = performance.now();
      await demo.live.tick();
      // Refused at once (the thread waited 0.1 s, not the 30 s a command waits), the events kept for the next tick.
      expect(performance.now() - started).toBeLessThan(1_000);
      expect(await demo.server.store.reader.version()).toBe(version);
      expect(log.errors()).toMatch(
        /live: .*locked\.db is locked by another writer .*; the same events are offered again every tick \(said once while this lasts\)\n/,
      );
      other.exec('ROLLBACK');
      await demo.live.tick();
      expect(await demo.server.store.reader.version()).toBeGreaterThan(version);
      expect(log.errors()).toMatch(/live: storing again after \d+ refused ticks; no event was skipped\n/);
    } finally {
      other.close();
      await demo.stop();
    }
  });

  it('restarted in the session of a day an earlier replay stored ahead of the clock, completes it and goes on', async () => {
    // Monday 19 January 2026, 08:00 in Sydney: before the session, so Monday is replayed at 60x.
    const time = pinnedTime('2026-01-18T21:00:00Z');
    const options = { db: join(dir, 'ahead.db'), port: 0, host: '127.0.0.1', days: 2, seed: 5, speed: 60 };
    const first = await startDemo(io(time.now), options);
    expect(first.live.position()).toMatchObject({ date: '20260119', mode: 'replay' });
    time.advance(5 * 60_000); // five virtual hours: Monday stored up to about 15:00
    await first.live.tick();
    await first.stop();

    time.advance(3 * 3_600_000); // 11:05 on Monday, in session
    const second = await startDemo(io(time.now), options);
    try {
      // Monday's stored events run past 11:05: the day cannot be lived again, so it is completed.
      expect(second.live.position()).toMatchObject({ date: '20260120', mode: 'replay' });
    } finally {
      await second.stop();
    }
  });

  it('seeds a new database, prints working keys of both levels, and keeps the market moving', async () => {
    const db = join(dir, 'nested', 'demo.db');
    // Time flows from a Saturday afternoon in Sydney, whatever the real hour: a replayed day.
    const start = new Date('2026-01-17T03:00:00Z').getTime() - Date.now();
    const cli = io(() => new Date(start + Date.now()));
    const demo = await startDemo(cli, { db, port: 0, host: '127.0.0.1', days: 3, seed: 7, speed: 20_000 });
    try {
      const banner = demoBanner(demo);
      expect(banner).toContain(demo.keys.historical);
      expect(banner).toContain(demo.keys.endOfDay);
      expect(banner).toMatch(
        /curl -H "Authorization: Bearer gq_[0-9a-f]{12}_[\w-]+" "http:\/\/127\.0\.0\.1:\d+\/api\//,
      );
      expect(banner).toContain(`${demo.server.url}/docs`);
      expect(banner).toContain(
        `Dashboard (open it in a browser and enter the historical key): ${demo.server.url}/\n`,
      );
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
      await waitFor(
        'the live feed to store events',
        async () => (await demo.server.store.reader.version()) > before,
      );
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

  it('continues an existing demo database with the same keys, and rotates them on request', async () => {
    const db = join(dir, 'again.db');
    const epi = (url: string, key: string) =>
      fetch(`${url}/api/epi`, { headers: { authorization: `Bearer ${key}` } });
    const first = await startDemo(io(), { db, port: 0, host: '127.0.0.1', days: 2, seed: 3, speed: 1 });
    const saved = first.keys;
    expect(demoBanner(first)).toContain(`new keys; kept in ${db}-keys.json`);
    await first.stop();

    const second = await startDemo(io(), { db, port: 0, host: '127.0.0.1', days: 2, seed: 3, speed: 1 });
    try {
      expect(second.keys).toMatchObject({
        historical: saved.historical,
        endOfDay: saved.endOfDay,
        origin: 'kept',
      });
      expect(demoBanner(second)).toContain('the same keys as at the last start');
      expect((await epi(second.server.url, saved.historical)).status).toBe(200);
      expect((await epi(second.server.url, saved.endOfDay)).status).toBe(200);
    } finally {
      await second.stop();
    }

    const third = await startDemo(io(), {
      db,
      port: 0,
      host: '127.0.0.1',
      days: 2,
      seed: 3,
      speed: 1,
      newKeys: true,
    });
    try {
      expect(third.keys.origin).toBe('rotated');
      expect((await epi(third.server.url, saved.historical)).status).toBe(401);
      expect((await epi(third.server.url, saved.endOfDay)).status).toBe(401);
      expect((await epi(third.server.url, third.keys.historical)).status).toBe(200);
    } finally {
      await third.stop();
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

  it(
    'exits 1 with one line when its port is taken (a second npm start), not silently',
    async () => {
      const taken = createServer().listen(0, '127.0.0.1');
      await once(taken, 'listening');
      try {
        const address = taken.address();
        const port = typeof address === 'object' && address !== null ? address.port : 0;
        const db = join(dir, 'port-taken.db');
        const demo = spawnCli(['demo', '--db', db, '--port', String(port), '--days', '1']);
        // The store's checkpoint thread is stopped as the failed start closes it: the process
        // used to end while it waited for that thread, with code 13 and nothing said.
        expect(await demo.exited).toBe(1);
        expect(demo.stderr()).toMatch(
          /^gridquote: listen EADDRINUSE: address already in use 127\.0\.0\.1:\d+$/m,
        );
      } finally {
        taken.close();
      }
    },
    PROCESS_TEST_TIMEOUT_MS,
  );

  it(
    'refuses to run a second exchange on a store whose demo runs in another process, until that one is gone',
    async () => {
      const db = join(dir, 'shared.db');
      const running = spawnCli(['demo', '--db', db, '--port', '0', '--days', '1']);
      try {
        await waitFor('the first demo live', () => /^live: /m.test(running.stderr()), {
          timeoutMs: PROCESS_TEST_TIMEOUT_MS / 2,
        });
        const options = { db, port: 0, host: '127.0.0.1', days: 1, seed: 1, speed: 60 } as const;
        // Else it would write the rest of the day the running one replays, and replay the next.
        await expect(startDemo(io(), options)).rejects.toThrow(
          /^another demo or cluster is running the exchange on .*shared\.db: stop it, or give this one a store of its own \(--db\)$/,
        );
        expect(running.running()).toBe(true);
        // Its claim ends with the process, however it ends.
        await running.kill();
        const demo = await startDemo(io(), options);
        await demo.stop();
      } finally {
        await running.kill();
      }
    },
    PROCESS_TEST_TIMEOUT_MS,
  );
});

describe.skipIf(TEST_PG_URL === undefined)('demo on PostgreSQL', () => {
  it(
    'stops its exchange and exits 1 with one line when another process took the exchange while its claim was cut',
    async () => {
      const schema = schemas.name();
      const url = await schemaUrl(TEST_PG_URL ?? '', schema);
      // run from the test's folder: a demo on PostgreSQL keeps its keys in ./data
      const demo = spawnCli(['demo', '--db', url, '--port', '0', '--days', '1'], {}, dir);
      const rival = new pg.Client({ connectionString: TEST_PG_URL });
      await rival.connect();
      try {
        await waitFor('the demo live', () => /^live: /m.test(demo.stderr()), {
          timeoutMs: PROCESS_TEST_TIMEOUT_MS / 2,
        });
        // The demo's claim connection is cut (a restart, an administrator), and another process
        // takes the exchange the moment the server frees it, before the demo can take it again.
        await cutClaim(TEST_PG_URL ?? '', schema, rival);
        expect(await demo.exited).toBe(1);
        // Every line about the exchange but the live day's own (in session it names the exchange clock).
        const said = demo.stderr().split('\n');
        const dayLine = /^live: (trading day|replaying trading day) \d{8} /;
        expect(said.filter((line) => /exchange/.test(line) && !dayLine.test(line))).toEqual([
          expect.stringMatching(
            /^postgres:\/\/\S+: another process claimed the exchange while the connection holding this claim was down; stopping, requests in flight have \d+ ms to finish$/,
          ),
        ]);
        expect(said).toContain('stopped');
      } finally {
        await rival.end();
        await demo.kill();
      }
    },
    PROCESS_TEST_TIMEOUT_MS,
  );
});
