import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { type Command, Option } from 'commander';
import type { FastifyInstance } from 'fastify';
import {
  type Config,
  ConfigError,
  DEFAULT_SHUTDOWN_GRACE_MS,
  flagOf,
  loadConfig,
  SETTINGS,
  type Setting,
  type SettingName,
} from '../config.js';
import type { ExchangeClock } from '../domain/exchange-clock.js';
import { type AppOptions, buildApp } from '../http/app.js';
import { dashboardBuild } from '../http/dashboard.js';
import type { HttpLimits } from '../http/limits.js';
import type { RateLimitStoreFactory } from '../http/rate-limit.js';
import { clusterRateLimitStore } from '../http/rate-limit-cluster.js';
import { createRedisRateLimitStore, type RedisRateLimitOptions } from '../http/rate-limit-redis.js';
import { replayClock } from '../ingest/replay-schedule.js';
import { describeLocation, openStore, sqlitePath, storeKind } from '../store/open-store.js';
import type { MarketStore } from '../store/store.js';
import { type CliIo, PROCESS_IO } from './cli-io.js';
import {
  isServeWorker,
  primarySignals,
  releasePrimary,
  reportListening,
  reportStopped,
  runPrimary,
} from './serve-workers.js';
import { type DrainReport, drainApp, runUntilSignal } from './shutdown.js';

export interface ServerOptions {
  /** The store's location (a SQLite file or a postgres:// URL). */
  readonly db: string;
  /** Whether the process writes to the store (the demo's live feed and keys); serve only reads. */
  readonly writable?: boolean;
  readonly port: number;
  readonly host: string;
  /** Pino level; false for no request log. */
  readonly logLevel?: string | false;
  /** The exchange clock: the wall clock unless given (the demo gives its simulated exchange's). */
  readonly clock?: ExchangeClock;
  /** Request size and time limits; the defaults of http/limits.ts when omitted. */
  readonly limits?: HttpLimits;
  /** How long close() lets requests in flight finish before it cuts their connections. */
  readonly shutdownGraceMs?: number;
  /** Opens GET /metrics to any client sending it; without one only loopback clients may scrape. */
  readonly metricsToken?: string;
  /** Where rate-limit counters live; in this process when omitted. */
  readonly rateLimitStore?: RateLimitStoreFactory;
  /** Rate-limit counters shared in Redis with the other replicas; in this process when omitted. */
  readonly redis?: Omit<RedisRateLimitOptions, 'log'>;
  /** Origins whose browser pages may call the API (CORS); none when omitted. */
  readonly corsOrigins?: readonly string[];
  /** Event stream settings (per-key cap, queue bound, token secret); the app's defaults when omitted. */
  readonly streams?: AppOptions['streams'];
  /** PostgreSQL only: read connections at most, and the read statement timeout. */
  readonly pgPoolMax?: number;
  readonly pgStatementTimeoutMs?: number;
}

/** The event stream settings of config.ts, as the app takes them. */
export function streamSettings(config: Config): NonNullable<AppOptions['streams']> {
  return {
    perKey: config.streamsPerKey,
    queueBytes: config.streamQueueBytes,
    ...(config.streamTokenSecret === undefined ? {} : { tokenSecret: config.streamTokenSecret }),
  };
}

export interface RunningServer {
  readonly app: FastifyInstance;
  readonly store: MarketStore;
  /** http://host:port actually bound (port 0 picks a free one). */
  readonly url: string;
  /**
   * Stops accepting connections, lets requests in flight finish (within the grace period, or
   * until `hurry` aborts, then cuts the connections) and closes the store.
   */
  close(hurry?: AbortSignal): Promise<DrainReport>;
}

/** How long a write of the serving process waits for another writer's lock (SQLite), ms. */
export const SERVING_LOCK_WAIT_MS = 100;

/** Opens the store, builds the app and listens. Reusable by the demo command. */
export async function startServer(options: ServerOptions): Promise<RunningServer> {
  const store = await openStore(options.db, {
    access: options.writable === true ? 'write' : 'read',
    purpose: 'for serving',
    // What this process writes (the demo's live feed) commits on the serving thread: no WAL
    // checkpoint there, and no long wait for another process's write lock (an ingest into the same
    // file): the feed offers its batch again at its next tick instead of the thread waiting 30 s.
    ...(options.writable === true ? { backgroundCheckpoints: true, lockWaitMs: SERVING_LOCK_WAIT_MS } : {}),
    ...(options.pgPoolMax === undefined ? {} : { poolMax: options.pgPoolMax }),
    ...(options.pgStatementTimeoutMs === undefined
      ? {}
      : { statementTimeoutMs: options.pgStatementTimeoutMs }),
  });
  const logLevel = options.logLevel ?? 'info';
  let log: (line: string) => void = () => {};
  const limits = options.redis && createRedisRateLimitStore({ ...options.redis, log: (line) => log(line) });
  const dashboard = dashboardBuild();
  const app = buildApp({
    reader: store.reader,
    keys: store.keys,
    ...(options.clock ? { clock: options.clock } : {}),
    logger: logLevel === false ? false : { level: logLevel },
    ...(options.limits ? { limits: options.limits } : {}),
    ...(options.metricsToken === undefined ? {} : { metricsToken: options.metricsToken }),
    ...(limits
      ? { rateLimitStore: limits.factory }
      : options.rateLimitStore
        ? { rateLimitStore: options.rateLimitStore }
        : {}),
    ...(options.corsOrigins === undefined ? {} : { corsOrigins: options.corsOrigins }),
    // Commits, of this process (the demo's live feed) or another (an ingest), reach the app: metrics,
    // cache, event streams.
    onAppend: (listener) => store.onAppend(listener),
    changeNotices: () => store.changeNotices(),
    ...(store.replicationLagSeconds ? { replicationLag: () => store.replicationLagSeconds?.() } : {}),
    events: store.events,
    ...(options.streams ? { streams: options.streams } : {}),
    ...(dashboard === undefined ? {} : { dashboard }),
  });
  log = (line) => app.log.warn(line);
  const graceMs = options.shutdownGraceMs ?? DEFAULT_SHUTDOWN_GRACE_MS;
  try {
    const url = await app.listen({ port: options.port, host: options.host });
    return {
      app,
      store,
      url,
      async close(hurry) {
        try {
          return await drainApp(app, graceMs, hurry);
        } finally {
          // Only now: a request still being answered must not find the store closed.
          await store.close();
          await limits?.close();
        }
      },
    };
  } catch (error) {
    await app.close();
    await store.close();
    await limits?.close();
    throw error;
  }
}

