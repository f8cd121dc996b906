import { describe, expect, it } from 'vitest';
import { MAX_LINE_BYTES } from '../domain/limits.js';
import { LineTooLongError, NotUtf8Error, readLineGroups } from './read-lines.js';

/** The chunks as a stream yields them. */
async function* stream(chunks: readonly (Buffer | string)[]): AsyncGenerator<Buffer | string> {
  yield* chunks;
}

async function collect(chunks: readonly (Buffer | string)[]): Promise<string[]> {
  const lines: string[] = [];
  for await (const group of readLineGroups(stream(chunks))) lines.push(...group);
  return lines;
}

async function refusedLine(chunks: readonly (Buffer | string)[]): Promise<number> {
  try {
    await collect(chunks);
  } catch (error) {
    if (error instanceof LineTooLongError) return error.line;
    throw error;
  }
  throw new Error('the reader accepted an over-long line');
}

describe('readLineGroups', () => {
  it('accepts a line of exactly the bound, counted in UTF-8 bytes, with or without \\r', async () => {
    const euro = '€'.repeat(Math.floor(MAX_LINE_BYTES / 3)); // 3 bytes each
    const atBound = `${euro}${'x'.repeat(MAX_LINE_BYTES - Buffer.byteLength(euro))}`;
    expect(Buffer.byteLength(atBound)).toBe(MAX_LINE_BYTES);
    expect(await collect([Buffer.from(`${atBound}\r\n${atBound}`)])).toEqual([atBound, atBound]);
  });

  it('refuses a line one byte over the bound, in bytes not characters', async () => {
    // 21,846 characters, 65,538 bytes: short in characters, long in bytes
    const euros = '€'.repeat(Math.floor(MAX_LINE_BYTES / 3) + 1);
    expect(await refusedLine([Buffer.from(`ok\n${euros}\nok\n`)])).toBe(2);
  });

  it('names the line of an over-long last line without a break, and of one spread over chunks', async () => {
    expect(await refusedLine([Buffer.from(`a\nb\n${'z'.repeat(MAX_LINE_BYTES + 1)}`)])).toBe(3);
    const chunk = Buffer.alloc(1024, 'q');
    const chunks = [Buffer.from('a\n'), ...Array.from({ length: 65 }, () => chunk), Buffer.from('\nb\n')];
    expect(await refusedLine(chunks)).toBe(2);
  });

  it('yields the lines before an over-long one', async () => {
    const seen: string[] = [];
    await expect(
      (async () => {
        for await (const group of readLineGroups(stream([`a\nb\n${'z'.repeat(MAX_LINE_BYTES + 1)}\nc\n`])))
          seen.push(...group);
      })(),
    ).rejects.toBeInstanceOf(LineTooLongError);
    expect(seen).toEqual(['a', 'b']);
  });

  it('decodes characters cut by a chunk’s end, whatever the chunks, and keeps a U+FFFD that was sent', async () => {
    const text = 'é東€😀\u{fffd}\nnext\n';
    const bytes = Buffer.from(text);
    const oneByOne = Array.from(bytes, (byte) => Buffer.from([byte]));
    expect(await collect(oneByOne)).toEqual(['é東€😀\u{fffd}', 'next']);
    expect(await collect([bytes.subarray(0, 4), bytes.subarray(4)])).toEqual(['é東€😀\u{fffd}', 'next']);
  });

  it('refuses bytes that are not UTF-8 with the line they are on, after yielding the lines before it', async () => {
    const seen: string[] = [];
    const chunks = [
      Buffer.from('a\nb\n'),
      Buffer.from('c'),
      Buffer.from([0x61, 0xff, 0xfe, 0xc3, 0x62, 0x0a]),
      Buffer.from('d\n'),
    ];
    let refused: unknown;
    try {
      for await (const group of readLineGroups(stream(chunks))) seen.push(...group);
    } catch (error) {
      refused = error;
    }
    expect(refused).toBeInstanceOf(NotUtf8Error);
    expect((refused as NotUtf8Error).line).toBe(3);
    expect(seen).toEqual(['a', 'b']);
    // A character cut by the end of the input, and an invalid byte split from its line by a chunk.
    await expect(collect([Buffer.from('a\n'), Buffer.from([0x62, 0xe2, 0x82])])).rejects.toMatchObject({
      line: 2,
    });
    await expect(collect([Buffer.from([0x61, 0xc3]), Buffer.from('\nb\n')])).rejects.toMatchObject({
      line: 1,
    });
  });
});
