import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from 'prom-client';
import { sydneyUnixSeconds } from '../domain/dates.js';
import type { ExchangeClock } from '../domain/exchange-clock.js';
import { MARKET_CODES } from '../domain/markets.js';
import type { AppendNotice, MarketReader } from '../store/store.js';
import type { LogWriterStats } from './log-destination.js';
import { createTalliedHistogram } from './tallied-histogram.js';

/**
 * Prometheus metrics of one app, in a registry of its own: several apps in one process (tests,
 * the benchmark) never share or collide on the default global registry.
 */

/** 0.5 ms to 2.5 s: the fast path answers in well under a millisecond, a year of datamine in hundreds. */
export const DURATION_BUCKETS = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5];

/** Records the requests of one operation; made once per route, so a request builds no label set. */
export interface OperationRecorder {
  record(status: number, seconds: number): void;
  /** An answer whose duration is unknown (written before a request was parsed): counted only. */
  count(status: number): void;
}

export interface Metrics {
  readonly registry: Registry;
  operation(name: string): OperationRecorder;
  /** The response cache (answer.ts) found a valid answer, or had to compute one. */
  cacheHit(): void;
  /** A cached answer was written by the fast lane (fast-lane.ts), without the framework. */
  fastLaneAnswer(): void;
  cacheMiss(): void;
  /** A request counted by this process alone because the shared rate-limit store (Redis) was unreachable. */
  rateLimitFallback(): void;
  /** A store.onAppend notice: events stored by this process or another writing to the store. */
  appended(notice: AppendNotice): void;
  /** The event streams of GET /api/stream (http/stream/). */
  readonly streams: StreamMetrics;
  /** The text exposition; the first call also starts the default process metrics. */
  exposition(): Promise<string>;
  readonly contentType: string;
}

export interface StreamMetrics {
  opened(): void;
  closed(): void;
  sent(events: number): void;
  /** A client read too slowly and its stream was closed (its queue reached the bound). */
  dropped(): void;
}

export interface MetricsSources {
  readonly reader: MarketReader;
  /** The exchange clock: the lag is its now minus the newest event's time. */
  readonly clock: ExchangeClock;
  /** The request log's writer on stdout (log-destination.ts): its waits for a pipe's reader, and the lines it dropped. */
  readonly logWriter?: LogWriterStats;
  /** How far the store's data trails its source (MarketStore.replicationLagSeconds), where it can. */
  readonly replicationLag?: () => number | undefined;
}

