import { randomBytes } from 'node:crypto';
import { type Command, InvalidArgumentError } from 'commander';
import { loadConfig, storeLocation } from '../config.js';
import { nextTradingDay } from '../domain/calendar.js';
import { connectNats, natsCredentialsApart } from '../feed/nats/nats-connection.js';
import { parseRedisLocation } from '../http/redis-location.js';
import { formatReplaySchedule, type ReplaySchedule } from '../ingest/replay-schedule.js';
import { describeLocation, storeKind } from '../store/open-store.js';
import { schemaUrl } from '../store/postgres/schema-url.js';
import type { MarketReader } from '../store/store.js';
import { CliError, type CliIo, PROCESS_IO, withStore } from './cli-io.js';
import { type RunningChild, Supervisor } from './cluster-processes.js';
import {
  completeLatestDay,
  dashboardLine,
  exampleRequests,
  keyLines,
  seedIfEmpty,
  withSimulationOptions,
} from './demo.js';
import { type DemoKeys, demoKeys } from './demo-keys.js';
import { type RoundRobinFront, startRoundRobinFront } from './round-robin-front.js';
import { abortOnShutdownSignal } from './stop-signal.js';
import { parseNatsUrl, parseWhole } from './stream-flags.js';

export interface ClusterOptions {
  /** A PostgreSQL database URL; the store goes in the schema `name` of it. */
  readonly db: string;
  readonly nats: string;
  readonly redis: string;
  /** The deployment's name: PostgreSQL schema, NATS stream (and durable), Redis key prefix. */
  readonly name: string;
  readonly port: number;
  readonly host: string;
  readonly replicas: number;
  readonly days: number;
  readonly seed: number;
  readonly speed: number;
  readonly newKeys?: boolean;
}

export const DEFAULT_CLUSTER = {
  db: 'postgres://root@127.0.0.1:5432/postgres',
  nats: 'nats://127.0.0.1:4222',
  redis: 'redis://127.0.0.1:6379',
  name: 'gridquote_cluster',
} as const;

/** Each child's SIGTERM drain (10 s by default) plus a margin, before it is killed. */
const KILL_AFTER_MS = 20_000;

/**
 * `gridquote cluster`: the distributed topology on one machine (docs/operations.md,
 * "Deployment: beyond one machine"). Prepares the store like the demo (schema, seeded history,
 * the latest day completed, the demo's keys), then runs as child processes a simulated feed
 * publisher on NATS, one ingest worker and N API replicas on PostgreSQL sharing rate limits in
 * Redis, all on one replay clock, behind a round-robin front on one port. A child that exits
 * unexpectedly is restarted (cluster-processes.ts). SIGINT or SIGTERM stops them all; exit 0.
 */
export async function runCluster(io: CliIo, options: ClusterOptions): Promise<void> {
  // Every engine reachable before anything starts: one line naming the one that is not, exit 1.
  await checkNats(options.nats);
  const store = await prepareSchema(options.db, options.name);
  // Held until the cluster stops: its feed is the schema's one exchange (MarketStore.claimExchange).
  const claimed = await io.openStore(store, { access: 'write', create: true });
  const exchange = await claimed.claimExchange().catch(async (error: unknown) => {
    await claimed.close();
    throw error;
  });
  if (exchange === undefined) {
    await claimed.close();
    throw new CliError(
      `another cluster or demo is running the exchange on ${describeLocation(store)}: stop it, or give this one a --name of its own`,
    );
  }
  try {
    await runClaimedCluster(io, options, store, exchange.lost);
  } finally {
    await claimed.close();
  }
}

