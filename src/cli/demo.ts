import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { type Command, InvalidArgumentError } from 'commander';
import { loadConfig, storeLocation } from '../config.js';
import { lastCompletedTradingDay, nextTradingDay } from '../domain/calendar.js';
import { sydneyClock } from '../domain/dates.js';
import { MARKET_CODES } from '../domain/markets.js';
import type { FeedEvent } from '../feed/events.js';
import { createSimulator, type Simulator } from '../feed/simulator/simulator.js';
import { dashboardBuild } from '../http/dashboard.js';
import type { HttpLimits } from '../http/limits.js';
import { ingestEvents } from '../ingest/ingest-events.js';
import { type IngestThread, type StoredBatch, startIngestThread } from '../ingest/ingest-thread.js';
import { type LiveExchange, startLiveExchange } from '../ingest/live-exchange.js';
import { createSimulatedClock, runsInRealTime, type SimulatedClock } from '../ingest/simulated-clock.js';
import { describeLocation, sqlitePath, storeKind } from '../store/open-store.js';
import type { MarketStore } from '../store/store.js';
import { CliError, type CliIo, PROCESS_IO, storeOption, withStore } from './cli-io.js';
import { type DemoKeys, demoKeys } from './demo-keys.js';
import { ReportedElsewhere } from './run-cli.js';
import { seedStore } from './seed.js';
import { type RunningServer, type ServerOptions, startServer, streamSettings } from './serve.js';
import { type DrainReport, runUntilSignal } from './shutdown.js';

export interface DemoOptions {
  readonly db: string;
  readonly port: number;
  readonly host: string;
  readonly days: number;
  readonly seed: number;
  /** Virtual seconds per real second when a day is replayed outside the real session. */
  readonly speed: number;
  /** Revoke the kept demo keys and issue new ones (otherwise they survive restarts). */
  readonly newKeys?: boolean;
  /** Request limits and shutdown grace period (config.ts); the defaults when omitted. */
  readonly limits?: HttpLimits;
  readonly shutdownGraceMs?: number;
  /** Origins whose browser pages may call the API (GRIDQUOTE_CORS_ORIGINS); none when omitted. */
  readonly corsOrigins?: readonly string[];
  /** Event stream settings (config.ts); the app's defaults when omitted. */
  readonly streams?: ServerOptions['streams'];
  /**
   * Where the live exchange writes: on the serving thread (the default: a batch of the live feed
   * takes about half a millisecond there, its WAL checkpoints run on a thread of their own, and
   * the answers learn of a commit the moment it is made) or on an ingest thread of its own, whose
   * every commit then reaches the serving thread by message (docs/benchmarks.md, "Live pollers",
   * measures both).
   */
  readonly ingest?: 'thread' | 'in-process';
  /** How often the live exchange releases the events its clock has passed, ms (live-exchange.ts's default when omitted). */
  readonly tickMs?: number;
  /** Called after each live batch commits (the benchmark's commit-to-answer probe). */
  readonly onCommit?: (batch: StoredBatch, events: readonly FeedEvent[]) => void;
}

export interface RunningDemo {
  readonly server: RunningServer;
  readonly live: LiveExchange;
  readonly keys: DemoKeys;
  /** The last complete day of history when the demo started (its examples use it). */
  readonly historyDate: string;
  /**
   * Settles, with the reason, if the demo's claim on the store's exchange is lost to another
   * process (PostgreSQL: its connection lost and the lock taken meanwhile): the demo must stop.
   */
  readonly exchangeLost: Promise<string>;
  /** Stops the live exchange, drains the server (grace period) and closes the store. */
  stop(hurry?: AbortSignal): Promise<DrainReport>;
}

/**
 * The one-command demo: seeds the database when it is empty, serves the API, reuses the demo's
 * key of each access level from an earlier start (or issues them; demo-keys.ts) and runs the
 * simulated exchange live on top of the seeded history.
 */
