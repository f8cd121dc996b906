import { type IngestMetricsServer, startIngestMetrics } from '../ingest/nats/ingest-metrics.js';
import type { BatchReport } from '../ingest/nats/nats-ingest.js';
import { runNatsIngest } from '../ingest/nats/nats-ingest.js';
import { describeLocation } from '../store/open-store.js';
import { type CliIo, withStore } from './cli-io.js';
import { abortOnShutdownSignal } from './stop-signal.js';
import { retentionOf, type StreamFlags } from './stream-flags.js';

export interface StreamIngestFlags extends StreamFlags {
  readonly db: string;
  readonly from: string;
  readonly durable: string;
  readonly batchSize: number;
  readonly ackWaitMs: number;
  readonly metricsPort?: number;
}

/** How often the worker logs what it did since its last summary line. */
const SUMMARY_MS = 10_000;

/**
 * `gridquote ingest --from nats://...`: the ingest worker. Runs until SIGTERM or SIGINT, then
 * finishes the batch in hand, acks it and exits 0; logs a summary line every 10 s while busy.
 */
export async function runStreamIngest(io: CliIo, flags: StreamIngestFlags): Promise<void> {
  const log = (line: string) => io.stderr.write(`ingest: ${line}\n`);
  const stop = abortOnShutdownSignal();
  let metrics: IngestMetricsServer | undefined;
  try {
    if (flags.metricsPort !== undefined) {
      metrics = await startIngestMetrics(flags.metricsPort);
      log(`metrics at ${metrics.url}/metrics`);
    }
    const summary = createSummary(log);
    const totals = await withStore(
      io,
      flags.db,
      { access: 'write', create: true, purpose: 'for ingesting' },
      (store) => {
        log(`consuming stream ${flags.stream} as ${flags.durable} into ${describeLocation(flags.db)}`);
        return runNatsIngest(store.writer, {
          url: flags.from,
          stream: flags.stream,
          durable: flags.durable,
          batchSize: flags.batchSize,
          ackWaitMs: flags.ackWaitMs,
          retention: retentionOf(flags),
          log,
          onStoreFailing: (failing) => metrics?.storeFailing(failing),
          onBatch: (batch) => {
            metrics?.observe(batch);
            summary.add(batch);
          },
          signal: stop.signal,
        });
      },
    );
    summary.flush();
    log(`stopped: ${totals.added} events added, ${totals.skipped} already stored, ${totals.refused} refused`);
  } finally {
    stop.dispose();
    await metrics?.close();
  }
}

function createSummary(log: (line: string) => void) {
  let batches = 0;
  let events = 0;
  let added = 0;
  let slowest = 0;
  let pending = 0;
  let since = performance.now();
  const flush = () => {
    if (batches > 0) {
      log(
        `${events} events in ${batches} batches (${added} added), slowest batch ${slowest.toFixed(1)} ms, ${pending} pending in the stream`,
      );
    }
    batches = 0;
    events = 0;
    added = 0;
    slowest = 0;
    since = performance.now();
  };
  return {
    add(batch: BatchReport) {
      batches += 1;
      events += batch.messages;
      added += batch.added;
      slowest = Math.max(slowest, batch.ms);
      pending = batch.pending;
      if (performance.now() - since >= SUMMARY_MS) flush();
    },
    flush,
  };
}
