import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { SETTINGS } from '../config.js';
import { createApiKey } from '../http/api-keys.js';
import { DEFAULT_HTTP_LIMITS } from '../http/limits.js';
import { openStore } from '../store/open-store.js';
import { MIGRATIONS } from '../store/sqlite/migrations.js';
import {
  type BaselineConfig,
  BENCH_RATE_LIMIT,
  type Child,
  type ServerChildConfig,
  startChild,
} from './http-child.js';
import { closeFetchConnections, fetchOnce, median } from './http-load.js';
import { type ServeProcess, startServe } from './http-serve.js';
import { removeDatabase } from './measure.js';
import { peakRssBytes, processTreeCpuMicros } from './process-cpu.js';
import { ensureWrk, type LoadRun, type LoadSettings, type LoadTarget, runWrk } from './wrk.js';

/**
 * The HTTP benchmark (`npm run bench`): gridquote against the physical limit of this machine,
 * a bare node:http server sending the identical bytes, measured in the same run. Every server
 * runs in a process of its own and wrk drives it from another; runs of the two servers are
 * interleaved (a b, b a, ...) and the medians compared, so a noisy neighbour slows both alike.
 * Each case is one small function below.
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
  /** Interleaved runs of each server per case. */
  readonly rounds: number;
  readonly connections: number;
  /** Virtual seconds per real second of the live exchange. */
  readonly liveSpeed: number;
  /** Worker counts of the scaling comparison (the first is the reference), e.g. [1, 2]. */
  readonly workers: readonly number[];
  /** Reseed the history even when a matching one exists. */
  readonly fresh: boolean;
}

/** One server's runs of one case: medians, and server CPU per answer. */
export interface Side {
  readonly runs: readonly MeasuredRun[];
  readonly requestsPerSecond: number;
  readonly p50Ms: number;
  readonly p99Ms: number;
  /** Server CPU (user + system, every thread, the workers included) per answer: µs. */
  readonly cpuUs: number;
  readonly bytesPerResponse: number;
  readonly errors: number;
}

export interface MeasuredRun extends LoadRun {
  readonly cpuUs: number;
}

/** gridquote and the bare node:http server sending its bytes, on one request. */
export interface CaseResult {
  readonly label: string;
  /** The request as a reader should see it (path and query). */
  readonly request: string;
  readonly gridquote: Side;
  readonly baseline: Side;
  /** Header names the baseline sends besides Node's own (Date, Connection, Keep-Alive). */
  readonly sameHeaders: readonly string[];
}

export interface HttpBenchResult {
  readonly machine: string;
  readonly options: HttpBenchOptions;
  readonly history: HistoryInfo;
  readonly logLevel: string;
  readonly cases: readonly CaseResult[];
  /** The same cached request on `serve --workers N` for each N of options.workers. */
  readonly scaling: { readonly request: string; readonly sides: readonly ScalingSide[] };
  /** Single requests, each for a distinct past day, before any load: ms. */
  readonly coldTickerMs: readonly number[];
  /** Peak RSS of `serve --workers 1` at the end (answer cache filled by the runs). */
  readonly serveRssBytes: number;
  /** Events the live exchange committed during the live case's runs. */
  readonly liveEvents: number;
  readonly liveHistoryDays: number;
  readonly wallMs: number;
}