export async function startDemo(io: CliIo, options: DemoOptions): Promise<RunningDemo> {
  if (storeKind(options.db) === 'sqlite') mkdirSync(dirname(sqlitePath(options.db)), { recursive: true });
  await seedIfEmpty(io, options);
  // One clock for the feed and the API: outside the session the API's "now" is the replay's.
  const clock = createSimulatedClock({ speed: options.speed, realNow: io.now });
  const server = await startServer({
    db: options.db,
    writable: true,
    clock: clock.now,
    port: options.port,
    host: options.host,
    logLevel: 'warn',
    ...(options.limits ? { limits: options.limits } : {}),
    ...(options.shutdownGraceMs === undefined ? {} : { shutdownGraceMs: options.shutdownGraceMs }),
    ...(options.corsOrigins === undefined ? {} : { corsOrigins: options.corsOrigins }),
    ...(options.streams ? { streams: options.streams } : {}),
  });
  let thread: IngestThread | undefined;
  try {
    // Before the latest day is completed: that write is the exchange's (claimExchange).
    const exchange = await server.store.claimExchange();
    if (exchange === undefined) {
      throw new CliError(
        `another demo or cluster is running the exchange on ${describeLocation(options.db)}: stop it, or give this one a store of its own (--db)`,
      );
    }
    const keys = await demoKeys(server.store.keys, {
      db: options.db,
      rotate: options.newKeys === true,
      now: io.now(),
    });
    const historyDate = (await server.store.reader.latestDate()) ?? '';
    thread = options.ingest === 'thread' ? await startIngestThread(options.db, server.store) : undefined;
    const live = await startLive(io, server.store, clock, options, storeBatch(server.store, thread, options));
    const writer = thread;
    return {
      server,
      live,
      keys,
      historyDate,
      exchangeLost: exchange.lost.then((reason) => `${describeLocation(options.db)}: ${reason}`),
      async stop(hurry) {
        // The feed first: nothing is written while the last answers go out and the store closes.
        live.stop();
        await writer?.close();
        return server.close(hurry);
      },
    };
  } catch (error) {
    await thread?.close();
    await server.close();
    throw error;
  }
}

/** How the live exchange stores a batch: through the ingest thread, or on this thread. */
function storeBatch(
  store: MarketStore,
  thread: IngestThread | undefined,
  options: DemoOptions,
): (events: FeedEvent[]) => Promise<StoredBatch> {
  // On this thread a commit's instant is the store's notice of it, which comes as the transaction
  // commits and before anything acts on it: the stream hub's fan-out, in later microtasks, may
  // well run before the awaited append returns here.
  let announcedAtNs: bigint | undefined;
  if (thread === undefined) {
    store.onAppend(() => {
      announcedAtNs = process.hrtime.bigint();
    });
  }
  return async (events) => {
    let batch: StoredBatch;
    if (thread !== undefined) {
      batch = await thread.ingest(events);
    } else {
      announcedAtNs = undefined;
      const result = await ingestEvents(store.writer, events);
      // A batch that added nothing is not announced.
      const committedAtNs = announcedAtNs ?? process.hrtime.bigint();
      batch = { result, committedAtNs, version: await store.reader.version() };
    }
    options.onCommit?.(batch, events);
    return batch;
  };
}

/**
 * Continues the stored history live: from the next trading day (completeLatestDay), or, when an
 * earlier run stopped inside today's session, from where it stopped, on the real clock.
 */
async function startLive(
  io: CliIo,
  store: MarketStore,
  clock: SimulatedClock,
  options: DemoOptions,
  ingest: (events: FeedEvent[]) => Promise<StoredBatch>,
): Promise<LiveExchange> {
  const { simulator, latest, resumed } = await completeLatestDay(store, { ...options, liveAt: io.now() });
  let resumedDay = resumed;
  return startLiveExchange({
    firstDate: resumed === undefined ? nextTradingDay(latest) : latest,
    simulateDay: (date) => {
      // The resumed day was simulated already (the simulator moves on a day per call): its events,
      // the stored ones among them skipped by the ingest as it meets them again.
      const events = resumedDay ?? simulator.simulateDay(date);
      resumedDay = undefined;
      return events;
    },
    ingest,
    clock,
    ...(options.tickMs === undefined ? {} : { tickMs: options.tickMs }),
    onDayStart: (date, mode) =>
      io.stderr.write(
        mode === 'real-time'
          ? `live: trading day ${date} on the exchange clock\n`
          : `live: replaying trading day ${date} at ${options.speed}x on a virtual clock (it is not in session now); the API answers on that clock\n`,
      ),
    onError: (error) =>
      io.stderr.write(
        `live: ${error instanceof Error ? error.message : String(error)}; the same events are offered again every tick (said once while this lasts)\n`,
      ),
    onRecovered: (ticks) =>
      io.stderr.write(`live: storing again after ${ticks} refused ticks; no event was skipped\n`),
  });
}

