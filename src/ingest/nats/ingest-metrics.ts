import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Counter, Gauge, Histogram, Registry } from 'prom-client';
import type { BatchReport } from './nats-ingest.js';

/**
 * The ingest worker's Prometheus metrics (docs/operations.md, "Deployment: beyond one
 * machine"), on GET /metrics of their own small port: the worker serves no API. Bound to
 * loopback: a scraper on another machine goes through the operator's own proxy or agent.
 */
export interface IngestMetricsServer {
  readonly url: string;
  observe(batch: BatchReport): void;
  /** The store refusing batches: /readyz answers 503 until it takes one again. */
  storeFailing(failing: boolean): void;
  close(): Promise<void>;
}

export async function startIngestMetrics(port: number, host = '127.0.0.1'): Promise<IngestMetricsServer> {
  const registry = new Registry();
  const batchSeconds = new Histogram({
    name: 'gridquote_ingest_batch_seconds',
    help: 'Time from a batch first message to its commit and acks',
    buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5],
    registers: [registry],
  });
  const batchMessages = new Histogram({
    name: 'gridquote_ingest_batch_messages',
    help: 'Messages per batch',
    buckets: [1, 8, 64, 256, 1024, 2048, 4096],
    registers: [registry],
  });
  const events = new Counter({
    name: 'gridquote_ingest_events_total',
    help: 'Stream messages ingested, by result: added, skipped (already stored), refused (terminated)',
    labelNames: ['result'],
    registers: [registry],
  });
  const lag = new Gauge({
    name: 'gridquote_ingest_consumer_pending',
    help: 'Messages of the stream not yet delivered to the worker, as of its last batch (consumer lag)',
    registers: [registry],
  });
  const storeFailing = new Gauge({
    name: 'gridquote_ingest_store_failing',
    help: '1 while the store refuses batches (nothing is acknowledged; they are retried), else 0',
    registers: [registry],
  });
  storeFailing.set(0);
  let failing = false;
  const server: Server = createServer((request, response) => {
    // Probes as the API servers have them: alive while the process answers; ready while the store takes batches.
    if (request.method === 'GET' && (request.url === '/healthz' || request.url === '/readyz')) {
      const down = request.url === '/readyz' && failing;
      response
        .writeHead(down ? 503 : 200, {
          'content-type': 'application/json; charset=utf-8',
          'cache-control': 'no-store',
        })
        .end(down ? '{"status":"store-failing"}' : '{"status":"ok"}');
      return;
    }
    if (request.method !== 'GET' || request.url !== '/metrics') {
      response.writeHead(404, { 'content-type': 'text/plain' }).end('not found\n');
      return;
    }
    registry.metrics().then(
      (text) => response.writeHead(200, { 'content-type': registry.contentType }).end(text),
      () => response.writeHead(500).end(),
    );
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => resolve());
  });
  const { port: bound } = server.address() as AddressInfo;
  return {
    url: `http://${host}:${bound}`,
    observe(batch) {
      batchSeconds.observe(batch.ms / 1000);
      batchMessages.observe(batch.messages);
      events.inc({ result: 'added' }, batch.added);
      events.inc({ result: 'skipped' }, batch.skipped);
      events.inc({ result: 'refused' }, batch.refused);
      lag.set(batch.pending);
    },
    storeFailing(now) {
      failing = now;
      storeFailing.set(now ? 1 : 0);
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
