import { closeSync, existsSync, openSync } from 'node:fs';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { FileWriter } from './file-writer.js';
import { batchedStdout } from './log-destination.js';

/** A file whose writes fail with ENOSPC while `full`, after taking `room` more bytes (a part write). */
function disk() {
  const state = { full: false, room: 0, text: '' };
  const write = (_fd: number, bytes: Buffer, offset: number, length: number): number => {
    if (state.full && state.room === 0) {
      throw Object.assign(new Error('ENOSPC: no space left on device, write'), { code: 'ENOSPC' });
    }
    const taken = state.full ? Math.min(length, state.room) : length;
    if (state.full) state.room -= taken;
    state.text += bytes.toString('utf8', offset, offset + taken);
    return taken;
  };
  return { state, write };
}

const lines = (...numbers: number[]) => Buffer.from(numbers.map((n) => `{"n":${n}}\n`).join(''));

describe('FileWriter', () => {
  let warnings: string[];
  beforeEach(() => {
    warnings = [];
    vi.spyOn(process.stderr, 'write').mockImplementation((text) => {
      warnings.push(String(text));
      return true;
    });
  });
  afterEach(() => vi.restoreAllMocks());

  it('drops the batches a full disk refuses, says so once, and again when writes succeed', () => {
    const { state, write } = disk();
    const writer = new FileWriter(-1, write);
    writer.write(lines(1, 2));
    state.full = true;
    expect(() => writer.write(lines(3, 4))).not.toThrow();
    writer.write(lines(5));
    expect(writer.lostLines).toBe(3);
    expect(warnings).toEqual([
      'gridquote: writing the request log failed (ENOSPC: no space left on device, write): its lines are dropped until a write succeeds\n',
    ]);
    state.full = false;
    writer.write(lines(6));
    expect(warnings[1]).toBe(
      'gridquote: writing the request log works again; 3 lines were dropped meanwhile\n',
    );
    expect(state.text).toBe(lines(1, 2, 6).toString());
    // A later failure is said again, with its own count.
    state.full = true;
    writer.write(lines(7));
    state.full = false;
    writer.write(lines(8));
    expect(warnings.slice(2)).toEqual([
      'gridquote: writing the request log failed (ENOSPC: no space left on device, write): its lines are dropped until a write succeeds\n',
      'gridquote: writing the request log works again; 1 line was dropped meanwhile\n',
    ]);
    expect(writer.lostLines).toBe(4);
  });

  it('ends a line a failed write cut short before the next one, so only that line is broken', () => {
    const { state, write } = disk();
    const writer = new FileWriter(-1, write);
    state.full = true;
    state.room = 10; // '{"n":1}\n' and '{"' of the next
    writer.write(lines(1, 2, 3));
    expect(writer.lostLines).toBe(2);
    // Still full: the newline waits too.
    writer.write(lines(4));
    state.full = false;
    writer.write(lines(5));
    expect(state.text).toBe('{"n":1}\n{"\n{"n":5}\n');
    expect(writer.lostLines).toBe(3);
  });

  it.runIf(existsSync('/dev/full'))('never throws nor waits on a device that is always full', () => {
    const fd = openSync('/dev/full', 'w');
    try {
      const out = batchedStdout(fd);
      const started = performance.now();
      for (let n = 0; n < 2_000; n++) out.write(`{"n":${n},"pad":"${'x'.repeat(90)}"}\n`);
      // Flushing at exit once retried a failed write every 100 ms, forever (sonic-boom's sync mode).
      out.flushSync();
      expect(performance.now() - started).toBeLessThan(1_000);
      expect(out.writer.lostLines).toBe(2_000);
      expect(warnings).toHaveLength(1);
    } finally {
      closeSync(fd);
    }
  });
});
