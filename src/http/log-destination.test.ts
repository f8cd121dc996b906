import { closeSync, mkdtempSync, openSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { batchedStdout } from './log-destination.js';

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

  it('writes a batch at once when 8 KiB are waiting', () => {
    const out = batchedStdout(fd);
    const line = `${'x'.repeat(999)}\n`;
    for (let index = 0; index < 8; index++) out.write(line);
    expect(written()).toBe('');
    out.write(line);
    expect(written()).toBe(line.repeat(9));
  });

  it('keeps the order of a line longer than any batch, and its UTF-8', () => {
    const out = batchedStdout(fd);
    const long = `{"url":"${'é'.repeat(6_000)}"}\n`;
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
});