/**
 * Seeds `days` trading days of history up to the last completed one when the store holds none;
 * true when it did.
 */
export async function seedIfEmpty(
  io: CliIo,
  options: { readonly db: string; readonly days: number; readonly seed: number },
): Promise<boolean> {
  const empty = await withStore(
    io,
    options.db,
    { access: 'write', create: true },
    async (store) => (await store.reader.latestDate()) === undefined,
  );
  if (!empty) return false;
  const until = lastCompletedTradingDay(io.now());
  io.stderr.write(
    `seeding ${describeLocation(options.db)} with ${options.days} trading days up to ${until} (seed ${options.seed})\n`,
  );
  await seedStore(io, { db: options.db, days: options.days, until, seed: options.seed });
  return true;
}

/**
 * Replays the simulator over the stored days to restore its state (curves, open interest) and
 * completes the latest stored day if an earlier run stopped inside it: the simulator is then
 * ready to produce the next trading day. The demo and `gridquote cluster` continue from there.
 *
 * With `liveAt` (the demo: the real time now), a latest day that is that day's session on the
 * real clock, and that an earlier run stored no further than now, is not completed: it is
 * `resumed`, its whole event list returned for the live exchange to release as the clock passes
 * each event. Completing it would publish the rest of a session still trading, settlements
 * included, hours early.
 */
export async function completeLatestDay(
  store: MarketStore,
  options: { readonly db: string; readonly seed: number; readonly liveAt?: Date },
): Promise<{ simulator: Simulator; first: string; latest: string; resumed?: FeedEvent[] }> {
  const dates = await store.reader.dates();
  const first = dates[0];
  const latest = dates.at(-1);
  if (first === undefined || latest === undefined)
    throw new CliError(`${describeLocation(options.db)} holds no market data to continue from`);
  const simulator = createSimulator({ seed: options.seed });
  for (const date of dates.slice(0, -1)) simulator.simulateDay(date);
  const events = simulator.simulateDay(latest);
  const { liveAt } = options;
  const resumed = liveAt !== undefined && (await storedUpTo(store, latest, liveAt));
  // Up to now only, when resumed: what is stored already is skipped, and a store made with
  // another seed is told apart all the same.
  const now = liveAt === undefined ? '' : sydneyClock(liveAt).time;
  try {
    await ingestEvents(store.writer, resumed ? events.filter((event) => event.time <= now) : events);
  } catch (error) {
    throw new CliError(
      `${describeLocation(options.db)} was not made by the demo with seed ${options.seed} (${String(error instanceof Error ? error.message : error)}); ` +
        'pass the seed it was made with, or use a new --db',
    );
  }
  return resumed ? { simulator, first, latest, resumed: events } : { simulator, first, latest };
}

/** Whether `date` is the session on the real clock at `real` and the store holds none of it after then. */
async function storedUpTo(store: MarketStore, date: string, real: Date): Promise<boolean> {
  if (!runsInRealTime(date, real)) return false;
  const now = sydneyClock(real).time;
  for (const market of MARKET_CODES) {
    const latest = await store.reader.lastUpdate({ date, market });
    if (latest !== undefined && latest > now) return false;
  }
  return true;
}

export function demoBanner(demo: RunningDemo): string {
  const base = demo.server.url;
  return [
    '',
    `gridquote demo serving ${base}`,
    ...keyLines(demo.keys, '`npm start -- --new-keys`'),
    dashboardLine(base),
    '',
    ...exampleRequests(base, demo.keys, demo.historyDate),
    'The market is live: run the intraday or trades request again to see it move. Ctrl-C stops.',
    '',
  ].join('\n');
}

/** The banner's line about the dashboard served at `base`. */
export function dashboardLine(base: string): string {
  return dashboardBuild() === undefined
    ? 'Dashboard: not built (run `npm run build`, then start again)'
    : `Dashboard (open it in a browser and enter the historical key): ${base}/`;
}

/** The banner's keys: both of them, where they are kept and how to replace them. */
export function keyLines(keys: DemoKeys, newKeysCommand: string): string[] {
  return [
    '',
    `  historical key:  ${keys.historical}`,
    `  end_of_day key:  ${keys.endOfDay}`,
    `  ${KEYS_ORIGIN[keys.origin]}; kept in ${keys.file} (yours alone, mode 600)`,
    `  for the next start; ${newKeysCommand} revokes them and issues new ones.`,
    '',
  ];
}