/** One `serve --workers N` of the scaling comparison, with the rate-limited key or one without limits. */
export interface ScalingSide {
  readonly workers: number;
  readonly limited: boolean;
  readonly side: Side;
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

const MARKET = 'au_electricity';
const WARMUP_SECONDS = 1;
const COLD_DAYS = 10;
const LIVE_HISTORY_DAYS = 10;
/** Headers Node's http server adds by itself, to either server's answers. */
const NODE_OWN_HEADERS = new Set(['date', 'connection', 'keep-alive', 'transfer-encoding']);
/** Header values that differ on every answer of gridquote; the baseline sends the fetched one. */
const PER_ANSWER_HEADERS = new Set(['x-request-id', 'ratelimit']);

/** Where a case sends its load, and the process whose CPU time it costs. */
interface Measured {
  readonly label: string;
  readonly target: LoadTarget;
  readonly pid: number;
}

interface Run {
  readonly options: HttpBenchOptions;
  readonly settings: LoadSettings;
  readonly headers: Readonly<Record<string, string>>;
}

export async function benchHttp(options: HttpBenchOptions): Promise<HttpBenchResult> {
  const started = performance.now();
  ensureWrk(progress);
  mkdirSync(options.directory, { recursive: true });
  const load = loadavg()[0] ?? 0;
  const machine = `${cpus()[0]?.model ?? 'unknown CPU'} x ${cpus().length}, Node ${process.version}, load average ${load.toFixed(2)} at the start of the HTTP part`;
  const history = await ensureHistory(options);
  progress(`history ${history.first}..${history.last} (${history.days} days) in ${history.path}`);
  const { key, unlimitedKey, dates } = await addBenchKey(history.path);
  const run: Run = {
    options,
    settings: { connections: options.connections, seconds: options.seconds },
    headers: { authorization: `Bearer ${key}`, accept: 'application/json' },
  };
  // The day before the latest: past, so its answers stay cached.
  const pastDate = dates.at(-2) ?? '';
  const coldDays = dates.slice(-2 - COLD_DAYS, -2);
  const logPath = join(options.directory, 'serve-stdout.log');
  const serve = await startServe({ db: history.path, workers: 1, logPath });
  try {
    // Before any load: each request names a day nothing has asked for, so each is a miss.
    progress(`cold full-day ticker, single requests on ${COLD_DAYS} distinct days`);
    const coldTickerMs = await timeTickers(serve.url, coldDays, run.headers);
    const cases = [
      await epiCase(run, serve, pastDate),
      await contractIntradayCase(run, serve),
      await tradelogCase(run, serve, pastDate),
    ];
    const scaling = await workersCase(run, serve, history.path, pastDate, unlimitedKey);
    const serveRssBytes = peakRssBytes(serve.pid)[0] ?? 0;
    await serve.stop();
    cases.push(await coldTickerCase(run, history.path, dates.slice(-2 - 3 * COLD_DAYS, -2 - COLD_DAYS)));
    const live = await liveIntradayCase(run);
    cases.push(live.result);
    return {
      machine,
      options,
      history,
      logLevel: String(SETTINGS.logLevel.fallback),
      cases,
      scaling,
      coldTickerMs,
      serveRssBytes,
      liveEvents: live.events,
      liveHistoryDays: LIVE_HISTORY_DAYS,
      wallMs: performance.now() - started,
    };
  } finally {
    closeFetchConnections();
    await serve.stop();
    rmSync(logPath, { force: true });
  }
}

/**
 * The cached trade-log case against gridquote alone, its server run with `execArgv` (e.g.
 * --cpu-prof, written when it exits): for http-profile.ts. Requests counts everything the
 * server answered, the warm-up included.
 */
export async function profileTradelog(
  options: HttpBenchOptions,
  execArgv: readonly string[],
): Promise<{ requestsPerSecond: number; requests: number }> {
  ensureWrk(progress);
  const history = await ensureHistory(options);
  const { key, dates } = await addBenchKey(history.path);
  const logPath = join(options.directory, 'serve-stdout.log');
  const serve = await startServe({ db: history.path, workers: 1, logPath, execArgv });
  try {
    const target: LoadTarget = {
      url: serve.url,
      paths: [`/api/tradelog?market=${MARKET}&date=${dates.at(-2) ?? ''}`],
      headers: { authorization: `Bearer ${key}`, accept: 'application/json' },
    };
    const warm = await runWrk(target, { connections: options.connections, seconds: WARMUP_SECONDS });
    progress(`${target.paths[0]}, ${options.seconds} s under the profiler`);
    const run = await runWrk(target, { connections: options.connections, seconds: options.seconds });
    return { requestsPerSecond: run.requestsPerSecond, requests: warm.requests + run.requests };
  } finally {
    await serve.stop();
    rmSync(logPath, { force: true });
  }
}

/** Small cached answer: the EPI of a past day. */
function epiCase(run: Run, serve: ServeProcess, pastDate: string): Promise<CaseResult> {
  return compareWithBaseline(run, 'EPI of a past day, cached', serve, [`/api/epi?date=${pastDate}`]);
}

/** Small cached answer: one contract's intraday snapshot (the first contract of the market's). */
async function contractIntradayCase(run: Run, serve: ServeProcess): Promise<CaseResult> {
  const market = await fetchOnce(`${serve.url}/api/intraday?futures=${MARKET}`, run.headers);
  const code = /"code":"([^"]+)"/.exec(market.body.toString())?.[1];
  if (code === undefined) throw new Error(`no contract code in the intraday answer of ${MARKET}`);
  return compareWithBaseline(run, "one contract's intraday snapshot, cached", serve, [
    `/api/intraday?futures=${code}`,
  ]);
}

