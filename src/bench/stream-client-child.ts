import { connect, type Socket } from 'node:net';
import { type Buckets, LatencyHistogram, nowNs, nsToMs } from './latency-histogram.js';

/**
 * Stream subscribers for the stream benchmark (stream-bench.ts), in a process of their own so
 * that the server never shares its event loop with them. argv[2] is a StreamClientConfig as
 * JSON. While measuring, each stream's bytes are kept as they arrive with the receipt instant
 * (process.hrtime's clock, which the server's ingest thread reads too), and nothing else: on
 * `stop` the parent sends the commits of the measured window and this process finds the event
 * ids in what it kept and answers with the commit-to-receipt latencies of the events those
 * commits carried, as histogram buckets.
 *
 * A client on the same cores as the server is part of what it measures: every instant it spends
 * on a read is an instant the next socket's bytes wait. So each stream is a bare TCP socket
 * reading into one buffer of the process (net's `onread`: no stream machinery, no HTTP parser,
 * no string per read), and parsing waits until the measurement is over. The request is the one
 * line an HTTP/1.1 client sends; the response's head is checked for its 200.
 */

export interface StreamClientConfig {
  readonly url: string;
  /** Request paths (with query), one per stream in turn. */
  readonly paths: readonly string[];
  readonly streams: number;
  readonly key: string;
}

/** Parent -> client. */
export type StreamClientCommand =
  | { readonly type: 'start' }
  | { readonly type: 'stop'; readonly commits: readonly WindowCommit[] };

/** A batch committed in the window: its last event and when (ns, decimal). */
export interface WindowCommit {
  readonly lastDate: string;
  readonly lastSeq: number;
  readonly atNs: string;
}

/** Client -> parent. */
export type StreamClientReport =
  | { readonly type: 'open'; readonly streams: number }
  | {
      readonly type: 'latencies';
      readonly buckets: Buckets;
      /** Events received while measuring, and those of them no window commit carried (edges of the window). */
      readonly received: number;
      readonly outside: number;
      /** Streams that ended or failed before stop. */
      readonly lost: number;
      /** This process's CPU while measuring, µs. */
      readonly cpuUs: number;
      /** Bytes received while measuring. */
      readonly bytes: number;
    };

/** One stream: its response head until it is whole, then (while measuring) what arrived and when. */
interface Subscriber {
  head: string;
  open: boolean;
  readonly pieces: Buffer[];
  readonly receipts: bigint[];
}

const config = JSON.parse(process.argv[2] ?? '{}') as StreamClientConfig;
const { hostname, port } = new URL(config.url);
/** Every socket reads into this one buffer; what is kept is copied out of it. */
const READ_BUFFER = Buffer.allocUnsafe(256 * 1024);

let measuring = false;
let opened = 0;
let lost = 0;
let cpuAtStart = process.cpuUsage();
const subscribers: Subscriber[] = [];

for (let index = 0; index < config.streams; index++) {
  const path = config.paths[index % config.paths.length] ?? '';
  subscribers.push(subscribe(path));
}

function subscribe(path: string): Subscriber {
  const subscriber: Subscriber = { head: '', open: false, pieces: [], receipts: [] };
  const socket: Socket = connect({
    host: hostname,
    port: Number(port),
    noDelay: true,
    onread: {
      buffer: READ_BUFFER,
      callback: (length) => {
        const at = nowNs();
        if (measuring) {
          subscriber.receipts.push(at);
          subscriber.pieces.push(Buffer.from(READ_BUFFER.subarray(0, length)));
        } else if (!subscriber.open) {
          readHead(subscriber, path, READ_BUFFER.toString('latin1', 0, length));
        }
        return true;
      },
    },
  });
  socket.on('connect', () =>
    socket.write(
      `GET ${path} HTTP/1.1\r\nHost: ${hostname}:${port}\r\nAuthorization: Bearer ${config.key}\r\nAccept: text/event-stream\r\n\r\n`,
    ),
  );
  socket.on('error', (error) => {
    process.stderr.write(`stream client: ${error.message}\n`);
    process.exit(1);
  });
  socket.on('close', () => {
    lost += 1;
  });
  return subscriber;
}

