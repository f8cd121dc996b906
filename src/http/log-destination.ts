import { destination } from 'pino';

/**
 * Where the request log goes when the app is given no stream: standard output, written by the
 * main thread in batches. pino's default destination writes each line through libuv's thread
 * pool (a thread hand-off, a futex and an eventfd per write): on a busy server that cost about
 * 20 µs of CPU per request (docs/benchmarks.md, "What each removal bought"). Here sonic-boom
 * (pino's own writer) gathers the lines and writes them synchronously, with one write(2), once
 * 8 KiB are waiting or 20 ms after the first line of a batch, whichever comes first: a write per
 * event-loop turn cost the busy server about 2 µs more per request, a larger batch more again
 * (a longer string to flatten and encode; "The fast lane"). A line is in the file within 20 ms
 * (all of them at close and exit); a process killed outright loses at most the last 20 ms.
 */

/** Written at once when reached: bounds the memory a burst holds. */
const BATCH_BYTES = 8_192;
/** At most this long between a line and its write. */
const BATCH_MS = 20;

export interface BatchedDestination {
  write(line: string): boolean;
  /** Writes what is gathered, now (on close and exit), and syncs the file. */
  flushSync(): void;
}

export function batchedStdout(fd = 1): BatchedDestination {
  const boom = destination({ dest: fd, sync: true, minLength: BATCH_BYTES });
  let scheduled = false;
  const flush = () => {
    scheduled = false;
    // flush(), not flushSync(): in sync mode it is one write(2), without flushSync's fsync.
    boom.flush();
  };
  return {
    write(line) {
      const more = boom.write(line);
      if (!scheduled) {
        scheduled = true;
        // Unreferenced: a pending batch never keeps the process alive (exit and close flush it).
        setTimeout(flush, BATCH_MS).unref();
      }
      return more;
    },
    flushSync: () => boom.flushSync(),
  };
}
