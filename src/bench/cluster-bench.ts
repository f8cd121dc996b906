import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { mkdirSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { jetstreamManager } from '@nats-io/jetstream';
import { connect } from '@nats-io/transport-node';
import { Redis } from 'ioredis';
import { startRoundRobinFront } from '../cli/round-robin-front.js';
import { lastTradingDays } from '../domain/calendar.js';
import type { FeedEvent } from '../feed/events.js';
import { type PublishableEvent, publishFeed } from '../feed/nats/publish-feed.js';
import { createSimulator } from '../feed/simulator/simulator.js';
import { validateFeedEvent } from '../feed/validate.js';
import { createApiKey } from '../http/api-keys.js';
import { ingestEvents } from '../ingest/ingest-events.js';
import { formatReplaySchedule } from '../ingest/replay-schedule.js';
import { dropSchemas } from '../store/postgres/drop-schemas.js';
import { openPostgresStore } from '../store/postgres/open-postgres-store.js';
import { schemaUrl } from '../store/postgres/schema-url.js';
import { type ServeProcess, startServe } from './http-serve.js';
import { processTreeCpuMicros } from './process-cpu.js';
import { ensureWrk, type LoadRun, runWrk } from './wrk.js';

/**
 * The distributed topology's figures (issue 11, docs/benchmarks.md "Distributed topology"), on
 * the PostgreSQL, NATS and Redis given, under a name of their own (schema, stream, key prefix)
 * removed at the end:
 * - ingest throughput from the stream: days published to JetStream beforehand, then one
 *   `gridquote ingest --from` worker started; events stored per second once it consumes;
 * - end-to-end latency: single au_electricity futures trades published one at a time (what
 *   precedes each is published and visible first), timed from the publish call until each
 *   replica's intraday answer changes;
 * - req/s of two replicas against one, behind the same round-robin front, wrk in its own
 *   process, with the replicas' CPU per answer (rate-limited key: every request counts in Redis).
 */

const MAIN = join(fileURLToPath(new URL('../../', import.meta.url)), 'dist', 'cli', 'main.js');

export interface ClusterBenchOptions {
  readonly pg: string;
  readonly nats: string;
  readonly redis: string;
  readonly until: string;
  readonly seed: number;
  /** Trading days stored before the stream is ingested, and days published to the stream. */
  readonly historyDays: number;
  readonly streamDays: number;
  readonly latencySamples: number;
  readonly connections: number;
  readonly seconds: number;
  readonly scratch: string;
  readonly log: (line: string) => void;
}

export interface ClusterBenchResult {
  readonly loadBefore: number;
  readonly loadAfter: number;
  readonly streamEvents: number;
  readonly publishSeconds: number;
  /** From the worker's start line to the last event stored. */
  readonly ingestSeconds: number;
  /** Baseline: the same events stored in process with ingestEvents, a transaction a day. */
  readonly directSeconds: number;
  readonly latency: {
    readonly samples: number;
    readonly missed: number;
    readonly p50Ms: number;
    readonly p99Ms: number;
    readonly maxMs: number;
  };
  /** During the latency samples: the worker's mean batch time, the replicas' mean notice delay. */
  readonly batchMeanMs: number;
  readonly noticeMeanMs: number;
  readonly one: ReplicaRun;
  readonly two: ReplicaRun;
}

export interface ReplicaRun {
  readonly load: LoadRun;
  /** Replicas' CPU (all of them, their threads included) per answer, µs. */
  readonly cpuPerAnswerUs: number;
  /** The front's CPU (this process) per answer, µs. */
  readonly frontCpuPerAnswerUs: number;
}

export async function benchCluster(options: ClusterBenchOptions): Promise<ClusterBenchResult> {
  ensureWrk(options.log);
  const loadBefore = loadavg()[0] ?? 0;
  const name = `gq_bench_cluster_${randomBytes(4).toString('hex')}`;
  const store = await schemaUrl(options.pg, name);
  const dates = lastTradingDays(options.historyDays + options.streamDays + 1, options.until);
  const simulator = createSimulator({ seed: options.seed });
  const days = dates.map((date) => simulator.simulateDay(date));
  const history = days.slice(0, options.historyDays);
  const streamed = days.slice(options.historyDays, -1).flat();
  const live = days.at(-1) ?? [];
  const children: ChildProcess[] = [];
  const replicas: ServeProcess[] = [];
  mkdirSync(options.scratch, { recursive: true });
  try {
    const key = createApiKey({
      level: 'historical',
      name: 'bench',
      perSecond: 1_000_000,
      perMinute: 60_000_000,
      now: new Date(),
    });
    const opened = await openPostgresStore(options.pg, { schema: name, migrate: true });
    for (const day of history) await ingestEvents(opened.writer, day);
    await opened.keys.insertKey(key.record);
    const base = await opened.reader.version();

    // Baseline: the same days stored in process (ingestEvents, a transaction a day) on the same history.
    options.log('bench: cluster: baseline, the same days stored in process ...');
    const direct = await openPostgresStore(options.pg, { schema: `${name}_direct`, migrate: true });
    let directSeconds: number;
    try {
      for (const day of history) await ingestEvents(direct.writer, day);
      const directStart = performance.now();
      for (const day of days.slice(options.historyDays, -1)) await ingestEvents(direct.writer, day);
      directSeconds = (performance.now() - directStart) / 1000;
    } finally {
      await direct.close();
    }

    options.log(
      `bench: cluster: publishing ${streamed.length} events (${options.streamDays} days) to stream ${name} ...`,
    );
    const publishStart = performance.now();
    await publishFeed({ url: options.nats, stream: name }, streamed.map(publishable));
    const publishSeconds = (performance.now() - publishStart) / 1000;

    options.log('bench: cluster: ingest worker consuming them ...');
    const worker = spawn(
      process.execPath,
      [
        MAIN,
        'ingest',
        '--db',
        store,
        '--from',
        options.nats,
        '--stream',
        name,
        '--durable',
        `${name}-ingest`,
        '--metrics-port',
        '0',
      ],
      { env: {}, stdio: ['ignore', 'ignore', 'pipe'] },
    );
    children.push(worker);
    // Its metrics address, then the line saying it consumes (one wait: both may come in one chunk).
    const workerMetrics = `${await lineOf(worker, /metrics at (http:\/\/\S+)\/metrics[\s\S]*consuming stream/)}/metrics`;
    const ingestStart = performance.now();
    const target = base + streamed.length;
    while ((await opened.reader.version()) < target) await sleep(20);
    const ingestSeconds = (performance.now() - ingestStart) / 1000;

    // The replicas answer on a replay clock whose day is the live day, as `gridquote cluster` runs them.
    const clock = formatReplaySchedule({
      from: live[0]?.date ?? options.until,
      startMs: Date.now(),
      speed: 1,
    });
    for (let index = 0; index < 2; index += 1) {
      replicas.push(
        await startServe({
          db: store,
          workers: 1,
          logPath: join(options.scratch, `replica-${index + 1}.log`),
          args: ['--redis', options.redis, '--redis-key-prefix', name, '--replay-clock', clock],
        }),
      );
    }
    const headers = { authorization: `Bearer ${key.key}` };

    options.log(`bench: cluster: publish-to-visible latency, ${options.latencySamples} trades ...`);
    // Where the time goes: the worker's batches and the replicas' notice delay, over the samples alone.
    const batchBefore = await histogram(workerMetrics, 'gridquote_ingest_batch_seconds');
    const noticeBefore = await Promise.all(
      replicas.map((r) => histogram(`${r.url}/metrics`, 'gridquote_store_notice_delay_seconds')),
    );
    const latency = await measureLatency(options, name, live, replicas, headers, target);
    const batchAfter = await histogram(workerMetrics, 'gridquote_ingest_batch_seconds');
    const noticeAfter = await Promise.all(
      replicas.map((r) => histogram(`${r.url}/metrics`, 'gridquote_store_notice_delay_seconds')),
    );
    const meanMs = (before: Sum[], after: Sum[]) => {
      const sum = after.reduce((total, one, i) => total + one.sum - (before[i]?.sum ?? 0), 0);
      const count = after.reduce((total, one, i) => total + one.count - (before[i]?.count ?? 0), 0);
      return count > 0 ? (sum / count) * 1000 : Number.NaN;
    };
    const batchMeanMs = meanMs([batchBefore], [batchAfter]);
    const noticeMeanMs = meanMs(noticeBefore, noticeAfter);

    const historyDate = history.at(-1)?.[0]?.date ?? options.until;
    const paths = [
      '/api/intraday?futures=au_electricity',
      `/api/tradelog?market=au_electricity&date=${historyDate}`,
    ];
    const run = async (count: number): Promise<ReplicaRun> => {
      const using = replicas.slice(0, count);
      const front = await startRoundRobinFront({
        port: 0,
        host: '127.0.0.1',
        backends: using.map((r) => r.url),
      });
      try {
        // Warm: each replica's cache holds both answers and its pool is open.
        await runWrk({ url: front.url, paths, headers }, { connections: options.connections, seconds: 2 });
        const cpuBefore = using.map((r) => processTreeCpuMicros(r.pid));
        const frontBefore = process.cpuUsage();
        const load = await runWrk({ url: front.url, paths, headers }, options);
        const frontCpu = process.cpuUsage(frontBefore);
        const cpu = using.reduce((sum, r, i) => sum + processTreeCpuMicros(r.pid) - (cpuBefore[i] ?? 0), 0);
        return {
          load,
          cpuPerAnswerUs: cpu / Math.max(1, load.requests),
          frontCpuPerAnswerUs: (frontCpu.user + frontCpu.system) / Math.max(1, load.requests),
        };
      } finally {
        await front.close();
      }
    };
    options.log('bench: cluster: one replica behind the front ...');
    const one = await run(1);
    options.log('bench: cluster: two replicas behind the front ...');
    const two = await run(2);
    await opened.close();
    return {
      loadBefore,
      loadAfter: loadavg()[0] ?? 0,
      streamEvents: streamed.length,
      publishSeconds,
      ingestSeconds,
      directSeconds,
      latency,
      batchMeanMs,
      noticeMeanMs,
      one,
      two,
    };
  } finally {
    for (const replica of replicas) await replica.stop();
    for (const child of children) {
      if (child.exitCode === null && child.signalCode === null) {
        const exited = once(child, 'exit');
        child.kill('SIGTERM');
        await exited;
      }
    }
    await cleanUp(options, name);
  }
}

function publishable(event: FeedEvent): PublishableEvent {
  const result = validateFeedEvent(event);
  if (!result.ok) throw new Error(`simulated event ${event.date}-${event.seq}: ${result.reason}`);
  return result;
}

/**
 * Each sample: publish the events before the next au_electricity futures trade and wait until
 * both replicas hold them (their /readyz version), then take both replicas' intraday answers,
 * publish the trade alone, and time until each replica's answer changes (at most 3 s: a trade
 * the intraday answer does not show counts as missed).
 */
async function measureLatency(
  options: ClusterBenchOptions,
  stream: string,
  live: readonly FeedEvent[],
  replicas: readonly ServeProcess[],
  headers: Record<string, string>,
  startVersion: number,
): Promise<ClusterBenchResult['latency']> {
  const samples: number[] = [];
  let missed = 0;
  let next = 0;
  const intraday = async (replica: ServeProcess) =>
    (await fetch(`${replica.url}/api/intraday?futures=au_electricity`, { headers })).text();
  // One publisher connection for the whole run: a sample's time is not a connection's.
  const queue = eventQueue();
  const publishing = publishFeed({ url: options.nats, stream }, queue.events);
  try {
    while (samples.length + missed < options.latencySamples && next < live.length) {
      const index = live.findIndex((event, i) => i >= next && isAuFuturesTrade(event));
      if (index < 0) break;
      queue.push(live.slice(next, index));
      await waitVisible(replicas, startVersion + index, headers);
      // Settle: the replicas have read the notices of what was just stored.
      await sleep(100);
      const before = await Promise.all(replicas.map(intraday));
      const sent = performance.now();
      queue.push([live[index] as FeedEvent]);
      const seen = await Promise.all(
        replicas.map(async (replica, i) => {
          while (performance.now() - sent < 3_000) {
            if ((await intraday(replica)) !== before[i]) return performance.now() - sent;
          }
          return undefined;
        }),
      );
      for (const ms of seen) {
        if (ms === undefined) missed += 1;
        else samples.push(ms);
      }
      next = index + 1;
    }
  } finally {
    queue.end();
    await publishing;
  }
  samples.sort((a, b) => a - b);
  const at = (q: number) =>
    samples[Math.min(samples.length - 1, Math.floor(q * samples.length))] ?? Number.NaN;
  return {
    samples: samples.length,
    missed,
    p50Ms: at(0.5),
    p99Ms: at(0.99),
    maxMs: samples.at(-1) ?? Number.NaN,
  };
}

/** Events handed to one long publishFeed as they are pushed. */
function eventQueue() {
  const pending: PublishableEvent[] = [];
  let wake: (() => void) | undefined;
  let ended = false;
  async function* events(): AsyncGenerator<PublishableEvent> {
    for (;;) {
      const item = pending.shift();
      if (item !== undefined) {
        yield item;
        continue;
      }
      if (ended) return;
      await new Promise<void>((resolve) => {
        wake = resolve;
      });
    }
  }
  return {
    events: events(),
    push(items: readonly FeedEvent[]) {
      pending.push(...items.map(publishable));
      wake?.();
    },
    end() {
      ended = true;
      wake?.();
    },
  };
}

function isAuFuturesTrade(event: FeedEvent): boolean {
  if (event.type !== 'trade') return false;
  const result = validateFeedEvent(event);
  return (
    result.ok && result.contract?.kind === 'future' && result.contract.product.market === 'au_electricity'
  );
}

/** Until every replica's /readyz reports the store version (it has read the commits). */
async function waitVisible(
  replicas: readonly ServeProcess[],
  version: number,
  headers: Record<string, string>,
) {
  for (const replica of replicas) {
    for (;;) {
      const body = (await (await fetch(`${replica.url}/readyz`, { headers })).json()) as { version?: number };
      if ((body.version ?? 0) >= version) break;
      await sleep(5);
    }
  }
}

async function cleanUp(options: ClusterBenchOptions, name: string): Promise<void> {
  await dropSchemas(options.pg, [name, `${name}_direct`]);
  const nc = await connect({ servers: options.nats });
  try {
    await (await jetstreamManager(nc)).streams.delete(name).catch(() => undefined);
  } finally {
    await nc.close();
  }
  const redis = new Redis(options.redis);
  try {
    const keys = await redis.keys(`${name}:*`);
    if (keys.length > 0) await redis.del(...keys);
  } finally {
    redis.disconnect();
  }
}

interface Sum {
  readonly sum: number;
  readonly count: number;
}

/** A Prometheus histogram's _sum and _count, scraped. */
async function histogram(url: string, name: string): Promise<Sum> {
  const text = await (await fetch(url)).text();
  const value = (suffix: string) =>
    Number(new RegExp(`^${name}_${suffix} (\\S+)$`, 'm').exec(text)?.[1] ?? 0);
  return { sum: value('sum'), count: value('count') };
}

/** Waits (at most a minute) for a line of the child's stderr; resolves with the pattern's first group. */
function lineOf(child: ChildProcess, pattern: RegExp): Promise<string> {
  return new Promise((resolve, reject) => {
    let text = '';
    setTimeout(() => reject(new Error(`no line ${pattern} within 60 s: ${text.trim()}`)), 60_000).unref();
    child.stderr?.setEncoding('utf8');
    child.stderr?.on('data', (chunk: string) => {
      text += chunk;
      const match = pattern.exec(text);
      if (match) resolve(match[1] ?? '');
    });
    child.once('exit', (code) =>
      reject(new Error(`exited (code ${code}) before ${pattern}: ${text.trim()}`)),
    );
  });
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
