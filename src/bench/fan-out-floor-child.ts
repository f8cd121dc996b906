import { connect, createServer, type Socket } from 'node:net';
import { type Buckets, LatencyHistogram, nowNs, nsToMs } from './latency-histogram.js';

/**
 * The two sides of the bare fan-out (fan-out-floor.ts), by argv[2]:
 *
 * - `server`: a node:net server with nothing else on its event loop. On `start` it writes, every
 *   tickMs, one Buffer of `bytes` to each of the first so many sockets in turn (the live run's
 *   count for that batch), the batch's start instant (process.hrtime, ns) written into the
 *   Buffer's first 20 bytes; on `stop` it answers the time per socket written.
 * - `client`: opens `sockets` connections to the server (its parent lowers its priority as the
 *   stream clients') and, once started, notes each message's receipt against the instant it carries.
 */

export interface FloorServerReport {
  readonly type: 'written';
  /** Time per socket written over all batches (as FanOutReport.perWriteUs): µs. */
  readonly perWriteUs: number;
  readonly batches: number;
}

export interface FloorClientReport {
  readonly type: 'latencies';
  readonly buckets: Buckets;
}

export type FloorCommand =
  | {
      readonly type: 'start';
      readonly tickMs: number;
      readonly bytes: number;
      /** Sockets written for each batch, in turn (the first so many); then it stops writing. */
      readonly writesPerBatch: readonly number[];
    }
  | { readonly type: 'stop' };

const STAMP_DIGITS = 20;

function send(message: unknown): void {
  process.send?.(message);
}

function runServer(): void {
  const sockets: Socket[] = [];
  const server = createServer((socket) => {
    socket.setNoDelay(true);
    socket.on('error', () => {});
    sockets.push(socket);
  });
  let timer: NodeJS.Timeout | undefined;
  let batches = 0;
  let writes = 0;
  let writingNs = 0n;
  process.on('message', (command: FloorCommand) => {
    if (command.type === 'start') {
      let batch = 0;
      timer = setInterval(() => {
        const start = nowNs();
        const message = Buffer.alloc(command.bytes, 0x20);
        message.write(start.toString().padStart(STAMP_DIGITS, '0'), 0, 'latin1');
        message[command.bytes - 1] = 0x0a;
        const count = Math.min(sockets.length, command.writesPerBatch[batch++] ?? 0);
        if (batch >= command.writesPerBatch.length) clearInterval(timer);
        for (let index = 0; index < count; index++) sockets[index]?.write(message);
        if (count > 0) {
          batches += 1;
          writes += count;
          writingNs += nowNs() - start;
        }
      }, command.tickMs);
    } else {
      clearInterval(timer);
      const report: FloorServerReport = {
        type: 'written',
        perWriteUs: (nsToMs(writingNs) * 1000) / Math.max(1, writes),
        batches,
      };
      send(report);
      for (const socket of sockets) socket.destroy();
      server.close();
    }
  });
  server.listen(0, '127.0.0.1', () => {
    const address = server.address();
    send({ type: 'listening', port: typeof address === 'object' && address !== null ? address.port : 0 });
  });
}

/** Every socket reads into this one buffer; what is kept is copied out of it. */
const READ_BUFFER = Buffer.allocUnsafe(256 * 1024);

function runClient(port: number, count: number): void {
  let measuring = false;
  /** Bytes of each message, from `start`. */
  let bytes = 0;
  let open = 0;
  // As the stream clients (stream-client-child.ts): a bare socket reading into one buffer, and
  // while measuring only what arrived and when is kept; parsing waits until it is over.
  const arrivals: { readonly pieces: Buffer[]; readonly at: bigint[] }[] = [];
  for (let index = 0; index < count; index++) {
    const kept = { pieces: [] as Buffer[], at: [] as bigint[] };
    arrivals.push(kept);
    const socket = connect({
      port,
      host: '127.0.0.1',
      noDelay: true,
      onread: {
        buffer: READ_BUFFER,
        callback: (length) => {
          if (!measuring) return true;
          kept.at.push(nowNs());
          kept.pieces.push(Buffer.from(READ_BUFFER.subarray(0, length)));
          return true;
        },
      },
    });
    socket.on('connect', () => {
      open += 1;
      if (open === count) send({ type: 'open' });
    });
    socket.on('error', () => {});
  }
  process.on('message', (command: FloorCommand) => {
    if (command.type === 'start') {
      bytes = command.bytes;
      measuring = true;
      return;
    }
    measuring = false;
    const histogram = new LatencyHistogram();
    for (const { pieces, at } of arrivals) {
      // A message counts as received with the read that completes it. The server writes nothing
      // before it is started, after the clients, so the first read starts with a message.
      const received = Buffer.concat(pieces);
      let end = 0;
      let piece = 0;
      for (let offset = 0; offset + bytes <= received.length; offset += bytes) {
        while (end + (pieces[piece]?.length ?? 0) < offset + bytes && piece < pieces.length) {
          end += pieces[piece]?.length ?? 0;
          piece += 1;
        }
        const stamp = BigInt(received.toString('latin1', offset, offset + STAMP_DIGITS));
        histogram.add(nsToMs((at[piece] as bigint) - stamp));
      }
    }
    const report: FloorClientReport = {
      type: 'latencies',
      buckets: histogram.toJSON(),
    };
    send(report);
    setTimeout(() => process.exit(0), 100);
  });
}

if (process.argv[2] === 'server') runServer();
else runClient(Number(process.argv[3]), Number(process.argv[4]));