function readHead(subscriber: Subscriber, path: string, text: string): void {
  subscriber.head += text;
  if (!subscriber.head.includes('\r\n\r\n')) return;
  if (!subscriber.head.startsWith('HTTP/1.1 200 ')) {
    process.stderr.write(`stream client: ${path} answered ${subscriber.head.split('\r\n')[0]}\n`);
    process.exit(1);
  }
  subscriber.open = true;
  opened += 1;
  if (opened === config.streams)
    process.send?.({ type: 'open', streams: opened } satisfies StreamClientReport);
}

process.on('message', (message: StreamClientCommand) => {
  if (message.type === 'start') {
    measuring = true;
    cpuAtStart = process.cpuUsage();
    return;
  }
  measuring = false;
  const cpu = process.cpuUsage(cpuAtStart);
  const histogram = new LatencyHistogram();
  const commits = message.commits;
  let received = 0;
  let outside = 0;
  let bytes = 0;
  for (const subscriber of subscribers) {
    for (const piece of subscriber.pieces) bytes += piece.length;
    for (const { date, seq, at } of eventsReceived(subscriber)) {
      received += 1;
      const commit = commitOf(commits, date, seq);
      if (commit === undefined) outside += 1;
      else histogram.add(nsToMs(at - BigInt(commit.atNs)));
    }
  }
  process.send?.(
    {
      type: 'latencies',
      buckets: histogram.toJSON(),
      received,
      outside,
      lost,
      cpuUs: cpu.user + cpu.system,
      bytes,
    } satisfies StreamClientReport,
    () => process.exit(0),
  );
});
process.on('disconnect', () => process.exit(0));

const ID_LINE = Buffer.from('\nid: ');

/**
 * The events whose id line arrived while measuring, each with the instant the read holding the
 * line's end arrived. Every frame starts with "id: yyyyMMdd-nnnnnn" after a line break (the
 * previous frame's blank line, or a chunk's CRLF); a frame cut by the start of the measurement
 * has no such line in what was kept, so it is not counted.
 */
function* eventsReceived(subscriber: Subscriber): Generator<{ date: string; seq: number; at: bigint }> {
  const bytes = Buffer.concat(subscriber.pieces);
  const ends: number[] = [];
  let end = 0;
  for (const piece of subscriber.pieces) {
    end += piece.length;
    ends.push(end);
  }
  let piece = 0;
  for (let found = bytes.indexOf(ID_LINE); found >= 0; found = bytes.indexOf(ID_LINE, found + 1)) {
    const lineEnd = bytes.indexOf(0x0a, found + ID_LINE.length);
    if (lineEnd < 0) break;
    while ((ends[piece] ?? Number.POSITIVE_INFINITY) <= lineEnd) piece += 1;
    const id = bytes.toString('latin1', found + ID_LINE.length, lineEnd);
    yield { date: id.slice(0, 8), seq: Number(id.slice(9)), at: subscriber.receipts[piece] ?? 0n };
  }
}

/**
 * The commit that carried event (date, seq): the first whose last event is at or after it. The
 * list starts with the last commit before the window, which is not measured: its events, and any
 * before it, are outside.
 */
function commitOf(commits: readonly WindowCommit[], date: string, seq: number): WindowCommit | undefined {
  const before = (commit: WindowCommit) =>
    commit.lastDate < date || (commit.lastDate === date && commit.lastSeq < seq);
  let low = 0;
  let high = commits.length;
  while (low < high) {
    const middle = (low + high) >> 1;
    if (before(commits[middle] as WindowCommit)) low = middle + 1;
    else high = middle;
  }
  return low === 0 ? undefined : commits[low];
}
