import { execFile } from 'node:child_process';
import { closeSync, existsSync, mkdirSync, openSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { SETTINGS } from '../config.js';
import { DEFAULT_HTTP_LIMITS } from '../http/limits.js';
import { MIGRATIONS } from '../store/sqlite/migrations.js';
import {
  type BaselineConfig,
  type Child,
  type ChildStats,
  type ServerChildConfig,
  startChild,
} from './http-child.js';
import {
  closeFetchConnections,
  fetchOnce,
  type LoadRun,
  type LoadTarget,
  median,
  runLoad,
} from './http-load.js';
import { removeDatabase } from './measure.js';

/**
 * The HTTP benchmark (`npm run bench`): gridquote against the physical limit of this machine,
 * a bare node:http server sending the same bytes, measured in the same run. Every server runs
 * in a child process; runs of different servers are interleaved (a b, b a, a b ...) and the
 * medians compared, so a noisy neighbour slows both sides alike.
 */

export interface HttpBenchOptions {
  /** Kept between runs: the seeded history (reused when made with the same arguments). */
  readonly directory: string;
  /** Trading days of history in the served store. */
  readonly days: number;
  readonly until: string;
  readonly seed: number;
  /** Length of one load run. */
  readonly seconds: number;
  /** (a, b) pairs; the other cases run min(rounds, 3) rounds. */
  readonly rounds: number;
  readonly connections: number;
  /** Virtual seconds per real second of the live exchange in case (d). */
  readonly liveSpeed: number;
  /** Reseed the history even when a matching one exists. */
  readonly fresh: boolean;
  /** Node flags for the (b) server child, e.g. --cpu-prof (http-profile.ts). */
  readonly serveExecArgv?: readonly string[];
  /** Only what the profile needs: case (b), no baseline and no other case. */
  readonly profileOnly?: boolean;
  /** Only the headline comparison, (a) and (b): a quick check while working on the server. */
  readonly abOnly?: boolean;
}

/** A load run plus the server's own CPU time for it (read from the child before and after). */
export interface MeasuredRun extends LoadRun {
  /** Server process CPU (user + system, all its threads) per 2xx answer: µs. */
  readonly serverCpuUs: number;
}

export interface LoadSummary {
  readonly runs: readonly MeasuredRun[];
  readonly serverCpuUs: number;
  readonly requestsPerSecond: number;
  readonly p50Ms: number;
  readonly p99Ms: number;
  readonly bytesPerSecond: number;
  readonly bytesPerResponse: number;
  readonly errors: number;
}

export interface HistoryInfo {
  readonly path: string;
  readonly days: number;
  readonly first: string;
  readonly last: string;
  readonly reused: boolean;
  /** Wall time of the seed when this run made it. */
  readonly seedMs: number | undefined;
}

export interface HttpBenchResult {
  readonly machine: string;
  readonly options: HttpBenchOptions;
  readonly history: HistoryInfo;
  /** The past day of cases (b) and (c, cached). */
  readonly pastDate: string;
  readonly logLevel: string;
  /** Request lines the (b)/(c) server wrote to its stdout (a file), and their bytes. */
  readonly log: { readonly path: string; readonly lines: number; readonly bytes: number };
  readonly paths: {
    readonly tradelog: string;
    readonly ticker: string;
    readonly intraday: string;
  };
  /** Header names the baseline sends besides Node's own (Date, Connection, Keep-Alive). */
  readonly sameHeaders: readonly string[];
  readonly baseline?: LoadSummary;
  readonly gridquote: LoadSummary;
  /** Per round: (b) / (a), from runs adjacent in time. */
  readonly ratios?: { readonly requestsPerSecond: readonly number[]; readonly p99: readonly number[] };
  readonly tickerCached?: { readonly json: LoadSummary; readonly csv: LoadSummary };
  readonly tickerCold?: { readonly json: LoadSummary; readonly csv: LoadSummary; readonly days: number };
  readonly intraday?: LoadSummary & { readonly eventsIngested: number; readonly historyDays: number };
  /** Single requests, each for a distinct day, on the (b) server before any load: ms. */
  readonly coldLatency?: {
    readonly json: readonly number[];
    readonly csv: readonly number[];
    readonly jsonBrotli: readonly number[];
    /** JSON, identity, each remaining day, after the load runs (filling the answer cache). */
    readonly cacheFill?: readonly number[];
  };
  readonly memory: {
    /** At the end: after its load runs and with the answer cache filled. */
    readonly serve: ChildStats;
    /** After its load runs, before the answer cache was filled. */
    readonly serveAfterLoad?: ChildStats;
    readonly noCache?: ChildStats;
    readonly live?: ChildStats;
  };
  readonly wallMs: number;
  /** profileOnly: requests the profiled server answered in all. */
  readonly profiledRequests?: number;
}

const MARKET = 'au_electricity';
/** Cases (c) and (d): fewer rounds than the headline comparison. */
const SIDE_ROUNDS = 3;
const WARMUP_SECONDS = 1;
const COLD_DAYS = 10;
const LIVE_HISTORY_DAYS = 10;
/** Headers Node's http server adds by itself, to either server's answers. */
const NODE_OWN_HEADERS = new Set(['date', 'connection', 'keep-alive', 'transfer-encoding']);
/** Header values that differ on every answer of gridquote; the baseline sends the fetched one. */
const PER_ANSWER_HEADERS = new Set(['x-request-id', 'ratelimit']);

export async function benchHttp(options: HttpBenchOptions): Promise<HttpBenchResult> {
  const started = performance.now();
  mkdirSync(options.directory, { recursive: true });
  const load = loadavg()[0] ?? 0;
  const machine = `${cpus()[0]?.model ?? 'unknown CPU'} x ${cpus().length}, Node ${process.version}, load average ${load.toFixed(2)} at the start of the HTTP part`;
  const history = await ensureHistory(options);
  progress(`history ${history.first}..${history.last} (${history.days} days) in ${history.path}`);

  const settings = { connections: options.connections, seconds: options.seconds };
  const warmup = { connections: options.connections, seconds: WARMUP_SECONDS };
  const logLevel = SETTINGS.logLevel.fallback;
  const logPath = join(options.directory, 'serve-stdout.log');
  const logFd = openSync(logPath, 'w');
  const serve = await startChild(
    './http-server-child.js',
    [JSON.stringify({ mode: 'serve', db: history.path, logLevel } satisfies ServerChildConfig)],
    { stdout: logFd, execArgv: options.serveExecArgv ?? [] },
  );
  // The child holds its own copy of the descriptor.
  closeSync(logFd);
  let baselineChild: Child | undefined;
  try {
    const dates = serve.ready.dates ?? [];
    const key = serve.ready.key ?? '';
    // The day before the latest: past, so its answers are cached until a late event for the day.
    const pastDate = dates.at(-2) ?? '';
    const auth = { authorization: `Bearer ${key}` };
    const json = { ...auth, accept: 'application/json' };
    const csv = { ...auth, accept: 'text/csv' };
    const paths = {
      tradelog: `/api/tradelog?market=${MARKET}&date=${pastDate}`,
      ticker: `/api/ticker?futures=${MARKET}&date=${pastDate}`,
      intraday: `/api/intraday?futures=${MARKET}`,
    };
    const tradelog: LoadTarget = { url: serve.ready.url, paths: [paths.tradelog], headers: json };

    // gridquote's answer for (b), fetched once: the baseline serves exactly these bytes.
    const reference = await fetchOnce(`${serve.ready.url}${paths.tradelog}`, json);
    if (reference.status !== 200) {
      throw new Error(`${paths.tradelog} answered ${reference.status}: ${reference.body.toString()}`);
    }

    const onlyB = options.profileOnly === true || options.abOnly === true;
    let coldLatency: HttpBenchResult['coldLatency'];
    if (!onlyB) {
      // Before any load: each request names a day nothing has asked for, so each is a miss.
      progress(`cold full-day ticker, single requests on ${3 * COLD_DAYS} distinct days`);
      const cold = (offset: number) => dates.slice(-2 - offset - COLD_DAYS, -2 - offset);
      const time = (days: readonly string[], headers: Record<string, string>) =>
        timeTickers(serve.ready.url, days, headers);
      coldLatency = {
        json: await time(cold(0), json),
        csv: await time(cold(COLD_DAYS), csv),
        jsonBrotli: await time(cold(2 * COLD_DAYS), { ...json, 'accept-encoding': 'gzip, deflate, br' }),
      };
    }

    const sameHeaders = reference.rawHeaders
      .filter((_, index) => index % 2 === 0)
      .map((name) => name.toLowerCase())
      .filter((name) => !NODE_OWN_HEADERS.has(name));
    let baseline: LoadSummary | undefined;
    let gridquote: LoadSummary;
    let ratios: HttpBenchResult['ratios'];
    let profiledRequests: number | undefined;
    if (options.profileOnly) {
      const warm = await runLoad(tradelog, warmup);
      progress(`(b) gridquote ${paths.tradelog}, ${options.seconds} s under the profiler`);
      gridquote = summarise([
        await measuredRun({ label: '(b) gridquote', target: tradelog, server: serve }, settings),
      ]);
      // The reference fetch, the warm-up and the run: everything the profile saw.
      profiledRequests = 1 + warm.requests + gridquote.runs.reduce((sum, run) => sum + run.requests, 0);
    } else {
      baselineChild = await startChild(
        './http-baseline-child.js',
        [JSON.stringify(baselineConfig(reference.status, reference.rawHeaders, reference.body))],
        { stdout: 'ignore' },
      );
      const baselineTarget: LoadTarget = { ...tradelog, url: baselineChild.ready.url };
      await checkSameAnswer(baselineTarget, reference.rawHeaders, reference.body);
      progress(
        `(a) baseline vs (b) gridquote on ${paths.tradelog}: ${options.rounds} rounds of ${options.seconds} s each`,
      );
      const [a = [], b = []] = await interleave(
        [
          { label: '(a) baseline', target: baselineTarget, server: baselineChild },
          { label: '(b) gridquote', target: tradelog, server: serve },
        ],
        options.rounds,
        settings,
        warmup,
      );
      baseline = summarise(a);
      gridquote = summarise(b);
      ratios = {
        requestsPerSecond: a.map((run, i) => (b[i]?.requestsPerSecond ?? Number.NaN) / run.requestsPerSecond),
        p99: a.map((run, i) => (b[i]?.p99Ms ?? Number.NaN) / run.p99Ms),
      };
      await baselineChild.stop();
      baselineChild = undefined;
    }

    let tickerCached: HttpBenchResult['tickerCached'];
    if (!onlyB) {
      progress(`(c) cached full-day ticker ${paths.ticker}, JSON and CSV`);
      const ticker = { url: serve.ready.url, paths: [paths.ticker] };
      const [j = [], c = []] = await interleave(
        [
          { label: '(c) ticker JSON cached', target: { ...ticker, headers: json }, server: serve },
          { label: '(c) ticker CSV cached', target: { ...ticker, headers: csv }, server: serve },
        ],
        Math.min(options.rounds, SIDE_ROUNDS),
        settings,
        warmup,
      );
      tickerCached = { json: summarise(j), csv: summarise(c) };
    }
    closeFetchConnections();
    let serveMemory = await serve.stats();
    let serveAfterLoad: ChildStats | undefined;
    let cacheFill: readonly number[] | undefined;
    if (!onlyB) {
      // The worst case for memory: the answer cache full (its budget, 32 MiB, is smaller than
      // the JSON tickers of the days left), each one a cold answer timed like the ones above.
      const fillDays = dates.slice(0, -2 - 3 * COLD_DAYS);
      progress(`filling the answer cache: full-day ticker JSON of ${fillDays.length} more days`);
      serveAfterLoad = serveMemory;
      cacheFill = await timeTickers(serve.ready.url, fillDays, json);
      serveMemory = await serve.stats();
    }
    await serve.stop();
    const logBytes = readFileSync(logPath);
    const log = { path: logPath, lines: countLines(logBytes), bytes: logBytes.length };
    rmSync(logPath, { force: true });

    if (onlyB) {
      return {
        machine,
        options,
        history,
        pastDate,
        logLevel,
        log,
        paths,
        sameHeaders,
        baseline,
        gridquote,
        ratios,
        profiledRequests,
        memory: { serve: serveMemory },
        wallMs: performance.now() - started,
      };
    }

    // (c) cold: a server with the answer cache off, on the same store, cycling distinct days.
    const coldDays = dates.slice(-2 - 2 * COLD_DAYS, -2);
    progress(`(c) cold full-day ticker (cache off), JSON and CSV, cycling ${coldDays.length} days`);
    const noCacheFd = openSync(logPath, 'w');
    const noCache = await startChild(
      './http-server-child.js',
      [JSON.stringify({ mode: 'no-cache', db: history.path, logLevel } satisfies ServerChildConfig)],
      { stdout: noCacheFd },
    );
    closeSync(noCacheFd);
    let tickerCold: HttpBenchResult['tickerCold'];
    let noCacheMemory: ChildStats;
    try {
      const coldPaths = coldDays.map((day) => `/api/ticker?futures=${MARKET}&date=${day}`);
      const authCold = { authorization: `Bearer ${noCache.ready.key ?? ''}` };
      const [j = [], c = []] = await interleave(
        [
          {
            label: '(c) ticker JSON cold',
            target: {
              url: noCache.ready.url,
              paths: coldPaths,
              headers: { ...authCold, accept: 'application/json' },
            },
            server: noCache,
          },
          {
            label: '(c) ticker CSV cold',
            target: {
              url: noCache.ready.url,
              paths: coldPaths,
              headers: { ...authCold, accept: 'text/csv' },
            },
            server: noCache,
          },
        ],
        Math.min(options.rounds, SIDE_ROUNDS),
        settings,
        warmup,
      );
      tickerCold = { json: summarise(j), csv: summarise(c), days: coldDays.length };
      noCacheMemory = await noCache.stats();
    } finally {
      await noCache.stop();
      rmSync(logPath, { force: true });
    }

    // (d) the intraday snapshot while the demo's live exchange ingests in the same process.
    const liveDb = join(options.directory, 'live.db');
    removeDatabase(liveDb);
    progress(`(d) ${paths.intraday} while the live exchange replays at ${options.liveSpeed}x`);
    const live = await startChild(
      './http-server-child.js',
      [
        JSON.stringify({
          mode: 'live',
          db: liveDb,
          historyDays: LIVE_HISTORY_DAYS,
          until: options.until,
          seed: options.seed,
          speed: options.liveSpeed,
        } satisfies ServerChildConfig),
      ],
      { stdout: 'ignore' },
    );
    let intraday: HttpBenchResult['intraday'];
    let liveMemory: ChildStats;
    try {
      const target: LoadTarget = {
        url: live.ready.url,
        paths: [paths.intraday],
        headers: { authorization: `Bearer ${live.ready.key ?? ''}`, accept: 'application/json' },
      };
      const before = (await live.stats()).storeVersion ?? 0;
      const [runs = []] = await interleave(
        [{ label: '(d) intraday, live', target, server: live }],
        Math.min(options.rounds, SIDE_ROUNDS),
        settings,
        warmup,
      );
      liveMemory = await live.stats();
      intraday = {
        ...summarise(runs),
        eventsIngested: (liveMemory.storeVersion ?? 0) - before,
        historyDays: LIVE_HISTORY_DAYS,
      };
    } finally {
      await live.stop();
      removeDatabase(liveDb);
    }

    return {
      machine,
      options,
      history,
      pastDate,
      logLevel,
      log,
      paths,
      sameHeaders,
      baseline,
      gridquote,
      ratios,
      tickerCached,
      tickerCold,
      intraday,
      coldLatency: coldLatency && cacheFill ? { ...coldLatency, cacheFill } : coldLatency,
      memory: { serve: serveMemory, serveAfterLoad, noCache: noCacheMemory, live: liveMemory },
      wallMs: performance.now() - started,
    };
  } finally {
    closeFetchConnections();
    await baselineChild?.stop();
    await serve.stop();
  }
}

/** Full-day market tickers of the given days, one request at a time: ms each. */
async function timeTickers(
  url: string,
  days: readonly string[],
  headers: Readonly<Record<string, string>>,
): Promise<number[]> {
  const ms: number[] = [];
  for (const day of days) {
    const fetched = await fetchOnce(`${url}/api/ticker?futures=${MARKET}&date=${day}`, headers);
    if (fetched.status !== 200) throw new Error(`ticker of ${day} answered ${fetched.status}`);
    ms.push(fetched.ms);
  }
  return ms;
}

/** What one load run is aimed at, and the process whose CPU time it costs. */
interface Case {
  readonly label: string;
  readonly target: LoadTarget;
  readonly server: Child;
}

/**
 * Runs each case once per round, the order reversed every other round (a b, b a, ...) so that
 * drift in the machine's load falls on both; a short unmeasured run first warms each up.
 */
async function interleave(
  cases: readonly Case[],
  rounds: number,
  settings: { connections: number; seconds: number },
  warmup: { connections: number; seconds: number },
): Promise<MeasuredRun[][]> {
  for (const { target } of cases) await runLoad(target, warmup);
  const runs: MeasuredRun[][] = cases.map(() => []);
  for (let round = 0; round < rounds; round++) {
    const order = cases.map((_, index) => index);
    if (round % 2 === 1) order.reverse();
    for (const index of order) {
      const one = cases[index];
      if (one === undefined) continue;
      const run = await measuredRun(one, settings);
      runs[index]?.push(run);
      progress(
        `  round ${round + 1}, ${one.label}: ${Math.round(run.requestsPerSecond)} req/s, p99 ${run.p99Ms.toFixed(2)} ms, server CPU ${Math.round(run.serverCpuUs)} µs/answer`,
      );
    }
  }
  return runs;
}

async function measuredRun(
  one: Case,
  settings: { connections: number; seconds: number },
): Promise<MeasuredRun> {
  const before = await one.server.stats();
  const run = await runLoad(one.target, settings);
  const after = await one.server.stats();
  return { ...run, serverCpuUs: run.requests > 0 ? (after.cpuMicros - before.cpuMicros) / run.requests : 0 };
}

function summarise(runs: readonly MeasuredRun[]): LoadSummary {
  return {
    runs,
    serverCpuUs: median(runs.map((run) => run.serverCpuUs)),
    requestsPerSecond: median(runs.map((run) => run.requestsPerSecond)),
    p50Ms: median(runs.map((run) => run.p50Ms)),
    p99Ms: median(runs.map((run) => run.p99Ms)),
    bytesPerSecond: median(runs.map((run) => run.bytesPerSecond)),
    bytesPerResponse: median(runs.map((run) => run.bytesPerResponse)),
    errors: runs.reduce((sum, run) => sum + run.errors, 0),
  };
}

function baselineConfig(status: number, rawHeaders: readonly string[], body: Buffer): BaselineConfig {
  const headers: string[] = [];
  for (let i = 0; i + 1 < rawHeaders.length; i += 2) {
    const name = rawHeaders[i] ?? '';
    if (!NODE_OWN_HEADERS.has(name.toLowerCase())) headers.push(name, rawHeaders[i + 1] ?? '');
  }
  return {
    status,
    headers,
    bodyBase64: body.toString('base64'),
    keepAliveTimeoutMs: DEFAULT_HTTP_LIMITS.keepAliveTimeoutMs,
  };
}

/** The baseline must answer what gridquote answered: same body, same headers in the same order. */
async function checkSameAnswer(
  target: LoadTarget,
  rawHeaders: readonly string[],
  body: Buffer,
): Promise<void> {
  const fetched = await fetchOnce(`${target.url}${target.paths[0] ?? ''}`, target.headers);
  const comparable = (raw: readonly string[]) => {
    const pairs: string[] = [];
    for (let i = 0; i + 1 < raw.length; i += 2) {
      const name = (raw[i] ?? '').toLowerCase();
      if (name === 'date') continue;
      pairs.push(`${name}: ${PER_ANSWER_HEADERS.has(name) ? '*' : raw[i + 1]}`);
    }
    return pairs.join('\n');
  };
  if (!fetched.body.equals(body) || comparable(fetched.rawHeaders) !== comparable(rawHeaders)) {
    throw new Error(
      `the baseline's answer differs from gridquote's:\n${comparable(fetched.rawHeaders)}\n---\n${comparable(rawHeaders)}`,
    );
  }
}

/**
 * The seeded history, made once (in a child, like the seed benchmark) and reused while a marker
 * records the same arguments and schema; --http-fresh makes it again.
 */
async function ensureHistory(options: HttpBenchOptions): Promise<HistoryInfo> {
  const path = join(options.directory, `history-${options.days}d-${options.until}-seed${options.seed}.db`);
  const marker = `${path}.done`;
  const expected = JSON.stringify({
    days: options.days,
    until: options.until,
    seed: options.seed,
    migrations: MIGRATIONS.length,
  });
  const recorded = existsSync(marker) ? readFileSync(marker, 'utf8') : '';
  const stored = recorded === '' ? undefined : (JSON.parse(recorded) as { first: string; last: string });
  if (!options.fresh && stored !== undefined && existsSync(path) && sameArguments(recorded, expected)) {
    return {
      path,
      days: options.days,
      first: stored.first,
      last: stored.last,
      reused: true,
      seedMs: undefined,
    };
  }
  rmSync(marker, { force: true });
  removeDatabase(path);
  progress(`seeding ${options.days} trading days up to ${options.until} into ${path} (about a minute)`);
  const child = fileURLToPath(new URL('./seed-child.js', import.meta.url));
  const { stdout } = await promisify(execFile)(
    process.execPath,
    [child, path, String(options.days), options.until, String(options.seed)],
    { maxBuffer: 1024 * 1024 },
  );
  const report = JSON.parse(stdout) as { wallMs: number; days: number; first: string; last: string };
  writeFileSync(marker, JSON.stringify({ ...JSON.parse(expected), first: report.first, last: report.last }));
  return {
    path,
    days: report.days,
    first: report.first,
    last: report.last,
    reused: false,
    seedMs: report.wallMs,
  };
}

function sameArguments(recorded: string, expected: string): boolean {
  const record = JSON.parse(recorded) as Record<string, unknown>;
  const wanted = JSON.parse(expected) as Record<string, unknown>;
  return Object.entries(wanted).every(([name, value]) => record[name] === value);
}

function countLines(bytes: Buffer): number {
  let total = 0;
  for (let index = bytes.indexOf(10); index >= 0; index = bytes.indexOf(10, index + 1)) total++;
  return total;
}

function progress(line: string): void {
  process.stderr.write(`bench http: ${line}\n`);
}

function positive(argv: readonly string[], name: string, fallback: number): number {
  const index = argv.indexOf(name);
  const value = index >= 0 ? Number(argv[index + 1]) : fallback;
  if (!Number.isInteger(value) || value < 1) throw new Error(`${name} needs a positive whole number`);
  return value;
}

/**
 * Flags: --http-duration S (seconds per load run, default 5), --http-rounds N (a/b pairs,
 * default 5), --http-days N (history, default 250), --http-connections N (default 10),
 * --http-speed N (live replay speed, default 600), --http-fresh (reseed the history), --http-ab
 * (only (a) and (b), printed rather than written to the docs).
 */
export function httpOptions(
  argv: readonly string[],
  directory: string,
  until: string,
  seed: number,
): HttpBenchOptions {
  const days = positive(argv, '--http-days', 250);
  // Distinct past days for the cold requests (3 x 10), the cached day and the latest, and some to fill the cache.
  if (days < 40) throw new Error('--http-days needs at least 40 trading days');
  return {
    directory,
    days,
    until,
    seed,
    seconds: positive(argv, '--http-duration', 5),
    rounds: positive(argv, '--http-rounds', 5),
    connections: positive(argv, '--http-connections', 10),
    liveSpeed: positive(argv, '--http-speed', 600),
    fresh: argv.includes('--http-fresh'),
    abOnly: argv.includes('--http-ab'),
  };
}
