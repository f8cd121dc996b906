import { destination } from 'pino';

/**
 * Where the request log goes when the app is given no stream: standard output, written by the
 * main thread once per turn of the event loop. pino's default destination writes each line
 * through libuv's thread pool (a thread hand-off, a futex and an eventfd per write): on a busy
 * server that cost about 20 µs of CPU per request (docs/benchmarks.md, "What each removal
 * bought"). Here the lines of one turn are gathered by sonic-boom (pino's own writer) and
 * written synchronously with one write(2) after the turn's I/O, so a line reaches the file
 * within the turn that logged it, and nothing waits on a timer.
 */

/** Written at once when reached within a turn: bounds the memory a burst holds. */
const BATCH_BYTES = 8_192;

export interface TurnBatchedDestination {
  write(line: string): boolean;
  /** Writes what is gathered, now (on close and exit), and syncs the file. */
  flushSync(): void;
}

export function turnBatchedStdout(fd = 1): TurnBatchedDestination {
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
        setTimeout(flush, 20).unref();
      }
      return more;
    },
    flushSync: () => boom.flushSync(),
  };
}
