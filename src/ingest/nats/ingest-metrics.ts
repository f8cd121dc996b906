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
  const server: Server = createServer((request, response) => {
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
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
