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
 * docs/benchmarks.md). Each line is encoded into the batch's bytes as it comes, instead of being
 * kept as a string to be joined with the others and encoded again at the write: less garbage per
 * request for the young generation to collect (docs/benchmarks.md, "The fast lane"). A line is
 * in the file within 20 ms (all of them at close and exit); a process killed outright loses at
 * most the last 20 ms.
 */

/** A batch is written once this many bytes are waiting: bounds what a burst holds. */
const BATCH_BYTES = 8_192;
/** At most this long between a line and its write. */
const BATCH_MS = 20;
/** Room for a batch: its last line may take it past BATCH_BYTES (a UTF-16 unit is at most 3 UTF-8 bytes). */
const BUFFER_BYTES = 16 * 1024;

export interface BatchedDestination {
  write(line: string): boolean;
  /** Writes what is gathered, now (on close and exit), and syncs the file. */
  flushSync(): void;
}

export function batchedStdout(fd = 1): BatchedDestination {
  // Buffer mode: each batch is handed over as bytes, and sonic-boom keeps it until written (a
  // pipe may take part of it and ask for the rest later), so every batch gets a buffer of its own.
  const boom = destination({ dest: fd, sync: true, contentMode: 'buffer' });
  // sonic-boom's types declare only its utf8 mode's write(string); in buffer mode it takes bytes.
  const writeBytes = boom.write.bind(boom) as unknown as (bytes: Buffer) => boolean;
  let batch: Buffer | undefined;
  let used = 0;
  let timer: NodeJS.Timeout | undefined;
  const flush = () => {
    if (timer !== undefined) clearTimeout(timer);
    timer = undefined;
    if (batch === undefined || used === 0) return;
    const bytes = batch.subarray(0, used);
    batch = undefined;
    used = 0;
    // In sync mode and with nothing held back, one write(2) of the whole batch.
    writeBytes(bytes);
  };
  return {
    write(line) {
      if (line.length * 3 > BUFFER_BYTES - used) {
        flush();
        // Longer than any batch: on its own.
        if (line.length * 3 > BUFFER_BYTES) {
          writeBytes(Buffer.from(line));
          return true;
        }
      }
      batch ??= Buffer.allocUnsafe(BUFFER_BYTES);
      // Each line goes straight into the batch's bytes: no string of the whole batch is made.
      used += batch.write(line, used);
      if (used >= BATCH_BYTES) flush();
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
