import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { type AddressInfo, createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createHarness, type Harness, type HarnessAppOptions } from '../../test/api-harness.js';
import { runGridquote } from '../../test/cli-in-process.js';
import { refusingRateLimitStore } from '../../test/scripted-rate-limit.js';
import { INDEX_FILE } from './download-index.js';
import { type GetDependencies, registerGet } from './get.js';

/** The seeded history is 24-28 February 2025; the range also covers days before and after it. */
const FROM = '20250220';
const TO = '20250303';
const WITH_DATA = ['20250224', '20250225', '20250226', '20250227', '20250228'];
const UNLIMITED = { perSecond: 0, perMinute: 0 };

async function listening(app?: HarnessAppOptions): Promise<{ harness: Harness; baseUrl: string }> {
  const harness = await createHarness({ days: 5, ...(app ? { app } : {}) });
  const baseUrl = await harness.app.listen({ port: 0, host: '127.0.0.1' });
  return { harness, baseUrl };
}

/** `gridquote get ...` with the given fetch and environment. */
function gridquote(args: readonly string[], deps: GetDependencies) {
  return runGridquote(args, { commands: [(program, io) => registerGet(program, io, deps)] });
}

/** A loopback port nobody listens on (just released). */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'gridquote-get-'));
  return () => rmSync(dir, { recursive: true, force: true });
});

