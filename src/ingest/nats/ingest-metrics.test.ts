import { describe, expect, it } from 'vitest';
import { startIngestMetrics } from './ingest-metrics.js';

describe('the ingest worker metrics', () => {
  it('exposes batch time, sizes, events by result and the consumer lag on GET /metrics', async () => {
    const metrics = await startIngestMetrics(0);
    try {
      metrics.observe({ messages: 10, added: 7, skipped: 2, refused: 1, ms: 3, pending: 42 });
      metrics.observe({ messages: 5, added: 5, skipped: 0, refused: 0, ms: 30, pending: 12 });
      const response = await fetch(`${metrics.url}/metrics`);
      expect(response.status).toBe(200);
      const text = await response.text();
      expect(text).toMatch(/^gridquote_ingest_events_total\{result="added"\} 12$/m);
      expect(text).toMatch(/^gridquote_ingest_events_total\{result="skipped"\} 2$/m);
      expect(text).toMatch(/^gridquote_ingest_events_total\{result="refused"\} 1$/m);
      expect(text).toMatch(/^gridquote_ingest_consumer_pending 12$/m);
      expect(text).toMatch(/^gridquote_ingest_batch_seconds_count 2$/m);
      expect(text).toMatch(/^gridquote_ingest_batch_seconds_bucket\{le="0.005"\} 1$/m);
      expect(text).toMatch(/^gridquote_ingest_batch_messages_sum 15$/m);
      expect((await fetch(`${metrics.url}/other`)).status).toBe(404);
    } finally {
      await metrics.close();
    }
  });

  it('answers /healthz while it runs and /readyz 503 while the store refuses batches', async () => {
    const metrics = await startIngestMetrics(0);
    try {
      expect((await fetch(`${metrics.url}/healthz`)).status).toBe(200);
      expect((await fetch(`${metrics.url}/readyz`)).status).toBe(200);
      metrics.storeFailing(true);
      expect((await fetch(`${metrics.url}/healthz`)).status).toBe(200);
      const down = await fetch(`${metrics.url}/readyz`);
      expect(down.status).toBe(503);
      expect(await down.json()).toEqual({ status: 'store-failing' });
      expect(await (await fetch(`${metrics.url}/metrics`)).text()).toMatch(
        /^gridquote_ingest_store_failing 1$/m,
      );
      metrics.storeFailing(false);
      expect((await fetch(`${metrics.url}/readyz`)).status).toBe(200);
    } finally {
      await metrics.close();
    }
  });
});
