import { fstatSync } from 'node:fs';
import { FileWriter } from './file-writer.js';
import { PipeWriter } from './pipe-writer.js';

/**
 * Where the request log goes when the app is given no stream: standard output, written by the
 * main thread in batches. pino's default destination writes each line through libuv's thread
 * pool (a thread hand-off, a futex and an eventfd per write): on a busy server that cost about
 * 20 µs of CPU per request (docs/benchmarks.md, "What each removal bought"). Here the lines are
 * gathered and each batch is written synchronously, with one write(2) (file-writer.ts), once
 * 64 KiB are waiting or 20 ms after the first line of a batch, whichever comes
 * first (4 or 8 KiB when stdout is not a file: batchBytesFor): a write per event-loop turn cost the
 * busy server about 2 µs more per request ("The fast lane"). Every batch is gathered in the same
 * buffer, reused once it is written. A new buffer for each batch kept V8 collecting
 * its old generation every half second under load (it counts the memory these buffers take
 * outside its heap), and a larger batch in a new buffer cost more; with one buffer, 64 KiB batches
 * to a file cost the busy server about 2 µs per request less than 8 KiB batches in new buffers
 * (docs/benchmarks.md, "HTTP"). The batch is gathered here, not in
 * sonic-boom (pino's own writer, which wrote the batches until a full disk hung the server in it:
 * file-writer.ts): its write() measures the UTF-8 length of everything it holds on every line,
 * so a batch of lines handed to it one by one was flattened and measured again for each (about 5%
 * of a busy server's CPU; perf, docs/benchmarks.md). Each line is encoded into the batch's bytes
 * as it comes, instead of being kept as a string to be joined with the others and encoded again
 * at the write: less garbage per request for the young generation to collect (docs/benchmarks.md,
 * "The fast lane"). A line is in the file within 20 ms (all of them at close and exit); a process
 * killed outright loses at most the last 20 ms.
 *
 * A pipe or a socket (a container's log collector, a service manager, `| tee`) is written by
 * pipe-writer.ts: when its reader falls behind, what it has no room for waits in this process (up
 * to 4 MiB) instead of putting the serving thread to sleep (sonic-boom's sync mode slept 100 ms at
 * a time). Neither writer ever throws: a write that fails drops its lines, counted and said on
 * stderr, and the server goes on answering.
 *
 * The request line is not even made per request (keepLines): each request keeps the fields of its
 * line, and the lines of up to KEPT_LINES requests are made and encoded together, in one loop.
 * Made one at a time between the other work of requests, a line cost the serving thread about
 * 2 µs more than made in a run of them (docs/benchmarks.md, "HTTP"), though the text and the bytes
 * are the same. Kept lines go into the batch before any line written after them, so the file
 * keeps the order in which everything was logged.
 */

/** A batch to a file is written once this many bytes are waiting: bounds what a burst holds. */
const FILE_BATCH_BYTES = 65_536;
/**
 * The same to anything else: a socket, a terminal (batchBytesFor). A Unix stream socket (a service
 * manager's journal) makes no promise like a pipe's PIPE_BUF, but Linux takes a write of up to
 * about 36 KB into one buffer, whole or not at all, so the lines of workers sharing one are never
 * cut while a batch and its last line stay under that (64 KiB batches cut them: the test).
 */
const STREAM_BATCH_BYTES = 8_192;
/**
 * The same to a pipe: PIPE_BUF on Linux, the most that a pipe takes whole or not at all. The
 * workers of `serve --workers` share their standard output: written in larger pieces, a full pipe
 * took part of one worker's batch and then another's lines, cutting a line in two.
 */
const PIPE_BATCH_BYTES = 4_096;
/** Room past a batch's size for its last line (a UTF-16 unit is at most 3 UTF-8 bytes). */
const LAST_LINE_BYTES = 8_192;
/** At most this long between a line and its write. */
const BATCH_MS = 20;
/** Kept lines are made once this many wait. */
const KEPT_LINES = 32;

export interface BatchedDestination {
  write(line: string): boolean;
  /**
   * A writer of lines made later: it keeps `a` and `b` of each line, and `make` turns them into the
   * line's text when the line goes into the batch (with up to KEPT_LINES others, before any line
   * written after it, at the latest when the batch is written).
   */
  keepLines<A, B>(make: (a: A, b: B) => string): (a: A, b: B) => void;
  /** Writes what is gathered, now (on close and exit), and syncs the file. */
  flushSync(): void;
  /** The writer's waits for a pipe's reader and the lines it dropped, for the metrics. */
  readonly writer: LogWriterStats;
}

export interface LogWriterStats {
  /** Time writes waited for a pipe's or socket's reader (file-writer.ts never waits), ms. */
  readonly waitedMs: number;
  /** Lines dropped because their write failed, or left unwritten at exit. */
  readonly lostLines: number;
}