/**
 * `gridquote serve`: one flag per setting of config.ts (flags override the environment).
 * Every problem with the settings is one line on stderr and the exit code is 1. On SIGTERM or
 * SIGINT it drains (see RunningServer.close) and exits 0.
 */
export function registerServe(program: Command, io: CliIo = PROCESS_IO): Command {
  const command = program
    .command('serve')
    .description('serve the query API over a SQLite or PostgreSQL store');
  for (const [name, setting] of Object.entries(SETTINGS) as [SettingName, Setting<unknown>][]) {
    const fallback = setting.fallback === undefined ? '' : ` or ${String(setting.fallback)}`;
    command.addOption(
      new Option(
        `${flagOf(name)} <${setting.placeholder}>`,
        `${setting.description} (default: $${setting.env}${fallback})`,
      ),
    );
  }
  return command.action(async (flags: Partial<Record<SettingName, string>>) => {
    const config = serveConfig(flags);
    const log = (line: string) => io.stderr.write(`${line}\n`);
    const worker = isServeWorker();
    if (config.workers > 1 && !worker) {
      await runPrimary({
        workers: config.workers,
        shared: sharedWorkerSettings(config),
        describe: describeLocation(config.db),
        graceMs: config.shutdownGraceMs,
        log,
      });
      return;
    }
    const starting = startServer({
      db: config.db,
      port: config.port,
      host: config.host,
      logLevel: config.logLevel,
      ...(config.replayClock === undefined ? {} : { clock: replayClock(config.replayClock) }),
      limits: config,
      shutdownGraceMs: config.shutdownGraceMs,
      metricsToken: config.metricsToken,
      ...(config.redis === undefined
        ? {}
        : {
            redis: {
              url: config.redis,
              keyPrefix: config.redisKeyPrefix,
              unavailable: config.redisUnavailable,
              ...(config.redisSentinelPassword === undefined
                ? {}
                : { sentinelPassword: config.redisSentinelPassword }),
              tlsFiles: { ca: config.redisTlsCa, cert: config.redisTlsCert, key: config.redisTlsKey },
            },
          }),
      corsOrigins: config.corsOrigins,
      streams: streamSettings(config),
      pgPoolMax: config.pgPoolMax,
      pgStatementTimeoutMs: config.pgStatementTimeoutMs,
      ...(worker ? { rateLimitStore: clusterRateLimitStore } : {}),
    });
    const server = worker ? await starting.catch(releasePrimary) : await starting;
    if (worker) {
      // The primary prints the start and stop lines, once for all workers.
      const signals = primarySignals();
      reportListening(server.url);
      await runUntilSignal(
        {
          async stop(hurry) {
            const report = await server.close(hurry);
            await reportStopped(report);
            return report;
          },
        },
        () => {},
        config.shutdownGraceMs,
        signals,
      );
      return;
    }
    // Fastify names one address; bound to every interface, the others answer too.
    const everywhere =
      config.host === '0.0.0.0' || config.host === '::' ? ` (and every interface: ${config.host})` : '';
    log(`serving ${describeLocation(config.db)} at ${server.url}${everywhere}`);
    await runUntilSignal({ stop: (hurry) => server.close(hurry) }, log, config.shutdownGraceMs);
  });
}

/**
 * What the workers of one serve must agree on and would otherwise each draw at random: the
 * stream token secret (a token fetched from one worker is presented to another).
 */
function sharedWorkerSettings(config: Config): Record<string, string> {
  if (config.streamTokenSecret !== undefined) return {};
  return { [SETTINGS.streamTokenSecret.env]: randomBytes(32).toString('base64url') };
}

/** The settings, plus what serve alone needs: a store that exists. All problems at once. */
function serveConfig(flags: Partial<Record<SettingName, string>>): Config & { readonly db: string } {
  let config: Config | undefined;
  let valid: Partial<Config>;
  const problems: string[] = [];
  try {
    config = loadConfig(undefined, flags);
    valid = config;
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    problems.push(...error.problems);
    valid = error.valid;
  }
  const { db } = valid;
  const sources = [`${SETTINGS.db.env} `, `${flagOf('db')} `];
  const dbRefused = problems.some((problem) => sources.some((source) => problem.startsWith(source)));
  if (db === undefined && !dbRefused) {
    problems.push(`serve needs a store: pass ${flagOf('db')} FILE or set ${SETTINGS.db.env}`);
  } else if (db !== undefined && storeKind(db) === 'sqlite' && !existsSync(sqlitePath(db))) {
    // Opening a missing file would create an empty store: refuse a likely typo instead.
    problems.push(`no store at ${db}; create one with gridquote seed or ingest`);
  }
  if (config === undefined || db === undefined || problems.length > 0) throw new ConfigError(problems, valid);
  return { ...config, db };
}