export function createMetrics(sources: MetricsSources): Metrics {
  const registry = new Registry();
  const registers = [registry];
  // Requests are tallied in plain maps and added to the counter when it is read (a scrape): a
  // labelled inc validates and hashes its labels each time, about a microsecond per request.
  const tallies: { readonly operation: string; readonly byStatus: Map<number, number> }[] = [];
  new Counter({
    name: 'gridquote_http_requests_total',
    help: 'HTTP requests answered, by operation and status.',
    labelNames: ['operation', 'status'] as const,
    registers,
    collect() {
      for (const { operation, byStatus } of tallies) {
        for (const [status, count] of byStatus) this.labels(operation, String(status)).inc(count);
        byStatus.clear();
      }
    },
  });
  // Observed per request: tallied in arrays, read by prom-client at a scrape (tallied-histogram.ts).
  const duration = createTalliedHistogram({
    name: 'gridquote_http_request_duration_seconds',
    help: 'Time from the request to the last byte of the answer handed to the socket, by operation.',
    labelName: 'operation',
    buckets: DURATION_BUCKETS,
    registry,
  });
  const cacheHits = new Counter({
    name: 'gridquote_response_cache_hits_total',
    help: 'Answers served from the response cache.',
    registers,
  });
  let fastLaneAnswers = 0;
  new Counter({
    name: 'gridquote_fast_lane_answers_total',
    help: 'Cached answers written before the framework (the fast lane); the rest of the cache hits went through it.',
    registers,
    collect() {
      this.inc(fastLaneAnswers);
      fastLaneAnswers = 0;
    },
  });
  const cacheMisses = new Counter({
    name: 'gridquote_response_cache_misses_total',
    help: 'Answers the response cache did not hold (computed by a query).',
    registers,
  });
  const rateLimitFallbacks = new Counter({
    name: 'gridquote_rate_limit_fallback_total',
    help: 'Rate-limit checks made in this process alone because Redis was unreachable (GRIDQUOTE_REDIS_UNAVAILABLE=allow).',
    registers,
  });
  const ingested = new Counter({
    name: 'gridquote_events_ingested_total',
    help: 'Feed events stored while this server ran, by its own process (the demo feed) or another writing to its store.',
    registers,
  });

  const openStreams = new Gauge({
    name: 'gridquote_streams_open',
    help: 'Event streams (GET /api/stream) open now.',
    registers,
  });
  const streamEvents = new Counter({
    name: 'gridquote_stream_events_sent_total',
    help: 'Events written to event streams, publications included (heartbeats not).',
    registers,
  });
  const droppedStreams = new Counter({
    name: 'gridquote_streams_dropped_slow_total',
    help: 'Event streams closed because the client read too slowly (its queue reached the bound).',
    registers,
  });

  // The log writer keeps running totals; a scrape adds what they grew by.
  const { logWriter } = sources;
  const totalCounter = (name: string, help: string, total: () => number) => {
    let counted = 0;
    new Counter({
      name,
      help,
      registers,
      collect() {
        const now = total();
        this.inc(now - counted);
        counted = now;
      },
    });
  };
  totalCounter(
    'gridquote_log_wait_seconds_total',
    "Time the server waited for its log's reader (stdout a pipe or socket whose reader fell 4 MiB behind).",
    () => (logWriter?.waitedMs ?? 0) / 1000,
  );
  totalCounter(
    'gridquote_log_lines_lost_total',
    'Log lines dropped because writing them to stdout failed (its reader gone or stopped for 10 s, a full disk), or left unwritten at exit.',
    () => logWriter?.lostLines ?? 0,
  );

  const noticeDelay = new Histogram({
    name: 'gridquote_store_notice_delay_seconds',
    help: "Time from another process's commit notice (PostgreSQL NOTIFY, sent as it commits) to this server having read what changed: how far its answers trail the writer.",
    buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5],
    registers,
  });

  const { reader, clock, replicationLag } = sources;
  if (replicationLag !== undefined) {
    new Gauge({
      name: 'gridquote_store_replication_lag_seconds',
      help: "How far the database this server reads trails its primary: 0 on a primary or a standby that has replayed all it received, else the time since the standby's last replayed transaction committed; NaN while unknown.",
      registers,
      collect() {
        this.set(replicationLag() ?? Number.NaN);
      },
    });
  }
  // The newest event's instant, recomputed only when the store's version moved.
  let newest: { readonly version: number; readonly seconds: number | undefined } | undefined;
  new Gauge({
    name: 'gridquote_store_version',
    help: 'Version of the stored data (the last event sequence); it rises with every ingest, in any process.',
    registers,
    async collect() {
      // A failing store leaves the last value; /readyz is the place that reports it.
      const version = await attempt(() => reader.version());
      if (version !== undefined) this.set(version);
    },
  });
  new Gauge({
    name: 'gridquote_ingest_lag_seconds',
    help: 'Now minus the exchange (Sydney) time of the newest stored event; NaN while the store is empty.',
    registers,
    async collect() {
      const version = await attempt(() => reader.version());
      if (version === undefined) return;
      let known = newest;
      if (known?.version !== version) {
        const seconds = await attempt(() => newestEventSeconds(reader));
        known = { version, seconds };
        newest = known;
      }
      this.set(known.seconds === undefined ? Number.NaN : clock().getTime() / 1000 - known.seconds);
    },
  });

  let defaults = false;
  return {
    registry,
    contentType: registry.contentType,
    operation(name) {
      const observe = duration.series(name);
      const byStatus = new Map<number, number>();
      tallies.push({ operation: name, byStatus });
      const count = (status: number) => {
        byStatus.set(status, (byStatus.get(status) ?? 0) + 1);
      };
      return {
        record(status, seconds) {
          count(status);
          observe(seconds);
        },
        count,
      };
    },
    streams: {
      opened: () => openStreams.inc(),
      closed: () => openStreams.dec(),
      sent: (events) => streamEvents.inc(events),
      dropped: () => droppedStreams.inc(),
    },
    cacheHit: () => cacheHits.inc(),
    fastLaneAnswer: () => {
      fastLaneAnswers += 1;
    },
    cacheMiss: () => cacheMisses.inc(),
    rateLimitFallback: () => rateLimitFallbacks.inc(),
    appended(notice) {
      ingested.inc(notice.added);
      // Clocks of two machines may differ a little: never a negative delay.
      if (notice.notifiedAtMs !== undefined)
        noticeDelay.observe(Math.max(0, Date.now() - notice.notifiedAtMs) / 1000);
      newest = undefined;
    },
    exposition() {
      // Started on first use rather than per app: prom-client cannot stop these collectors (event
      // loop monitor, GC observer), and most apps (tests) are never scraped.
      if (!defaults) {
        collectDefaultMetrics({ register: registry });
        defaults = true;
      }
      return registry.metrics();
    },
  };
}

async function attempt<T>(read: () => Promise<T>): Promise<T | undefined> {
  try {
    return await read();
  } catch {
    return undefined;
  }
}

/** Unix seconds of the newest stored event: the latest day's latest event time over the markets. */
export async function newestEventSeconds(reader: MarketReader): Promise<number | undefined> {
  const date = await reader.latestDate();
  if (date === undefined) return undefined;
  let latest: string | undefined;
  for (const market of MARKET_CODES) {
    const time = await reader.lastUpdate({ date, market });
    if (time !== undefined && (latest === undefined || time > latest)) latest = time;
  }
  return latest === undefined ? undefined : sydneyUnixSeconds(date, latest);
}
