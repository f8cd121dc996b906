import { type ChildProcess, fork } from 'node:child_process';
import { setPriority } from 'node:os';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import type { FloorClientReport, FloorCommand, FloorServerReport } from './fan-out-floor-child.js';
import { messageOfType } from './http-child.js';
import { LatencyHistogram } from './latency-histogram.js';

/**
 * The stream benchmark's baseline: what the same fan-out costs at the least on this machine, in
 * the same run. A bare node:net server (nothing else on its event loop: no store, no exchange,
 * no HTTP, no SSE) writes, every tickMs, one Buffer of the live run's average write size to as
 * many sockets as the live run's batch wrote to, batch after batch; the same number of client
 * processes as the stream run, at the same priority and reading the same way, hold the sockets
 * and note each message's arrival against the instant its batch started. Its latencies are the
 * least the live streams' could be with one serving thread writing to that many sockets.
 */

export interface FanOutFloorOptions {
  readonly sockets: number;
  readonly clients: number;
  readonly tickMs: number;
  /** Bytes of each write. */
  readonly bytes: number;
  /** Sockets written for each batch, in turn: the live run's (FanOutReport.writesPerBatch). */
  readonly writesPerBatch: readonly number[];
}

export interface FanOutFloor {
  readonly sockets: number;
  readonly bytes: number;
  readonly received: number;
  readonly batches: number;
  readonly p50Ms: number;
  readonly p99Ms: number;
  /** The server's time per socket written, over all batches (as the stream run's): µs. */
  readonly perWriteUs: number;
}

const CHILD = fileURLToPath(new URL('./fan-out-floor-child.js', import.meta.url));

export async function measureFanOutFloor(options: FanOutFloorOptions): Promise<FanOutFloor> {
  const server = fork(CHILD, ['server'], { stdio: ['ignore', 'ignore', 'inherit', 'ipc'] });
  const clients: ChildProcess[] = [];
  try {
    const { port } = await messageOfType<{ port: number }>(server, 'listening');
    const per = Math.ceil(options.sockets / options.clients);
    for (let index = 0; index < options.clients && index * per < options.sockets; index++) {
      const count = Math.min(per, options.sockets - index * per);
      const client = fork(CHILD, ['client', String(port), String(count)], {
        stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
      });
      if (client.pid !== undefined) setPriority(client.pid, 19);
      clients.push(client);
    }
    await Promise.all(clients.map((client) => messageOfType(client, 'open')));
    // Every socket accepted before the first batch.
    await sleep(500);
    const start: FloorCommand = {
      type: 'start',
      tickMs: options.tickMs,
      bytes: options.bytes,
      writesPerBatch: options.writesPerBatch,
    };
    for (const client of clients) client.send(start);
    server.send(start);
    await sleep((options.writesPerBatch.length + 1) * options.tickMs);
    const written = messageOfType<FloorServerReport>(server, 'written');
    const stop: FloorCommand = { type: 'stop' };
    server.send(stop);
    const { perWriteUs, batches } = await written;
    // The last batch's bytes reach the clients before they stop.
    await sleep(200);
    const reports = clients.map((client) => messageOfType<FloorClientReport>(client, 'latencies'));
    for (const client of clients) client.send(stop);
    const histogram = new LatencyHistogram();
    for (const report of await Promise.all(reports)) histogram.merge(report.buckets);
    return {
      sockets: options.sockets,
      bytes: options.bytes,
      received: histogram.count,
      batches,
      p50Ms: histogram.percentile(50),
      p99Ms: histogram.percentile(99),
      perWriteUs,
    };
  } finally {
    for (const client of clients) client.kill();
    server.kill();
  }
}
