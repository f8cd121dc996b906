import { Agent, request } from 'node:http';
import { type Buckets, LatencyHistogram, nowNs, nsToMs } from './latency-histogram.js';

/**
 * Stream subscribers for the stream benchmark (stream-bench.ts), in a process of their own so
 * that the server never shares its event loop with them. argv[2] is a StreamClientConfig as
 * JSON. Each stream's events are noted as they arrive (their id and the receipt instant on
 * process.hrtime's clock, which the server's ingest thread reads too); on `stop` the parent
 * sends the commits of the measured window and this process answers with the commit-to-receipt
 * latencies of the events those commits carried, as histogram buckets.
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
    };

const config = JSON.parse(process.argv[2] ?? '{}') as StreamClientConfig;
const agent = new Agent({ keepAlive: false, maxSockets: Number.POSITIVE_INFINITY });

/** Events received while measuring: date, seq and receipt instant. */
const dates: string[] = [];
const seqs: number[] = [];
const receipts: bigint[] = [];
let measuring = false;
let opened = 0;
let lost = 0;
let cpuAtStart = process.cpuUsage();

for (let index = 0; index < config.streams; index++) {
  const path = config.paths[index % config.paths.length] ?? '';
  const outgoing = request(
    `${config.url}${path}`,
    { agent, headers: { authorization: `Bearer ${config.key}`, accept: 'text/event-stream' } },
    (response) => {
      if (response.statusCode !== 200) {
        process.stderr.write(`stream client: ${path} answered ${response.statusCode}\n`);
        process.exit(1);
      }
      opened += 1;
      if (opened === config.streams)
        process.send?.({ type: 'open', streams: opened } satisfies StreamClientReport);
      response.setEncoding('utf8');
      let partial = '';
      response.on('data', (chunk: string) => {
        const at = nowNs();
        const lines = (partial + chunk).split('\n');
        partial = lines.pop() ?? '';
        if (!measuring) return;
        // Each frame starts with its id line: "id: yyyyMMdd-nnnnnn".
        for (const line of lines) {
          if (!line.startsWith('id: ')) continue;
          dates.push(line.slice(4, 12));
          seqs.push(Number(line.slice(13)));
          receipts.push(at);
        }
      });
      response.on('close', () => {
        lost += 1;
      });
    },
  );
  outgoing.on('error', (error) => {
    process.stderr.write(`stream client: ${error.message}\n`);
    process.exit(1);
  });
  outgoing.end();
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
  let outside = 0;
  for (let index = 0; index < receipts.length; index++) {
    const commit = commitOf(commits, dates[index] ?? '', seqs[index] ?? 0);
    if (commit === undefined) {
      outside += 1;
      continue;
    }
    histogram.add(nsToMs((receipts[index] ?? 0n) - BigInt(commit.atNs)));
  }
  process.send?.(
    {
      type: 'latencies',
      buckets: histogram.toJSON(),
      received: receipts.length,
      outside,
      lost,
      cpuUs: cpu.user + cpu.system,
    } satisfies StreamClientReport,
    () => process.exit(0),
  );
});
process.on('disconnect', () => process.exit(0));

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