/** Large cached answer: a market's trade log of a past day. */
function tradelogCase(run: Run, serve: ServeProcess, pastDate: string): Promise<CaseResult> {
  return compareWithBaseline(run, "a market's past-day trade log, cached", serve, [
    `/api/tradelog?market=${MARKET}&date=${pastDate}`,
  ]);
}

/**
 * The cold full-day ticker: a server with the answer cache off (else the composition of
 * `serve`), each request a whole past day in turn, so every answer is queried and serialised.
 * The baseline sends the first day's bytes for every request.
 */
async function coldTickerCase(run: Run, db: string, days: readonly string[]): Promise<CaseResult> {
  const logPath = join(run.options.directory, 'no-cache-stdout.log');
  const config: ServerChildConfig = { mode: 'no-cache', db, logLevel: String(SETTINGS.logLevel.fallback) };
  const child = await startChild('./http-server-child.js', [JSON.stringify(config)], { stdout: 'ignore' });
  try {
    const paths = days.map((day) => `/api/ticker?futures=${MARKET}&date=${day}`);
    const result = await compareWithBaseline(
      { ...run, headers: { ...run.headers, authorization: `Bearer ${child.ready.key ?? ''}` } },
      `full-day market ticker, cold (cache off), ${days.length} past days in turn`,
      { url: child.ready.url, pid: child.pid },
      paths,
    );
    return { ...result, request: `/api/ticker?futures=${MARKET}&date=…` };
  } finally {
    await child.stop();
    rmSync(logPath, { force: true });
  }
}

/**
 * The live intraday snapshot: the demo's composition on a fresh history, its exchange
 * replaying the following days in the server process; every commit drops the cached answer.
 * The baseline sends one snapshot's bytes.
 */
async function liveIntradayCase(run: Run): Promise<{ result: CaseResult; events: number }> {
  const db = join(run.options.directory, 'live.db');
  removeDatabase(db);
  progress(`live exchange at ${run.options.liveSpeed}x on a ${LIVE_HISTORY_DAYS}-day history`);
  const config: ServerChildConfig = {
    mode: 'live',
    db,
    historyDays: LIVE_HISTORY_DAYS,
    until: run.options.until,
    seed: run.options.seed,
    speed: run.options.liveSpeed,
  };
  const child = await startChild('./http-server-child.js', [JSON.stringify(config)], { stdout: 'ignore' });
  try {
    const before = await storeVersion(child);
    const result = await compareWithBaseline(
      { ...run, headers: { ...run.headers, authorization: `Bearer ${child.ready.key ?? ''}` } },
      'intraday snapshot of the market while the live feed ingests',
      { url: child.ready.url, pid: child.pid },
      [`/api/intraday?futures=${MARKET}`],
    );
    return { result, events: (await storeVersion(child)) - before };
  } finally {
    await child.stop();
    removeDatabase(db);
  }
}

async function storeVersion(child: Child): Promise<number> {
  return (await child.stats()).storeVersion ?? 0;
}

/**
 * Scaling: the EPI case on `serve --workers N` for each N, interleaved; CPU per answer counts
 * every process of the server (primary and workers). Each N runs with the rate-limited key and
 * with a key without limits, which skips the limiter: the difference is what the shared counter
 * costs. The load generator shares the cores.
 */
