import { subscribe, unsubscribe } from 'node:diagnostics_channel';
import { comparePositions, type StreamPosition } from '../http/stream/event-id.js';
import { FAN_OUT_CHANNEL, type FanOut } from '../http/stream/stream-hub.js';
import { type Buckets, LatencyHistogram, nsToMs } from './latency-histogram.js';

/**
 * The server's side of the stream benchmark's latency, recorded inside the server child
 * (http-server-child.ts): for every event the hub wrote to a stream, the time from its commit to
 * the return of that write, from the hub's FanOut (FAN_OUT_CHANNEL). Beside the clients'
 * commit-to-receipt it tells the server's part (reading the commit, the writes of the streams
 * before) from the clients' (waking up and reading on cores they share with the server).
 */

/** A commit of the live exchange: its last event and when, on process.hrtime's clock. */
export interface RecordedCommit extends StreamPosition {
  readonly atNs: bigint;
}

export interface FanOutReport {
  readonly type: 'fan-out';
  /** Commit to write, one sample per event written to a stream. */
  readonly buckets: Buckets;
  /** Batches fanned out; of them, those that carried events of more than one commit. */
  readonly batches: number;
  readonly spanning: number;
  /** Streams written per batch, at most. */
  readonly maxWrites: number;
  /** Commit to the start of its batch's fan-out (notice, read, parse), one sample per batch. */
  readonly startBuckets: Buckets;
  /** Server time per stream written: from the fan-out's start to its last write, over the writes, all batches: µs. */
  readonly perWriteUs: number;
  /** Streams written for each batch, in order (what the bare fan-out of the baseline replays). */
  readonly writesPerBatch: readonly number[];
}

/** Commits older than this many are forgotten: a batch is fanned out long before. */
const COMMITS_KEPT = 1_000;

export class FanOutRecorder {
  readonly #commits: RecordedCommit[] = [];
  /** The batches fanned out while recording, timed against their commits at the end: a batch may go out before its commit is reported. */
  #fanOuts: FanOut[] = [];
  readonly #listener = (message: unknown) => {
    this.#fanOuts.push(message as FanOut);
  };

  committed(commit: RecordedCommit): void {
    this.#commits.push(commit);
    if (this.#commits.length > 2 * COMMITS_KEPT) this.#commits.splice(0, COMMITS_KEPT);
  }

  /** Subscribes: until stop, the hub times its writes. */
  start(): void {
    this.#fanOuts = [];
    subscribe(FAN_OUT_CHANNEL, this.#listener);
  }

  /**
   * Every write of a batch is timed from the commit of the batch's first event: when a batch
   * carries several commits (the hub read them together), the later ones' events count from the
   * earlier commit, so the server's part is overstated, never understated.
   */
  stop(): FanOutReport {
    unsubscribe(FAN_OUT_CHANNEL, this.#listener);
    const fanOuts = this.#fanOuts;
    this.#fanOuts = [];
    const histogram = new LatencyHistogram();
    const starts = new LatencyHistogram();
    let fanOutNs = 0;
    let written = 0;
    let batches = 0;
    let spanning = 0;
    let maxWrites = 0;
    const writesPerBatch: number[] = [];
    for (const fanOut of fanOuts) {
      const commit = this.#commits.find((candidate) => comparePositions(candidate, fanOut.first) >= 0);
      if (commit === undefined) continue;
      batches += 1;
      if (comparePositions(fanOut.last, commit) > 0) spanning += 1;
      maxWrites = Math.max(maxWrites, fanOut.writtenNs.length);
      writesPerBatch.push(fanOut.writtenNs.length);
      const startMs = nsToMs(fanOut.startNs - commit.atNs);
      starts.add(startMs);
      fanOutNs += fanOut.writtenNs.at(-1) ?? 0;
      written += fanOut.writtenNs.length;
      fanOut.writtenNs.forEach((ns, index) => {
        histogram.add(startMs + ns / 1e6, fanOut.events[index]);
      });
    }
    return {
      type: 'fan-out',
      buckets: histogram.toJSON(),
      batches,
      spanning,
      maxWrites,
      startBuckets: starts.toJSON(),
      perWriteUs: fanOutNs / 1000 / Math.max(1, written),
      writesPerBatch,
    };
  }
}
