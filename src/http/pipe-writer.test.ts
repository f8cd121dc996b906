import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { once } from 'node:events';
import {
  closeSync,
  constants,
  mkdtempSync,
  openSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  readSync,
  rmSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { MAX_QUEUED_BYTES, PipeWriter } from './pipe-writer.js';

describe('PipeWriter', () => {
  let directory: string;
  let fifo: string;
  /** Both ends of the FIFO, non-blocking, as Node leaves a stdio pipe. */
  let pipe: number;
  const open: ChildProcess[] = [];

  beforeEach(() => {
    directory = mkdtempSync(join(tmpdir(), 'gridquote-pipe-'));
    fifo = join(directory, 'fifo');
    execFileSync('mkfifo', [fifo]);
    pipe = openSync(fifo, constants.O_RDWR | constants.O_NONBLOCK);
  });
  afterEach(() => {
    for (const child of open.splice(0)) child.kill('SIGKILL');
    try {
      closeSync(pipe);
    } catch {
      // closed by the test
    }
    rmSync(directory, { recursive: true, force: true });
  });

  /** What the pipe holds now, read without blocking. */
  const readWaiting = (): string => {
    const chunks: Buffer[] = [];
    const bytes = Buffer.alloc(256 * 1024);
    for (;;) {
      try {
        const read = readSync(pipe, bytes);
        if (read === 0) break;
        chunks.push(Buffer.from(bytes.subarray(0, read)));
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === 'EAGAIN') break;
        throw error;
      }
    }
    return Buffer.concat(chunks).toString();
  };
  const lines = (from: number, count: number, length = 100): Buffer[] =>
    Array.from({ length: count }, (_, index) =>
      Buffer.from(`${String(from + index).padStart(8, '0')}${'x'.repeat(length - 9)}\n`),
    );

  /** Whether the process has the file open (Linux: its /proc fd links). */
  const holds = (child: ChildProcess, path: string): boolean => {
    try {
      const fds = readdirSync(`/proc/${child.pid}/fd`);
      return fds.some((fd) => readlinkSync(`/proc/${child.pid}/fd/${fd}`) === path);
    } catch {
      return false; // not started yet, or gone
    }
  };

  it('writes at once while the reader has room', () => {
    const writer = new PipeWriter(pipe);
    const [line] = lines(1, 1);
    writer.write(line as Buffer);
    expect(writer.queuedBytes).toBe(0);
    expect(readWaiting()).toBe(String(line));
  });

  it('keeps what a full pipe has no room for, without waiting, and writes it in order as the reader takes it', async () => {
    const writer = new PipeWriter(pipe);
    // 200 KiB of lines: three times what the pipe holds.
    const all = lines(1, 2_048);
    const expected = Buffer.concat(all).toString();
    const started = performance.now();
    for (const line of all) writer.write(line);
    expect(performance.now() - started).toBeLessThan(50);
    expect(writer.queuedBytes).toBeGreaterThan(100_000);
    // What waits is a copy: the caller's buffers are its own again at once.
    for (const line of all) line.fill('Z');
    expect(writer.waitedMs).toBe(0);
    let received = '';
    for (let turn = 0; turn < 200 && received.length < 2_048 * 100; turn++) {
      received += readWaiting();
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    expect(received).toBe(expected);
    expect(writer.queuedBytes).toBe(0);
    expect(writer.lostLines).toBe(0);
  });

  it(`past ${MAX_QUEUED_BYTES / 1024 / 1024} MiB waiting, a write waits for the reader: nothing is dropped`, async () => {
    const out = join(directory, 'out');
    // A reader that starts 300 ms late, then takes everything.
    const reader = spawn('sh', ['-c', `sleep 0.3; cat '${fifo}' > '${out}'`], { stdio: 'ignore' });
    open.push(reader);
    const writer = new PipeWriter(pipe);
    // 4.8 MB: past the bound once the pipe is full.
    const all = lines(1, 4_800, 1_000);
    const stderr = vi.spyOn(process.stderr, 'write').mockImplementation(() => true);
    try {
      const started = performance.now();
      for (const line of all) writer.write(line);
      const took = performance.now() - started;
      expect(took).toBeGreaterThan(200);
      expect(writer.waitedMs).toBeGreaterThan(200);
      expect(writer.queuedBytes).toBeLessThanOrEqual(MAX_QUEUED_BYTES);
      expect(stderr).toHaveBeenCalledWith(
        "gridquote: the request log's reader is 4 MiB behind: the server waits for it\n",
      );
      writer.flushSync();
      expect(writer.queuedBytes).toBe(0);
    } finally {
      stderr.mockRestore();
    }
    // The last writer closes: the reader meets the end.
    closeSync(pipe);
    await once(reader, 'exit');
    expect(readFileSync(out).equals(Buffer.concat(all))).toBe(true);
    expect(writer.lostLines).toBe(0);
  });

  it('stops waiting for a reader that takes nothing (a frozen collector), drops what does not fit, and says when it has caught up', async () => {
    const writer = new PipeWriter(pipe, 300);
    // 4.8 MB: past the bound once the pipe is full; nobody reads.
    const all = lines(1, 4_800, 1_000);
    const said: string[] = [];
    const stderr = vi.spyOn(process.stderr, 'write').mockImplementation((text) => {
      said.push(String(text));
      return true;
    });
    try {
      const started = performance.now();
      for (const line of all) writer.write(line);
      // One wait of 300 ms, not one per write past the bound.
      expect(performance.now() - started).toBeLessThan(2_000);
      expect(writer.waitedMs).toBeGreaterThanOrEqual(290);
      expect(writer.queuedBytes).toBeLessThanOrEqual(MAX_QUEUED_BYTES + 1_000);
      const dropped = writer.lostLines;
      expect(dropped).toBeGreaterThan(0);
      expect(said).toContain(
        "gridquote: the request log's reader took nothing for 300 ms: the server no longer waits for it, and drops the lines that do not fit until it has taken what waits\n",
      );
      // The reader comes back and takes everything: what waited arrives whole, in order.
      let received = '';
      // The timer writes what waits as the reader takes it.
      for (let turn = 0; turn < 2_000 && writer.queuedBytes > 0; turn++) {
        received += readWaiting();
        await new Promise((resolve) => setTimeout(resolve, 2));
      }
      received += readWaiting();
      expect(writer.queuedBytes).toBe(0);
      expect(said.at(-1)).toBe(
        `gridquote: the request log's reader has taken what waited; ${dropped} lines were dropped meanwhile\n`,
      );
      expect(received).toBe(Buffer.concat(all.slice(0, all.length - dropped)).toString());
      // Waited for again, as before.
      writer.write(Buffer.from('after\n'));
      expect(readWaiting()).toBe('after\n');
    } finally {
      stderr.mockRestore();
    }
  });

  it('at exit gives a reader that takes nothing 2 s, then counts the lines left as lost', () => {
    const writer = new PipeWriter(pipe);
    const all = lines(1, 1_024);
    for (const line of all) writer.write(line);
    const waiting = writer.queuedBytes;
    expect(waiting).toBeGreaterThan(0);
    const stderr = vi.spyOn(process.stderr, 'write').mockImplementation(() => true);
    try {
      const started = performance.now();
      writer.flushSync();
      expect(performance.now() - started).toBeGreaterThanOrEqual(1_990);
      expect(stderr).toHaveBeenCalledWith(
        "gridquote: the request log's reader took nothing for 2000 ms: its last lines are lost\n",
      );
    } finally {
      stderr.mockRestore();
    }
    expect(writer.lostLines).toBe(waiting / 100);
    expect(writer.queuedBytes).toBe(0);
    // What the pipe took is whole lines, in order.
    expect(readWaiting()).toBe(
      Buffer.concat(all)
        .toString()
        .slice(0, 1_024 * 100 - waiting),
    );
  });

  it('when the reader is gone, drops the lines, says so once and goes on', async () => {
    // A reader that takes one byte and exits: the writes after it fail with EPIPE. The write end
    // is opened first and the FIFO's other ends closed only once the reader holds it: with no
    // writer at some instant, the reader could read end-of-file and exit before the first line.
    const writeEnd = openSync(fifo, constants.O_WRONLY | constants.O_NONBLOCK);
    const reader = spawn('head', ['-c', '1', fifo], { stdio: 'ignore' });
    open.push(reader);
    for (let tries = 0; !holds(reader, fifo); tries++) {
      if (tries === 200) throw new Error('the reader never opened the FIFO');
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    closeSync(pipe);
    pipe = writeEnd;
    const writer = new PipeWriter(writeEnd);
    const stderr = vi.spyOn(process.stderr, 'write').mockImplementation(() => true);
    try {
      writer.write(Buffer.from('0\n'));
      await once(reader, 'exit');
      writer.write(Buffer.from('a\nb\n'));
      writer.write(Buffer.from('c\n'));
      expect(writer.lostLines).toBe(3);
      expect(writer.queuedBytes).toBe(0);
      expect(stderr).toHaveBeenCalledTimes(1);
      expect(String(stderr.mock.calls[0]?.[0])).toMatch(
        /^gridquote: writing the request log failed \(.*EPIPE.*\): its lines are dropped from now on\n$/,
      );
    } finally {
      stderr.mockRestore();
    }
  });
});