/**
 * The batch size for the destination `fd`. A file takes a large write at once. A pipe (a
 * container's log collector, a service manager, `| tee`) holds 64 KiB: a batch that size fills it
 * even when its reader keeps up, and a full pipe makes the batch wait (pipe-writer.ts). Smaller
 * batches leave the reader room: 4 KiB to a pipe, each written whole (PIPE_BATCH_BYTES), 8 KiB to
 * a socket or terminal.
 */
export function batchBytesFor(fd: number): number {
  return BATCH_BYTES[kindOf(fd)];
}

type Kind = 'file' | 'pipe' | 'socket' | 'other';

const BATCH_BYTES: Readonly<Record<Kind, number>> = {
  file: FILE_BATCH_BYTES,
  pipe: PIPE_BATCH_BYTES,
  socket: STREAM_BATCH_BYTES,
  other: STREAM_BATCH_BYTES,
};

/** What `fd` is: a file, a pipe, a socket, or anything else (a terminal). */
function kindOf(fd: number): Kind {
  try {
    const stat = fstatSync(fd);
    if (stat.isFile()) return 'file';
    if (stat.isFIFO()) return 'pipe';
    return stat.isSocket() ? 'socket' : 'other';
  } catch {
    return 'other';
  }
}

/**
 * The writer of `fd`: a PipeWriter for a pipe or socket, a FileWriter for a file or terminal.
 * Neither keeps the batch's bytes (what waits for a pipe's reader is copied), so the batch's buffer
 * is reused at once.
 */
function writerFor(fd: number, kind: Kind): PipeWriter | FileWriter {
  if (kind === 'pipe' || kind === 'socket') {
    // Standard output's stream, once made, has libuv set its pipe or socket non-blocking: a full
    // one then answers EAGAIN, so that its bytes can wait, instead of blocking the thread.
    if (fd === 1) void process.stdout;
    return new PipeWriter(fd);
  }
  return new FileWriter(fd);
}

export function batchedStdout(fd = 1): BatchedDestination {
  const kind = kindOf(fd);
  const batchBytes = BATCH_BYTES[kind];
  const bufferBytes = batchBytes + LAST_LINE_BYTES;
  const writer = writerFor(fd, kind);
  /** A pipe gets whole lines, at most a batch in each write (PIPE_BATCH_BYTES). */
  const wholeWrites = kind === 'pipe';
  let batch: Buffer | undefined;
  let used = 0;
  let timer: NodeJS.Timeout | undefined;
  /** Kept lines, three entries each: the maker and its two arguments. */
  const kept: unknown[] = [];
  const flush = () => {
    if (timer !== undefined) clearTimeout(timer);
    timer = undefined;
    if (kept.length > 0) makeKept();
    if (batch === undefined || used === 0) return;
    const bytes = batch.subarray(0, used);
    used = 0;
    // One write(2) of the whole batch; the next batch reuses the buffer.
    writer.write(bytes);
  };
  /**
   * A line that took the batch past the size a pipe takes whole: the lines before it are written
   * on their own, and it begins the next batch, in the same buffer (the pipe writer copies what
   * it cannot write at once).
   */
  const splitAt = (start: number) => {
    const end = used;
    writer.write((batch as Buffer).subarray(0, start));
    (batch as Buffer).copyWithin(0, start, end);
    used = end - start;
  };
  const add = (line: string) => {
    if (line.length * 3 > bufferBytes - used) {
      flush();
      // Longer than any batch: on its own.
      if (line.length * 3 > bufferBytes) {
        writer.write(Buffer.from(line));
        return;
      }
    }
    batch ??= Buffer.allocUnsafe(bufferBytes);
    // Each line goes straight into the batch's bytes: no string of the whole batch is made.
    const start = used;
    used += batch.write(line, used);
    if (wholeWrites && used > batchBytes && start > 0) splitAt(start);
    if (used >= batchBytes) flush();
    // Unreferenced: a pending batch never keeps the process alive (exit and close flush it).
    else if (timer === undefined) timer = setTimeout(flush, BATCH_MS).unref();
  };
  /** The kept lines into the batch, in the order they were kept. */
  const makeKept = () => {
    // Emptied first: a line's add may flush, and a flush makes whatever is kept.
    const lines = kept.splice(0);
    for (let index = 0; index < lines.length; index += 3) {
      add((lines[index] as (a: unknown, b: unknown) => string)(lines[index + 1], lines[index + 2]));
    }
  };
  return {
    write(line) {
      if (kept.length > 0) makeKept();
      add(line);
      return true;
    },
    keepLines(make) {
      return (a, b) => {
        kept.push(make, a, b);
        if (kept.length >= 3 * KEPT_LINES) makeKept();
        else if (timer === undefined) timer = setTimeout(flush, BATCH_MS).unref();
      };
    },
    flushSync() {
      flush();
      writer.flushSync();
    },
    writer,
  };
}