describe('gridquote get', () => {
  let harness: Harness;
  let baseUrl: string;
  beforeAll(async () => {
    ({ harness, baseUrl } = await listening());
  });
  afterAll(() => harness.close());

  const csvOf = async (day: string) =>
    (await harness.get(`/api/tradelog?market=au_gas&date=${day}`, { accept: 'text/csv' })).body;
  /** The API and a historical key, as GRIDQUOTE_URL and GRIDQUOTE_KEY give them. */
  const historicalEnv = () => ({ GRIDQUOTE_URL: baseUrl, GRIDQUOTE_KEY: harness.keys.historical });
  /** `get tradelog market=au_gas` from..to into the test's folder, as CSV. */
  const tradelogCsvArgs = (from = FROM, to = TO) => [
    'get',
    'tradelog',
    'market=au_gas',
    '--from',
    from,
    '--to',
    to,
    '--out',
    dir,
    '--format',
    'csv',
  ];
  /** The day files in the folder (not the download index), by name. */
  const dayFiles = () =>
    readdirSync(dir)
      .filter((name) => name !== INDEX_FILE)
      .sort();
  /** Every day with data has its file, and it holds what the server answers for that day. */
  const expectEveryDayAsServed = async () => {
    for (const day of WITH_DATA) {
      expect(readFileSync(join(dir, `tradelog-au_gas-${day}.csv`), 'utf8')).toBe(await csvOf(day));
    }
  };

  it('writes one file per trading day with data, skips and counts days without, never prints the key', async () => {
    const key = harness.keys.historical;
    const result = await gridquote(tradelogCsvArgs(), { env: historicalEnv() });
    expect(result.code, result.stderr).toBe(0);
    expect(dayFiles()).toEqual(WITH_DATA.map((day) => `tradelog-au_gas-${day}.csv`));
    await expectEveryDayAsServed();
    // 20, 21 February and 3 March are trading days outside the history: 404, counted.
    expect(result.stdout).toMatch(
      /^8 trading days 20250220\.\.20250303 into .*: 5 downloaded \(\d+ bytes\), 0 unchanged \(304\), 3 without data \(404\) in \d+\.\d s\n$/,
    );
    expect(result.stderr).toContain('1/8 20250220 no data (404), skipped\n');
    expect(result.stderr).toContain('3/8 20250224 downloaded tradelog-au_gas-20250224.csv\n');
    expect(result.stdout + result.stderr).not.toContain(key);
    expect(result.stdout + result.stderr).not.toContain(key.slice(16));
  });

  it('writes JSON by default, named by every value sent, per datamine type', async () => {
    const key = harness.keys.historical;
    const result = await gridquote(
      [
        'get',
        'datamine',
        'type=au-oi',
        '--from',
        '20250227',
        '--to',
        '20250228',
        '--out',
        dir,
        '--base',
        baseUrl,
        '--key',
        key,
      ],
      {},
    );
    expect(result.code, result.stderr).toBe(0);
    const answer = (await harness.get('/api/datamine?type=au-oi&date=20250227')).json();
    expect(JSON.parse(readFileSync(join(dir, 'datamine-au-oi-20250227.json'), 'utf8'))).toEqual(answer);
  });

  it('resumes after an interrupted run: complete files are kept, the cut one is fetched again', async () => {
    const env = historicalEnv();
    const args = tradelogCsvArgs();
    // The connection dies in the middle of the 5th answer (the 3rd day with data).
    let requests = 0;
    const cutting: typeof fetch = async (input, init) => {
      const response = await fetch(input, init);
      if (++requests !== 5) return response;
      const body = new ReadableStream({
        start(controller) {
          controller.enqueue(new TextEncoder().encode('date,time,code'));
          controller.error(new TypeError('terminated'));
        },
      });
      return new Response(body, { status: response.status, headers: response.headers });
    };
    const interrupted = await gridquote(args, { env, fetch: cutting });
    expect(interrupted.code).toBe(1);
    expect(interrupted.stderr).toMatch(
      /\ngridquote: the API did not answer \(terminated\); run the same command again to resume\n$/,
    );
    expect(dayFiles()).toEqual(['tradelog-au_gas-20250224.csv', 'tradelog-au_gas-20250225.csv']);

    const sent: { url: string; ifNoneMatch: string | null }[] = [];
    const recording: typeof fetch = async (input, init) => {
      sent.push({ url: String(input), ifNoneMatch: new Headers(init?.headers).get('if-none-match') });
      return fetch(input, init);
    };
    const resumed = await gridquote(args, { env, fetch: recording });
    expect(resumed.code, resumed.stderr).toBe(0);
    // The two complete files are revalidated with their ETags (304); the cut one is fetched whole.
    expect(resumed.stdout).toMatch(
      /^8 trading days .*: 3 downloaded .*, 2 unchanged \(304\), 3 without data/,
    );
    const conditional = sent.filter((request) => request.ifNoneMatch !== null);
    expect(conditional.map((request) => new URL(request.url).searchParams.get('date'))).toEqual([
      '20250224',
      '20250225',
    ]);
    expect(sent).toHaveLength(8);
    await expectEveryDayAsServed();
    expect(readdirSync(dir).some((name) => name.endsWith('.partial'))).toBe(false);

    // A third run rewrites nothing: every file is revalidated and unchanged.
    sent.length = 0;
    const again = await gridquote(args, { env, fetch: recording });
    expect(again.stdout).toMatch(/: 0 downloaded \(0 bytes\), 5 unchanged \(304\), 3 without data/);
    expect(sent.filter((request) => request.ifNoneMatch?.startsWith('"'))).toHaveLength(5);
  });

  it('downloads a file again when it changed on disk since it was completed', async () => {
    const env = historicalEnv();
    const args = tradelogCsvArgs('20250224', '20250225');
    expect((await gridquote(args, { env })).code).toBe(0);
    writeFileSync(join(dir, 'tradelog-au_gas-20250224.csv'), 'damaged');
    const again = await gridquote(args, { env });
    expect(again.stdout).toMatch(/: 1 downloaded .*, 1 unchanged \(304\)/);
    expect(readFileSync(join(dir, 'tradelog-au_gas-20250224.csv'), 'utf8')).toBe(await csvOf('20250224'));
  });

  it('refuses what it cannot do, in one line, before or at the first request', async () => {
    const env = historicalEnv();
    const cases: [string[], RegExp][] = [
      [
        ['get', 'intraday', 'futures=BNH'],
        /unknown operation "intraday" for get; one of ticker, epi, npi, tradelog, data, datamine/,
      ],
      [['get', 'tradelog', 'market'], /expected NAME=VALUE, got "market"/],
      [['get', 'tradelog', 'date=20250224'], /date is set by get for each day/],
      [['get', 'tradelog', 'dat=1'], /tradelog has no parameter dat; it takes market, futures, options/],
      [['get', 'tradelog', 'market=au_gas', 'market=au_electricity'], /market is given twice; give it once/],
      [
        ['get', 'ticker', 'futures=BNZ', 'from=100000'],
        /ticker of a day answers the whole day: the API ignores from/,
      ],
      [['get', 'tradelog', 'market=au_gas', '--from', '20250231'], /--from must be a date yyyyMMdd/],
      [['get', 'tradelog', 'market=mars'], /the server refused \(400\): market: /],
    ];
    for (const [args, message] of cases) {
      const result = await gridquote(
        [
          ...args,
          ...(args.includes('--from') ? [] : ['--from', '20250224']),
          '--to',
          '20250228',
          '--out',
          dir,
        ],
        { env },
      );
      expect(result.code, args.join(' ')).toBe(1);
      expect(result.stderr).toMatch(message);
      expect(result.stderr.trim().split('\n')).toHaveLength(1);
    }
    const unreachable = await gridquote(
      ['get', 'epi', '--from', '20250224', '--to', '20250228', '--out', dir],
      {
        env: {
          GRIDQUOTE_URL: `http://127.0.0.1:${await closedPort()}`,
          GRIDQUOTE_KEY: harness.keys.historical,
        },
      },
    );
    expect(unreachable.stderr).toMatch(
      /^gridquote: the API did not answer \(.*ECONNREFUSED.*\); run the same command again/,
    );
    const keyless = await gridquote(['get', 'epi', '--from', '20250224', '--to', '20250228', '--out', dir], {
      env: { GRIDQUOTE_URL: baseUrl },
    });
    expect(keyless.stderr).toBe('gridquote: get needs an API key: set GRIDQUOTE_KEY or pass --key\n');
    const endOfDay = await gridquote(['get', 'epi', '--from', '20250224', '--to', '20250228', '--out', dir], {
      env: { GRIDQUOTE_URL: baseUrl, GRIDQUOTE_KEY: harness.keys.end_of_day },
    });
    expect(endOfDay.stderr).toMatch(/ignored date for this key .* needs a historical key/);
    expect(existsSync(join(dir, 'epi-20250224.json'))).toBe(false);
  });
});

describe('gridquote get within rate limits', () => {
  it('waits out a 429 (Retry-After) and completes', async () => {
    const { harness, baseUrl } = await listening({
      rateLimits: { historical: { perSecond: 5, perMinute: 0 }, end_of_day: UNLIMITED },
      rateLimitStore: refusingRateLimitStore([3]),
    });
    try {
      const result = await gridquote(
        ['get', 'data', 'futures=BNH', '--from', '20250224', '--to', '20250228', '--out', dir],
        { env: { GRIDQUOTE_URL: baseUrl, GRIDQUOTE_KEY: harness.keys.historical } },
      );
      expect(result.code, result.stderr).toBe(0);
      expect(result.stderr).toContain('429 from the server: retrying in 1 s\n');
      expect(result.stdout).toMatch(/: 5 downloaded/);
      const stored = JSON.parse(readFileSync(join(dir, 'data-BNH-20250226.json'), 'utf8'));
      expect(stored).toEqual((await harness.get('/api/data?futures=BNH&date=20250226')).json());
    } finally {
      await harness.close();
    }
  });
});
