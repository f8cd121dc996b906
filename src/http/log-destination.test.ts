import { execFileSync, spawn } from 'node:child_process';
import { closeSync, constants, mkdtempSync, openSync, readFileSync, readSync, rmSync } from 'node:fs';
import { createConnection, createServer, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { FileWriter } from './file-writer.js';
import { batchBytesFor, batchedStdout } from './log-destination.js';
import { PipeWriter } from './pipe-writer.js';

describe('batchedStdout', () => {
  let directory: string;
  let path: string;
  let fd: number;

  beforeEach(() => {
    directory = mkdtempSync(join(tmpdir(), 'gridquote-log-'));
    path = join(directory, 'log');
    fd = openSync(path, 'w');
  });
  afterEach(() => {
    closeSync(fd);
    rmSync(directory, { recursive: true, force: true });
  });

  const written = () => readFileSync(path, 'utf8');

  /** A FIFO with both ends open here, non-blocking, as Node leaves a stdio pipe. */
  const openPipe = (): number => {
    const fifo = join(directory, 'fifo');
    execFileSync('mkfifo', [fifo]);
    return openSync(fifo, constants.O_RDWR | constants.O_NONBLOCK);
  };
  /** What the pipe holds now, up to `most` bytes, read without waiting. */
  const readPipe = (pipe: number, most = 1024 * 1024): string => {
    const bytes = Buffer.alloc(most);
    try {
      return bytes.toString('utf8', 0, readSync(pipe, bytes));
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'EAGAIN') return '';
      throw error;
    }
  };

  it('holds a few lines back, then writes them in order within 20 ms', async () => {
    const out = batchedStdout(fd);
    out.write('{"n":1}\n');
    out.write('{"n":2,"url":"/api/ticker?futures=é"}\n');
    expect(written()).toBe('');
    await new Promise((resolve) => setTimeout(resolve, 60));
    expect(written()).toBe('{"n":1}\n{"n":2,"url":"/api/ticker?futures=é"}\n');
    out.write('{"n":3}\n');
    await new Promise((resolve) => setTimeout(resolve, 60));
    expect(written()).toBe('{"n":1}\n{"n":2,"url":"/api/ticker?futures=é"}\n{"n":3}\n');
  });

  it('writes a batch at once when 64 KiB are waiting', () => {
    const out = batchedStdout(fd);
    const line = `${'x'.repeat(999)}\n`;
    for (let index = 0; index < 65; index++) out.write(line);
    expect(written()).toBe('');
    out.write(line);
    expect(written()).toBe(line.repeat(66));
  });

  it('gathers batch after batch in one buffer without touching what was written', () => {
    const allocations = vi.spyOn(Buffer, 'allocUnsafe');
    const out = batchedStdout(fd);
    const lines: string[] = [];
    // Three full batches and a partial one, each line telling itself apart from the others.
    for (let index = 0; index < 250; index++) {
      const line = `{"n":${index},"fill":"${String.fromCharCode(97 + (index % 26)).repeat(800)}"}\n`;
      lines.push(line);
      out.write(line);
    }
    expect(written().length).toBeGreaterThan(3 * 65_536);
    out.flushSync();
    expect(written()).toBe(lines.join(''));
    // A new buffer per batch made V8 collect its old generation every half second on a busy server.
    expect(allocations.mock.calls.filter(([size]) => size >= 65_536)).toHaveLength(1);
    allocations.mockRestore();
  });

  it('writes 4 KiB batches to a pipe, which holds 64 KiB, and 64 KiB batches to a file', () => {
    const pipe = openPipe();
    const waiting = () => readPipe(pipe);
    try {
      expect(batchBytesFor(fd)).toBe(65_536);
      expect(batchBytesFor(pipe)).toBe(4_096);
      const out = batchedStdout(pipe);
      const line = `${'x'.repeat(999)}\n`;
      for (let index = 0; index < 4; index++) out.write(line);
      expect(waiting()).toBe('');
      // The fifth line would take the batch past 4 KiB: the four before it go out whole, alone.
      out.write(line);
      expect(waiting()).toBe(line.repeat(4));
      for (let index = 0; index < 3; index++) out.write(line);
      expect(waiting()).toBe('');
      out.write(line);
      expect(waiting()).toBe(line.repeat(4));
      // The last line, before the descriptor closes (and its number is reused).
      out.flushSync();
      expect(waiting()).toBe(line);
    } finally {
      closeSync(pipe);
    }
  });

  it('does not stall on a full pipe: its reader gets the lines later, in order', async () => {
    const pipe = openPipe();
    try {
      const out = batchedStdout(pipe);
      expect(out.writer).toBeInstanceOf(PipeWriter);
      expect(batchedStdout(fd).writer).toBeInstanceOf(FileWriter);
      const lines = Array.from({ length: 2_000 }, (_, index) => `{"n":${index},"pad":"${'x'.repeat(90)}"}\n`);
      // 200 KiB, three times what the pipe holds: sonic-boom's sync mode slept 100 ms on it.
      const started = performance.now();
      for (const line of lines) out.write(line);
      expect(performance.now() - started).toBeLessThan(50);
      let received = '';
      for (let turn = 0; turn < 200 && received.length < lines.join('').length; turn++) {
        received += readPipe(pipe);
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
      expect(received).toBe(lines.join(''));
    } finally {
      closeSync(pipe);
    }
  });

  it('writes a pipe only whole lines, at most 4 KiB at a time: what a pipe takes whole or not at all', () => {
    const pipe = openPipe();
    // Each write's bytes as they were then (a written batch's buffer is reused).
    const chunks: string[] = [];
    const write = PipeWriter.prototype.write;
    const writes = vi.spyOn(PipeWriter.prototype, 'write').mockImplementation(function (
      this: PipeWriter,
      bytes,
    ) {
      chunks.push(bytes.toString());
      return write.call(this, bytes);
    });
    try {
      const out = batchedStdout(pipe);
      // Lines of 20 to 1,000 bytes (40 KB: the pipe takes them all), a third kept and made later.
      const lines = Array.from(
        { length: 80 },
        (_, n) => `{"n":${n},"pad":"${'x'.repeat((n * 337) % 980)}"}\n`,
      );
      const keep = out.keepLines((text: string, _: undefined) => text);
      for (const [n, line] of lines.entries()) {
        if (n % 3 === 0) keep(line, undefined);
        else out.write(line);
      }
      out.flushSync();
      expect(out.writer.lostLines).toBe(0);
      expect(chunks.length).toBeGreaterThan(8);
      for (const chunk of chunks) {
        expect(Buffer.byteLength(chunk)).toBeLessThanOrEqual(4_096);
        expect(chunk.endsWith('\n')).toBe(true);
      }
      expect(chunks.join('')).toBe(lines.join(''));
    } finally {
      writes.mockRestore();
      closeSync(pipe);
    }
  });

  it('keeps the lines of two writers to one full pipe whole (the workers of serve --workers)', async () => {
    const pipe = openPipe();
    try {
      const writers = { a: batchedStdout(pipe), b: batchedStdout(pipe) };
      const line = (writer: string, n: number) =>
        `{"w":"${writer}","n":${n},"pad":"${'x'.repeat(50 + (n % 90))}"}\n`;
      let received = '';
      // The two write in turn into a pipe kept nearly full by a reader that takes 4 KiB at a time.
      for (let n = 0; n < 8_000; n++) {
        writers.a.write(line('a', n));
        writers.b.write(line('b', n));
        if (n % 40 === 0) {
          received += readPipe(pipe, 4_096);
          await new Promise((resolve) => setImmediate(resolve));
        }
      }
      // The rest goes out on the writers' timers as the reader takes it.
      for (let turn = 0; turn < 300; turn++) {
        received += readPipe(pipe);
        if (received.split('\n').length - 1 >= 16_000) break;
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
      const lines = received.split('\n').slice(0, -1);
      const mangled = lines.filter((text) => !/^\{"w":"[ab]","n":\d+,"pad":"x+"\}$/.test(text));
      expect(mangled).toEqual([]);
      for (const writer of ['a', 'b']) {
        const mine = lines.filter((text) => text.startsWith(`{"w":"${writer}"`));
        expect(mine).toEqual(Array.from({ length: 8_000 }, (_, n) => line(writer, n).trimEnd()));
      }
    } finally {
      closeSync(pipe);
    }
  });

  it('keeps the lines of two processes sharing one full Unix socket whole (journald, serve --workers)', async () => {
    // A service manager's journal gives stdout as a Unix stream socket. Each writer is a process
    // of its own, as serve's workers are; with 64 KiB batches this test fails (STREAM_BATCH_BYTES).
    const socketPath = join(directory, 'journal.sock');
    const server = createServer();
    await new Promise<void>((resolve) => server.listen(socketPath, resolve));
    const accepted = new Promise<Socket>((resolve) => server.once('connection', resolve));
    const stdout = createConnection(socketPath);
    await new Promise((resolve) => stdout.once('connect', resolve));
    const journal = await accepted;
    const chunks: Buffer[] = [];
    journal.on('data', (chunk: Buffer) => chunks.push(chunk));
    const ended = new Promise((resolve) => journal.once('end', resolve));
    // The reader stops for 150 ms of every 300: the writers fill the socket and wait for it.
    const pausing = setInterval(() => {
      journal.pause();
      setTimeout(() => journal.resume(), 150);
    }, 300);
    const LINES = 40_000;
    const module = new URL('./log-destination.ts', import.meta.url).href;
    const program = `
      const { batchedStdout } = await import(${JSON.stringify(module)});
      const out = batchedStdout(1);
      const writer = process.argv[1];
      for (let n = 0; n < ${LINES}; n++) {
        out.write(JSON.stringify({ w: writer, n, pad: 'x'.repeat(150 + (n % 97)) }) + '\\n');
        if (n % 2000 === 0) await new Promise((resolve) => setImmediate(resolve));
      }
      out.flushSync();`;
    const loader = fileURLToPath(new URL('../../test/typescript-loader.mjs', import.meta.url));
    try {
      const writers = ['a', 'b'].map((name) =>
        spawn(process.execPath, ['--import', loader, '--input-type=module', '-e', program, name], {
          stdio: ['ignore', stdout, 'pipe'],
        }),
      );
      // Their warnings that the reader fell 4 MiB behind: expected here.
      for (const child of writers) child.stderr?.resume();
      stdout.destroy();
      const codes = await Promise.all(
        writers.map((child) => new Promise((resolve) => child.once('exit', resolve))),
      );
      expect(codes).toEqual([0, 0]);
      clearInterval(pausing);
      journal.resume();
      await ended;
      const lines = Buffer.concat(chunks).toString('utf8').split('\n').slice(0, -1);
      const mangled = lines.filter((text) => !/^\{"w":"[ab]","n":\d+,"pad":"x+"\}$/.test(text));
      expect(mangled).toEqual([]);
      for (const writer of ['a', 'b']) {
        const numbers = lines
          .filter((text) => text.startsWith(`{"w":"${writer}"`))
          .map((text) => JSON.parse(text).n);
        expect(numbers).toEqual(Array.from({ length: LINES }, (_, n) => n));
      }
    } finally {
      clearInterval(pausing);
      journal.destroy();
      await new Promise((resolve) => server.close(resolve));
    }
  }, 30_000);

  it('keeps the order of a line longer than any batch, and its UTF-8', () => {
    const out = batchedStdout(fd);
    const long = `{"url":"${'é'.repeat(30_000)}"}\n`;
    out.write('{"n":1}\n');
    out.write(long);
    expect(written()).toBe(`{"n":1}\n${long}`);
    out.write('{"n":2}\n');
    out.flushSync();
    expect(written()).toBe(`{"n":1}\n${long}{"n":2}\n`);
  });

  it('writes everything gathered on flushSync', () => {
    const out = batchedStdout(fd);
    out.write('a\n');
    out.write('b\n');
    out.flushSync();
    expect(written()).toBe('a\nb\n');
    out.flushSync();
    expect(written()).toBe('a\nb\n');
  });

  it('makes kept lines later, in runs, and writes them in their place among the others', async () => {
    const out = batchedStdout(fd);
    let made = 0;
    const keep = out.keepLines((n: number, at: string) => {
      made += 1;
      return `{"kept":${n},"at":"${at}"}\n`;
    });
    keep(1, 'a');
    keep(2, 'b');
    expect(made).toBe(0);
    // A line written after them goes after them.
    out.write('{"n":3}\n');
    expect(made).toBe(2);
    keep(4, 'd');
    await new Promise((resolve) => setTimeout(resolve, 60));
    expect(written()).toBe('{"kept":1,"at":"a"}\n{"kept":2,"at":"b"}\n{"n":3}\n{"kept":4,"at":"d"}\n');
    // 32 kept are made at once; 64 KiB of them are written at once.
    for (let n = 0; n < 31; n++) keep(n, 'x'.repeat(2_100));
    expect(made).toBe(3);
    keep(31, 'x'.repeat(2_100));
    expect(made).toBe(35);
    expect(written().split('\n').length - 1).toBeGreaterThan(4);
    keep(32, 'y');
    out.flushSync();
    expect(made).toBe(36);
    expect(written().trimEnd().split('\n').at(-1)).toBe('{"kept":32,"at":"y"}');
    expect(written().split('\n').length - 1).toBe(37);
  });
});