/** runCluster once the store's exchange is claimed; `claimLost` settles if that claim is lost (StoreClaim.lost). */
async function runClaimedCluster(
  io: CliIo,
  options: ClusterOptions,
  store: string,
  claimLost: Promise<string>,
): Promise<void> {
  const log = (line: string) => io.stderr.write(`${line}\n`);
  const seeded = await seedIfEmpty(io, { db: store, days: options.days, seed: options.seed });
  const prepared = await withStore(io, store, { access: 'write', create: true }, async (opened) => {
    // Just seeded, every day is whole; else an earlier run may have stopped inside the latest.
    const { first, latest } = seeded
      ? await storedRange(opened.reader)
      : await completeLatestDay(opened, { db: store, seed: options.seed });
    const keys = await demoKeys(opened.keys, { db: store, rotate: options.newKeys === true, now: io.now() });
    return { first, latest, keys };
  });
  // The feed goes on from the trading day after the stored history, replayed from now.
  const schedule: ReplaySchedule = {
    from: nextTradingDay(prepared.latest),
    startMs: io.now().getTime(),
    speed: options.speed,
  };
  const clock = formatReplaySchedule(schedule);

  const signals = abortOnShutdownSignal();
  // Stopped by a signal, or by the supervisor giving up on a child.
  const stopping = new AbortController();
  signals.signal.addEventListener('abort', () => stopping.abort(), { once: true });
  let failure: string | undefined;
  let front: RoundRobinFront | undefined;
  const supervisor = new Supervisor({
    log,
    restarted: (child) => {
      const index = replicaIndex(child);
      if (index !== undefined) front?.setBackend(index, child.address);
      log(
        `cluster: ${child.spec.name} is back (pid ${child.pid}${child.address ? `, ${child.address}` : ''})`,
      );
    },
    gaveUp: (reason) => {
      failure = reason;
      log(`cluster: ${reason}`);
      stopping.abort();
    },
  });
  // Another process holds the exchange now: this cluster's feed must stop, and the cluster with it.
  void claimLost.then((reason) => {
    if (stopping.signal.aborted) return;
    failure = `${describeLocation(store)}: ${reason}`;
    log(`cluster: ${failure}`);
    stopping.abort();
  });
  const lastResort = () => supervisor.killAll();
  process.once('exit', lastResort);
  try {
    const started = await startChildren(supervisor, options, store, clock, prepared.first);
    front = await startRoundRobinFront({
      port: options.port,
      host: options.host,
      backends: started.replicas.map((replica) => replica.address),
    });
    io.stdout.write(
      clusterBanner({
        ...started,
        front: front.url,
        keys: prepared.keys,
        historyDate: prepared.latest,
        options,
        schedule,
      }),
    );
    if (!stopping.signal.aborted)
      await new Promise((resolve) => stopping.signal.addEventListener('abort', resolve, { once: true }));
    log('cluster: stopping every process');
  } finally {
    await front?.close();
    // The publisher first, so that the worker stores what was published before it stops.
    await supervisor.stop(KILL_AFTER_MS, ['feed']);
    await supervisor.stop(KILL_AFTER_MS);
    process.off('exit', lastResort);
    signals.dispose();
  }
  if (failure !== undefined) throw new CliError(failure);
  log('cluster: stopped');
}

interface StartedChildren {
  readonly ingest: RunningChild;
  readonly replicas: readonly RunningChild[];
  readonly feed: RunningChild;
}

async function startChildren(
  supervisor: Supervisor,
  options: ClusterOptions,
  store: string,
  clock: string,
  firstStored: string,
): Promise<StartedChildren> {
  // The worker before the publisher: it creates the stream and its durable consumer before
  // anything is published. The replicas need neither: they start meanwhile.
  // Secrets go in the environment, not on command lines (every user of the machine can read
  // those): the store's and Redis's URLs whole, NATS's credentials taken out of its URL.
  const nats = natsCredentialsApart(options.nats);
  const ingestStarting = supervisor.start({
    name: 'ingest',
    env: { GRIDQUOTE_DB: store, ...nats.env },
    args: [
      'ingest',
      '--from',
      nats.url,
      '--stream',
      options.name,
      '--durable',
      `${options.name}-ingest`,
      '--metrics-port',
      '0',
    ],
    ready: /metrics at (http:\/\/\S+)\/metrics/,
  });
  // One stream token secret for all replicas: a token fetched through the front from one replica
  // opens a stream on another. In the environment, not on a command line.
  const env = {
    GRIDQUOTE_STREAM_TOKEN_SECRET: loadConfig().streamTokenSecret ?? randomBytes(32).toString('base64url'),
    GRIDQUOTE_DB: store,
    GRIDQUOTE_REDIS_URL: options.redis,
  };
  const replicasStarting = Promise.all(
    Array.from({ length: options.replicas }, (_, index) =>
      supervisor.start({
        name: `api-${index + 1}`,
        args: [
          'serve',
          '--port',
          '0',
          '--host',
          '127.0.0.1',
          '--workers',
          '1',
          '--log-level',
          'warn',
          '--redis-key-prefix',
          options.name,
          '--replay-clock',
          clock,
        ],
        env,
        ready: /^serving .* at (http:\/\/\S+)$/,
      }),
    ),
  );
  const [ingest, replicas] = await Promise.all([ingestStarting, replicasStarting]);
  const feed = await supervisor.start({
    name: 'feed',
    env: nats.env,
    args: [
      'feed',
      'publish',
      '--nats',
      nats.url,
      '--stream',
      options.name,
      '--simulate',
      '--seed',
      String(options.seed),
      '--replay-clock',
      clock,
      '--warm-up-from',
      firstStored,
    ],
  });
  return { ingest, replicas, feed };
}

async function storedRange(reader: MarketReader): Promise<{ first: string; latest: string }> {
  const dates = await reader.dates();
  return { first: dates[0] ?? '', latest: dates.at(-1) ?? '' };
}

function replicaIndex(child: RunningChild): number | undefined {
  const match = /^api-(\d+)$/.exec(child.spec.name);
  return match ? Number(match[1]) - 1 : undefined;
}

async function checkNats(url: string): Promise<void> {
  try {
    await (await connectNats(url, 'gridquote cluster')).close();
  } catch (error) {
    throw new CliError(error instanceof Error ? error.message : String(error));
  }
}

/** The deployment's schema, created when missing: the cluster never writes outside it. */
async function prepareSchema(db: string, name: string): Promise<string> {
  try {
    return await schemaUrl(db, name);
  } catch (error) {
    throw new CliError(
      `cannot prepare schema ${name} at ${describeLocation(db)}: ${error instanceof Error ? error.message : String(error)}`,
    );
  }
}