/** The banner's example requests against `base`, one per kind of operation; `date` has history. */
export function exampleRequests(base: string, keys: DemoKeys, date: string): string[] {
  const auth = (key: string) => `-H "Authorization: Bearer ${key}"`;
  const h = auth(keys.historical);
  const e = auth(keys.endOfDay);
  return [
    'Try:',
    `  curl ${h} "${base}/api/intraday?futures=au_electricity"`,
    `  curl ${h} "${base}/api/trades?market=au_electricity"`,
    `  curl ${h} "${base}/api/ticker?futures=BNZ&type=trade"`,
    `  curl ${h} -H "Accept: text/csv" "${base}/api/tradelog?market=au_electricity&date=${date}"`,
    `  curl ${h} "${base}/api/data?options=au_electricity&date=${date}"`,
    `  curl ${h} "${base}/api/messages?market=au_electricity&type=message_board"`,
    `  curl ${h} -H "Accept: text/csv" "${base}/api/datamine?type=au-volume"`,
    `  curl ${h} "${base}/api/epi"`,
    `  curl -i ${e} "${base}/api/tradelog?market=au_gas&date=${date}"   # end_of_day: date ignored`,
    '',
    `Reference page (paste a key under Authorize, then Execute): ${base}/docs`,
    '',
  ];
}

const KEYS_ORIGIN: Readonly<Record<DemoKeys['origin'], string>> = {
  kept: 'the same keys as at the last start',
  new: 'new keys',
  rotated: 'new keys (--new-keys: the previous demo keys are revoked)',
  replaced: 'new keys (the saved ones no longer verify: revoked, damaged or from another store)',
};

/** Where `npm start` keeps the demo when neither --db nor GRIDQUOTE_DB names a store. */
export const DEFAULT_DEMO_DB = './data/demo.db';

/** The demo's store: --db, else GRIDQUOTE_DB, else DEFAULT_DEMO_DB. */
export function demoStore(flag: string | undefined): string {
  return storeLocation(flag) ?? DEFAULT_DEMO_DB;
}

export function registerDemo(program: Command, io: CliIo = PROCESS_IO): Command {
  const command = program
    .command('demo')
    .description('seed a demo database if needed, run a live simulated exchange and serve the API')
    .addOption(storeOption("the demo's store, a SQLite file or a postgres:// URL", DEFAULT_DEMO_DB))
    .option('--port <n>', 'TCP port', parseWhole('a port from 0 to 65535', 0, 65_535), 8080)
    .option('--host <h>', 'interface to bind', '127.0.0.1');
  return withSimulationOptions(command).action(async (flags: Omit<DemoOptions, 'db'> & { db?: string }) => {
    // The demo's own flags choose store, port and host; limits, grace and CORS come from the environment.
    const config = loadConfig();
    const db = demoStore(flags.db);
    const demo = await startDemo(io, {
      ...flags,
      db,
      limits: config,
      shutdownGraceMs: config.shutdownGraceMs,
      ...(config.corsOrigins === undefined ? {} : { corsOrigins: config.corsOrigins }),
      streams: streamSettings(config),
    });
    io.stdout.write(demoBanner(demo));
    const failure = await runUntilSignal(
      { stop: (hurry) => demo.stop(hurry), failed: demo.exchangeLost },
      (line) => io.stderr.write(`${line}\n`),
      config.shutdownGraceMs,
    );
    // Said as it stopped: the exit status tells the rest.
    if (failure !== undefined) throw new ReportedElsewhere(failure);
  });
}

function parseWhole(what: string, min: number, max: number) {
  return (text: string): number => {
    const value = Number(text);
    if (!/^\d+$/.test(text) || value < min || value > max) {
      throw new InvalidArgumentError(`expected ${what} (${min}..${max})`);
    }
    return value;
  };
}

/** The flags of the simulated exchange that `demo` and `cluster` share: history, seed, speed, keys. */
export function withSimulationOptions(command: Command): Command {
  return command
    .option(
      '--days <n>',
      'trading days of history to seed when the store is new',
      parseWhole('days', 1, 2_000),
      60,
    )
    .option('--seed <n>', 'simulator seed', parseWhole('a seed', 0, Number.MAX_SAFE_INTEGER), 1)
    .option(
      '--speed <n>',
      'replay speed of the simulated exchange (exchange seconds per second)',
      parseWhole('a speed', 1, 100_000),
      60,
    )
    .option('--new-keys', 'revoke the demo keys kept from earlier starts and issue new ones');
}
