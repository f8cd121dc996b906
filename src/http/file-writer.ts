import { fsyncSync, writeSync } from 'node:fs';
import { countLines, say } from './log-writer-notes.js';

/** Writes bytes at a file position (fs.writeSync's form); tests give one that fails. */
export type WriteBytesSync = (fd: number, bytes: Buffer, offset: number, length: number) => number;

const NEWLINE = Buffer.from('\n');

/**
 * Writes the request log's batches to a file or a terminal from the main thread, one write(2)
 * each, and never throws or waits: a write that fails (a full disk, a file past its size limit, an
 * I/O error) drops that batch, counts its lines and says so on stderr, once, until a later batch
 * is written again (space freed, the log rotated), which is said too. A server whose log cannot
 * be written goes on answering. sonic-boom's sync mode, which wrote these before, threw the error
 * into the request (or the batch's timer, stopping the process) and then, flushing at exit, retried
 * a failed write every 100 ms forever: the process hung, answering nothing and deaf to SIGTERM.
 * A batch cut short by the failure leaves a part line; the next write begins with a newline, so
 * that only that line is broken.
 */
export class FileWriter {
  /** What the current failure is, while writes fail; undefined while they succeed. */
  #failure: string | undefined;
  /** Lines dropped since the current failure began. */
  #droppedSinceFailure = 0;
  /** The last failed write left a part line in the file. */
  #partLine = false;
  /** Waits are a pipe's (pipe-writer.ts): a file write never waits here. */
  readonly waitedMs = 0;
  /** Lines dropped because their write failed. */
  lostLines = 0;

  constructor(
    private readonly fd: number,
    private readonly writeBytes: WriteBytesSync = writeSync,
  ) {}

  /** Writes `bytes` (the caller may reuse the buffer at once), or drops them if the write fails. */
  write(bytes: Buffer): void {
    const ended = this.#partLine ? this.#attempt(NEWLINE) : undefined;
    if (ended?.error !== undefined) {
      this.#failed(ended.error, bytes, 0);
      return;
    }
    this.#partLine = false;
    const { written, error } = this.#attempt(bytes);
    if (error !== undefined) {
      this.#failed(error, bytes, written);
      return;
    }
    if (this.#failure !== undefined) {
      const dropped = this.#droppedSinceFailure;
      say(
        `writing the request log works again; ${dropped} ${dropped === 1 ? 'line was' : 'lines were'} dropped meanwhile`,
      );
      this.#failure = undefined;
    }
  }

  /** Syncs the file (on close and exit); a device that cannot be synced is left as it is. */
  flushSync(): void {
    try {
      fsyncSync(this.fd);
    } catch {
      // A terminal or /dev/null: nothing to sync.
    }
  }

  /** Writes all of `bytes`, however many writes that takes: how much was written, and the error that stopped it. */
  #attempt(bytes: Buffer): { readonly written: number; readonly error?: unknown } {
    let written = 0;
    try {
      while (written < bytes.length)
        written += this.writeBytes(this.fd, bytes, written, bytes.length - written);
    } catch (error) {
      return { written, error };
    }
    return { written };
  }

  #failed(error: unknown, bytes: Buffer, written: number): void {
    const lost = countLines(bytes.subarray(written));
    this.lostLines += lost;
    if (written > 0 && bytes[written - 1] !== NEWLINE[0]) this.#partLine = true;
    if (this.#failure === undefined) {
      this.#failure = error instanceof Error ? error.message : String(error);
      this.#droppedSinceFailure = 0;
      say(`writing the request log failed (${this.#failure}): its lines are dropped until a write succeeds`);
    }
    this.#droppedSinceFailure += lost;
  }
}