export function clusterBanner(parts: {
  readonly front: string;
  readonly ingest: RunningChild;
  readonly replicas: readonly RunningChild[];
  readonly feed: RunningChild;
  readonly keys: DemoKeys;
  readonly historyDate: string;
  readonly options: ClusterOptions;
  readonly schedule: ReplaySchedule;
}): string {
  const { options } = parts;
  return [
    '',
    `gridquote cluster serving ${parts.front} (round robin over ${parts.replicas.length} API replicas)`,
    '',
    `  store:   ${describeLocation(options.db)}, schema ${options.name}`,
    `  feed:    NATS ${withoutCredentials(options.nats)}, stream ${options.name}; replaying trading day ${parts.schedule.from} ` +
      `from 09:59 at ${options.speed}x (then the next days), the clock every replica answers on`,
    `  limits:  Redis ${withoutCredentials(options.redis)}, key prefix ${options.name}`,
    '',
    '  process   pid      health and metrics',
    `  feed      ${pid(parts.feed)} (publishes; watch the stream: nats stream info ${options.name})`,
    `  ingest    ${pid(parts.ingest)} ${parts.ingest.address}/healthz  /readyz  /metrics`,
    ...parts.replicas.map(
      (replica) =>
        `  ${replica.spec.name.padEnd(9)} ${pid(replica)} ${replica.address}/healthz  /readyz  /metrics`,
    ),
    ...keyLines(parts.keys, '`gridquote cluster --new-keys`'),
    dashboardLine(parts.front),
    '',
    ...exampleRequests(parts.front, parts.keys, parts.historyDate),
    'The market is live: run the intraday or trades request again to see it move. A process that',
    'exits unexpectedly is restarted. Ctrl-C stops them all.',
    '',
  ].join('\n');
}

/**
 * A Redis or NATS URL (or several, comma-separated) as printed: user, password or token hidden,
 * up to the last @ before each host.
 */
export function withoutCredentials(url: string): string {
  return url.replace(/(\/\/)[^/,]*@/g, '$1***@');
}

function pid(child: RunningChild): string {
  return String(child.pid ?? '?').padEnd(8);
}

export function registerCluster(program: Command, io: CliIo = PROCESS_IO): Command {
  const command = program
    .command('cluster')
    .description(
      'run the distributed topology on this machine: a simulated feed on NATS, one ingest worker and ' +
        'API replicas on PostgreSQL with rate limits in Redis, behind one round-robin port',
    )
    .option(
      '--db <url>',
      `PostgreSQL database (default: $GRIDQUOTE_DB if a postgres:// URL, or ${DEFAULT_CLUSTER.db})`,
    )
    .option('--nats <url>', 'NATS server with JetStream', parseNatsUrl, DEFAULT_CLUSTER.nats)
    .option(
      '--redis <url>',
      `Redis for the shared rate limits, redis://, rediss://, redis+sentinel:// or rediss+sentinel:// (TLS files from $GRIDQUOTE_REDIS_TLS_*; default: $GRIDQUOTE_REDIS_URL or ${DEFAULT_CLUSTER.redis})`,
    )
    .option(
      '--name <name>',
      "the deployment's PostgreSQL schema, NATS stream and Redis key prefix: other data stays untouched",
      parseName,
      DEFAULT_CLUSTER.name,
    )
    .option('--port <n>', 'the public port (the round-robin front)', parseWhole('a port', 0, 65_535), 8080)
    .option('--host <h>', 'interface of the public port', '127.0.0.1')
    .option('--replicas <n>', 'API replicas', parseWhole('replicas', 1, 16), 2);
  return withSimulationOptions(command).action(
    async (flags: Omit<ClusterOptions, 'db' | 'redis'> & { db?: string; redis?: string }) => {
      const db = flags.db ?? postgresFromEnv() ?? DEFAULT_CLUSTER.db;
      if (storeKind(db) !== 'postgres')
        throw new CliError(`cluster needs a postgres:// store, got ${describeLocation(db)}`);
      const redis = flags.redis ?? loadConfig().redis ?? DEFAULT_CLUSTER.redis;
      // Checked here, not first by each replica it is handed to; not by commander, which would
      // repeat the value (it may hold a password).
      const location = parseRedisLocation(redis);
      if ('problem' in location) throw new CliError(`--redis ${location.problem}`);
      await runCluster(io, { ...flags, db, redis });
    },
  );
}

/** GRIDQUOTE_DB when it names PostgreSQL (a SQLite path there is the demo's, not the cluster's). */
function postgresFromEnv(): string | undefined {
  const location = storeLocation(undefined);
  return location !== undefined && storeKind(location) === 'postgres' ? location : undefined;
}

function parseName(text: string): string {
  if (!/^[a-z][a-z0-9_]{0,47}$/.test(text)) {
    throw new InvalidArgumentError('expected 1..48 lower-case letters, digits or _, starting with a letter');
  }
  return text;
}