async function workersCase(
  run: Run,
  first: ServeProcess,
  db: string,
  pastDate: string,
  unlimitedKey: string,
): Promise<HttpBenchResult['scaling']> {
  const request = `/api/epi?date=${pastDate}`;
  const servers: { workers: number; serve: ServeProcess }[] = [];
  try {
    for (const workers of run.options.workers) {
      const serve =
        workers === 1
          ? first
          : await startServe({
              db,
              workers,
              logPath: join(run.options.directory, `serve-${workers}-stdout.log`),
            });
      servers.push({ workers, serve });
    }
    progress(`scaling: ${request} on serve --workers ${run.options.workers.join(', ')}`);
    const unlimited = { ...run.headers, authorization: `Bearer ${unlimitedKey}` };
    await warmFreshServers(run, servers, request, [run.headers, unlimited]);
    const sides = servers.flatMap(({ workers, serve }) =>
      [true, false].map((limited) => ({
        workers,
        limited,
        measured: {
          label: `--workers ${workers}, ${limited ? 'rate-limited key' : 'key without limits'}`,
          target: { url: serve.url, paths: [request], headers: limited ? run.headers : unlimited },
          pid: serve.pid,
        },
      })),
    );
    const runs = await interleave(
      sides.map((side) => side.measured),
      run.options.rounds,
      run.settings,
    );
    return {
      request,
      sides: sides.map(({ workers, limited }, index) => ({
        workers,
        limited,
        side: summarise(runs[index] ?? []),
      })),
    };
  } finally {
    for (const { workers, serve } of servers) {
      if (workers === 1) continue;
      await serve.stop();
      rmSync(join(run.options.directory, `serve-${workers}-stdout.log`), { force: true });
    }
  }
}

/**
 * The servers the scaling case started itself are cold (the first has served every earlier
 * case): without a longer warm-up, whichever side is measured first on them pays for the JIT
 * compiling its request path, and the comparison shows that instead of the workers.
 */
async function warmFreshServers(
  run: Run,
  servers: readonly { readonly workers: number; readonly serve: ServeProcess }[],
  request: string,
  keys: readonly Readonly<Record<string, string>>[],
): Promise<void> {
  for (const { workers, serve } of servers) {
    if (workers === 1) continue;
    for (const headers of keys) {
      await runWrk(
        { url: serve.url, paths: [request], headers },
        { ...run.settings, seconds: FRESH_WARMUP_SECONDS },
      );
    }
  }
}

const FRESH_WARMUP_SECONDS = 3;

/**
 * gridquote's answer to the first path, fetched once, served by a bare node:http server with
 * the same headers; then both loaded in interleaved rounds.
 */
async function compareWithBaseline(
  run: Run,
  label: string,
  server: { readonly url: string; readonly pid: number },
  paths: readonly string[],
): Promise<CaseResult> {
  const target: LoadTarget = { url: server.url, paths, headers: run.headers };
  const reference = await fetchOnce(`${server.url}${paths[0] ?? ''}`, run.headers);
  if (reference.status !== 200) {
    throw new Error(`${paths[0]} answered ${reference.status}: ${reference.body.toString()}`);
  }
  const configPath = join(run.options.directory, 'baseline.json');
  writeFileSync(
    configPath,
    JSON.stringify(baselineConfig(reference.status, reference.rawHeaders, reference.body)),
  );
  const baseline = await startChild('./http-baseline-child.js', [configPath], { stdout: 'ignore' });
  try {
    const baselineTarget: LoadTarget = { ...target, url: baseline.ready.url };
    await checkSameAnswer(baselineTarget, reference.rawHeaders, reference.body);
    progress(`${label}: ${paths[0]}`);
    const [g = [], b = []] = await interleave(
      [
        { label: 'gridquote', target, pid: server.pid },
        { label: 'node:http', target: baselineTarget, pid: baseline.pid },
      ],
      run.options.rounds,
      run.settings,
    );
    return {
      label,
      request: paths[0] ?? '',
      gridquote: summarise(g),
      baseline: summarise(b),
      sameHeaders: reference.rawHeaders
        .filter((_, index) => index % 2 === 0)
        .map((name) => name.toLowerCase())
        .filter((name) => !NODE_OWN_HEADERS.has(name)),
    };
  } finally {
    await baseline.stop();
    rmSync(configPath, { force: true });
  }
}

/**
 * Runs each server once per round, the order reversed every other round (a b, b a, ...) so
 * that drift in the machine's load falls on both; a short unmeasured run first warms each up.
 */
async function interleave(
  servers: readonly Measured[],
  rounds: number,
  settings: LoadSettings,
): Promise<MeasuredRun[][]> {
  for (const { target } of servers) await runWrk(target, { ...settings, seconds: WARMUP_SECONDS });
  const runs: MeasuredRun[][] = servers.map(() => []);
  for (let round = 0; round < rounds; round++) {
    const order = servers.map((_, index) => index);
    if (round % 2 === 1) order.reverse();
    for (const index of order) {
      const one = servers[index];
      if (one === undefined) continue;
      const measured = await measuredRun(one, settings);
      runs[index]?.push(measured);
      progress(
        `  round ${round + 1}, ${one.label}: ${Math.round(measured.requestsPerSecond)} req/s, p50 ${measured.p50Ms.toFixed(2)} ms, p99 ${measured.p99Ms.toFixed(2)} ms, server CPU ${Math.round(measured.cpuUs)} µs/answer`,
      );
    }
  }
  return runs;
}

