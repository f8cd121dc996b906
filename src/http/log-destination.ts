import { destination } from 'pino';

/**
 * Where the request log goes when the app is given no stream: standard output, written by the
 * main thread in batches. pino's default destination writes each line through libuv's thread
 * pool (a thread hand-off, a futex and an eventfd per write): on a busy server that cost about
 * 20 µs of CPU per request (docs/benchmarks.md, "What each removal bought"). Here the lines are
 * gathered and sonic-boom (pino's own writer) writes each batch synchronously, with one
 * write(2), once 8 KiB are waiting or 20 ms after the first line of a batch, whichever comes
 * first: a write per event-loop turn cost the busy server about 2 µs more per request, a larger
 * batch more again ("The fast lane"). The batch is gathered here, not in sonic-boom: its write()
 * measures the UTF-8 length of everything it holds on every line, so a batch of lines handed to
 * it one by one was flattened and measured again for each (about 5% of a busy server's CPU; perf,
 * docs/benchmarks.md). A line is in the file within 20 ms (all of them at close and exit); a
 * process killed outright loses at most the last 20 ms.
 */

/** Written at once when reached (in UTF-16 units, at most the bytes): bounds what a burst holds. */
const BATCH_LENGTH = 8_192;
/** At most this long between a line and its write. */
const BATCH_MS = 20;

export interface BatchedDestination {
  write(line: string): boolean;
  /** Writes what is gathered, now (on close and exit), and syncs the file. */
  flushSync(): void;
}

export function batchedStdout(fd = 1): BatchedDestination {
  const boom = destination({ dest: fd, sync: true });
  let lines: string[] = [];
  let length = 0;
  let timer: NodeJS.Timeout | undefined;
  const flush = () => {
    if (timer !== undefined) clearTimeout(timer);
    timer = undefined;
    if (lines.length === 0) return;
    const batch = lines.join('');
    lines = [];
    length = 0;
    // In sync mode and with nothing held back, one write(2) of the whole batch.
    boom.write(batch);
  };
  return {
    write(line) {
      lines.push(line);
      length += line.length;
      if (length >= BATCH_LENGTH) flush();
      // Unreferenced: a pending batch never keeps the process alive (exit and close flush it).
      else if (timer === undefined) timer = setTimeout(flush, BATCH_MS).unref();
      return true;
    },
    flushSync() {
      flush();
      boom.flushSync();
    },
  };
}
