import { writeSync } from 'node:fs';
import { countLines, say } from './log-writer-notes.js';

/**
 * Bytes that may wait in this process for a full pipe or socket before a write waits for its
 * reader: a log collector that pauses is absorbed without the server noticing (about 15,000
 * request lines), and memory stays bounded when it falls behind for good.
 */
export const MAX_QUEUED_BYTES = 4 * 1024 * 1024;
/** While bytes wait, the event loop tries to write them this often. */
const RETRY_MS = 5;
/** A write past the bound, and the flush at exit, wait for the reader in steps of this long. */
const WAIT_STEP_MS = 1;
/** At exit the reader is waited for while it takes what is left; once it takes nothing for this long, the rest is lost (and said). */
const EXIT_WAIT_MS = 2_000;
/**
 * A reader that takes nothing for this long while the server waits for it is frozen (a stopped
 * log collector): the server stops waiting, and what does not fit in MAX_QUEUED_BYTES is dropped
 * until the reader has taken what waits.
 */
export const STALLED_MS = 10_000;
/** A warning on stderr at most this often. */
const WARN_EVERY_MS = 10_000;

const SLEEPER = new Int32Array(new SharedArrayBuffer(4));

/**
 * Writes bytes to a non-blocking pipe or socket from the main thread, in order, and never sleeps
 * on a full one as sonic-boom's sync mode does (100 ms at a time, every request waiting with
 * it: docs/benchmarks.md, the serve path's table, "the request log to a pipe"). What the reader has no room for waits here
 * and is written as the event loop turns (a timer, only while something waits); past
 * MAX_QUEUED_BYTES a write waits until the reader has taken enough, so no line is dropped and
 * the server slows to the reader's pace only when the reader cannot keep up at all. A reader
 * that takes nothing at all for STALLED_MS is not waited for again until it has taken what waits:
 * meanwhile the lines that do not fit are dropped, counted and said, so a frozen log collector
 * costs lines, not the service. A write that fails otherwise (the reader is gone: EPIPE) drops
 * what waits and every later line, and says so on stderr once: the server goes on serving.
 */
export class PipeWriter {
  /** Bytes not yet written, in order; the first may be the rest of a part-written buffer. */
  #queue: Buffer[] = [];
  #queued = 0;
  #timer: NodeJS.Timeout | undefined;
  #failure: Error | undefined;
  #warnedAt = Number.NEGATIVE_INFINITY;
  /** The reader took nothing for STALLED_MS: writes past the bound are dropped, not waited for. */
  #stalled = false;
  #droppedWhileStalled = 0;
  /** Time writes waited for the reader (past the bound, or at exit), ms. */
  waitedMs = 0;
  /** Lines dropped after a failed write, while the reader was stalled, or left unwritten at exit. */
  lostLines = 0;

  constructor(
    private readonly fd: number,
    private readonly stalledMs = STALLED_MS,
  ) {}

  get queuedBytes(): number {
    return this.#queued;
  }

  /**
   * Writes `bytes`, or keeps a copy of what the reader has no room for: the caller may reuse the
   * buffer at once.
   */
  write(bytes: Buffer): void {
    if (this.#failure !== undefined) {
      this.lostLines += countLines(bytes);
      return;
    }
    if (this.#stalled && this.#queued + bytes.length > MAX_QUEUED_BYTES) {
      const lines = countLines(bytes);
      this.lostLines += lines;
      this.#droppedWhileStalled += lines;
      return;
    }
    // Behind bytes that wait, these wait too (in order) and the timer tries them: a full pipe
    // answers each try with an error, which costs.
    const written = this.#queue.length === 0 ? this.#writeNow(bytes) : 0;
    if (written === bytes.length) return;
    // A copy of the exact bytes: what waits is what the bound counts.
    this.#queue.push(Buffer.from(bytes.subarray(written)));
    this.#queued += bytes.length - written;
    if (this.#queued > MAX_QUEUED_BYTES) {
      this.#warn(
        `the request log's reader is ${MAX_QUEUED_BYTES / 2 ** 20} MiB behind: the server waits for it`,
      );
      if (!this.#waitUntilQueuedAtMost(MAX_QUEUED_BYTES, this.stalledMs)) {
        this.#stalled = true;
        this.#droppedWhileStalled = 0;
        say(
          `the request log's reader took nothing for ${this.stalledMs} ms: the server no longer waits for it, and drops the lines that do not fit until it has taken what waits`,
        );
      }
    }
    this.#schedule();
  }

  /** Writes everything queued, waiting for the reader while it takes something, EXIT_WAIT_MS at most without (on close and exit). */
  flushSync(): void {
    this.#drain();
    if (this.#queued > 0 && !this.#waitUntilQueuedAtMost(0, EXIT_WAIT_MS)) {
      this.#warn(`the request log's reader took nothing for ${EXIT_WAIT_MS} ms: its last lines are lost`);
      this.#dropQueue();
    }
  }

  /** Writes what waits, as far as the reader has room. */
  #drain(): void {
    while (this.#queue.length > 0) {
      const first = this.#queue[0] as Buffer;
      const written = this.#writeNow(first);
      if (this.#failure !== undefined) return;
      this.#queued -= written;
      if (written < first.length) {
        // The reader has no room: the rest waits.
        this.#queue[0] = first.subarray(written);
        return;
      }
      this.#queue.shift();
    }
    if (this.#stalled) {
      this.#stalled = false;
      say(
        `the request log's reader has taken what waited; ${this.#droppedWhileStalled} lines were dropped meanwhile`,
      );
    }
  }

  /** The bytes written before the pipe was full; a failure drops them, and everything waiting. */
  #writeNow(bytes: Buffer): number {
    let written = 0;
    try {
      while (written < bytes.length) written += writeSync(this.fd, bytes, written, bytes.length - written);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'EAGAIN') return written;
      this.#failure = error instanceof Error ? error : new Error(String(error));
      this.#warn(
        `writing the request log failed (${this.#failure.message}): its lines are dropped from now on`,
      );
      // What waits includes these bytes when they came from the queue.
      if (this.#queue[0] === bytes) this.#queue[0] = bytes.subarray(written);
      else this.lostLines += countLines(bytes.subarray(written));
      this.#dropQueue();
      return bytes.length;
    }
    return written;
  }

  #dropQueue(): void {
    for (const bytes of this.#queue) this.lostLines += countLines(bytes);
    this.#queue = [];
    this.#queued = 0;
  }

  /** Waits on this thread until at most `bytes` wait; false if the reader took nothing for `limitMs` first. */
  #waitUntilQueuedAtMost(bytes: number, limitMs: number): boolean {
    const start = performance.now();
    let progressAt = start;
    let done = true;
    while (this.#queued > bytes) {
      const now = performance.now();
      if (now - progressAt >= limitMs) {
        done = false;
        break;
      }
      Atomics.wait(SLEEPER, 0, 0, WAIT_STEP_MS);
      const before = this.#queued;
      this.#drain();
      if (this.#queued < before) progressAt = performance.now();
    }
    this.waitedMs += performance.now() - start;
    return done;
  }

  /** While bytes wait, a timer writes them; unreferenced (exit flushes what is left). */
  #schedule(): void {
    if (this.#timer !== undefined || this.#queued === 0) return;
    this.#timer = setTimeout(() => {
      this.#timer = undefined;
      this.#drain();
      this.#schedule();
    }, RETRY_MS).unref();
  }

  #warn(text: string): void {
    const now = performance.now();
    if (now - this.#warnedAt < WARN_EVERY_MS) return;
    this.#warnedAt = now;
    say(text);
  }
}