async function measuredRun(one: Measured, settings: LoadSettings): Promise<MeasuredRun> {
  const before = processTreeCpuMicros(one.pid);
  const run = await runWrk(one.target, settings);
  const after = processTreeCpuMicros(one.pid);
  return { ...run, cpuUs: run.requests > 0 ? (after - before) / run.requests : 0 };
}

function summarise(runs: readonly MeasuredRun[]): Side {
  return {
    runs,
    requestsPerSecond: median(runs.map((run) => run.requestsPerSecond)),
    p50Ms: median(runs.map((run) => run.p50Ms)),
    p99Ms: median(runs.map((run) => run.p99Ms)),
    cpuUs: median(runs.map((run) => run.cpuUs)),
    bytesPerResponse: median(runs.map((run) => run.bytesPerResponse)),
    errors: runs.reduce((sum, run) => sum + run.errors, 0),
  };
}

/** Keys of the bench's own in the history store (rate-limited, and without limits), and its trading days. */
async function addBenchKey(
  db: string,
): Promise<{ key: string; unlimitedKey: string; dates: readonly string[] }> {
  const store = await openStore(db, { access: 'write' });
  try {
    const now = new Date();
    const limited = createApiKey({ level: 'historical', name: 'bench http', ...BENCH_RATE_LIMIT, now });
    const unlimited = createApiKey({
      level: 'historical',
      name: 'bench http, no limits',
      perSecond: 0,
      perMinute: 0,
      now,
    });
    await store.keys.insertKey(limited.record);
    await store.keys.insertKey(unlimited.record);
    return { key: limited.key, unlimitedKey: unlimited.key, dates: await store.reader.dates() };
  } finally {
    await store.close();
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

export function baselineConfig(status: number, rawHeaders: readonly string[], body: Buffer): BaselineConfig {
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

function progress(line: string): void {
  process.stderr.write(`bench http: ${line}\n`);
}

function positive(argv: readonly string[], name: string, fallback: number): number {
  const index = argv.indexOf(name);
  const value = index >= 0 ? Number(argv[index + 1]) : fallback;
  if (!Number.isInteger(value) || value < 1) throw new Error(`${name} needs a positive whole number`);
  return value;
}

/** The HTTP benchmark's flags, for run.ts's --help. */
export const HTTP_FLAGS = [
  ['--http-duration S', 'seconds per load run (default 3)'],
  ['--http-rounds N', 'interleaved runs of each server per case (default 5)'],
  ['--http-connections N', 'wrk connections, one thread (default 8)'],
  ['--http-days N', 'trading days of history in the served store (default 250, at least 40)'],
  ['--http-speed N', 'replay speed of the live exchange (default 600)'],
  ['--http-workers N,M', 'serve --workers counts to compare (default 1,2)'],
  ['--http-fresh', 'seed the history again even when a matching one exists'],
] as const;

export function httpOptions(
  argv: readonly string[],
  directory: string,
  until: string,
  seed: number,
): HttpBenchOptions {
  const days = positive(argv, '--http-days', 250);
  // Distinct past days for the cold single requests and the cold runs (3 x 10), and the cached day.
  if (days < 40) throw new Error('--http-days needs at least 40 trading days');
  const workersIndex = argv.indexOf('--http-workers');
  const workers = (workersIndex >= 0 ? (argv[workersIndex + 1] ?? '') : '1,2').split(',').map(Number);
  if (workers.some((count) => !Number.isInteger(count) || count < 1)) {
    throw new Error('--http-workers needs whole numbers >= 1, separated by commas');
  }
  return {
    directory,
    days,
    until,
    seed,
    seconds: positive(argv, '--http-duration', 3),
    rounds: positive(argv, '--http-rounds', 5),
    connections: positive(argv, '--http-connections', 8),
    liveSpeed: positive(argv, '--http-speed', 600),
    workers,
    fresh: argv.includes('--http-fresh'),
  };
}
