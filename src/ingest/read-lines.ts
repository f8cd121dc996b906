import { isUtf8 } from 'node:buffer';
import { MAX_LINE_BYTES } from '../domain/limits.js';

/** A line that cannot be read as a line of the feed: reading stops there. */
export class UnreadableLineError extends Error {
  constructor(
    readonly line: number,
    reason: string,
  ) {
    super(reason);
    this.name = 'UnreadableLineError';
  }
}

/** A line longer than MAX_LINE_BYTES: reading stops there, before the rest of it is held. */
export class LineTooLongError extends UnreadableLineError {
  constructor(line: number) {
    super(
      line,
      `line longer than ${MAX_LINE_BYTES} bytes (docs/feed-format.md, "Limits"); stopped reading there`,
    );
    this.name = 'LineTooLongError';
  }
}

/**
 * Bytes that are not UTF-8. A decoder would make each of them U+FFFD and the event would be
 * stored with its text changed, without a word: refused instead, with the line.
 */
export class NotUtf8Error extends UnreadableLineError {
  constructor(line: number) {
    super(line, 'the line is not valid UTF-8 (docs/feed-format.md); stopped reading there');
    this.name = 'NotUtf8Error';
  }
}

const NO_BYTES = Buffer.alloc(0);

/**
 * Splits a byte stream into lines, yielding them in groups (one per chunk read) so the caller
 * pays for one await per chunk, not per line. Handles \n and \r\n; a last line without a line
 * break is still yielded, and a leading byte order mark is dropped. Stream errors propagate.
 *
 * A line longer than MAX_LINE_BYTES throws LineTooLongError with its 1-based number as soon as
 * it is seen: without the bound, one line without a break would be held whole, whatever its
 * size (100 MB took 41 s and 676 MB). Lines of the groups already yielded come first.
 */
export async function* readLineGroups(input: AsyncIterable<Buffer | string>): AsyncGenerator<string[]> {
  // The bytes of a character cut by the chunk's end, put before the next chunk's.
  let carry = NO_BYTES;
  let rest = '';
  let first = true;
  let linesYielded = 0;
  for await (const chunk of input) {
    let decoded: string;
    if (typeof chunk === 'string') decoded = chunk;
    else {
      const bytes = carry.length > 0 ? Buffer.concat([carry, chunk]) : chunk;
      const whole = bytes.length - incompleteTail(bytes);
      carry = whole < bytes.length ? Buffer.from(bytes.subarray(whole)) : NO_BYTES;
      const body = bytes.subarray(0, whole);
      if (!isUtf8(body)) {
        const bad = firstBadLine(body);
        const before = (rest + body.subarray(0, bad.offset).toString('utf8')).split('\n').slice(0, -1);
        if (before.length > 0) yield before.map(stripCarriageReturn);
        throw new NotUtf8Error(linesYielded + bad.index + 1);
      }
      decoded = body.toString('utf8');
    }
    let text = rest + decoded;
    if (first && text.length > 0) {
      if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
      first = false;
    }
    const lines = text.split('\n');
    rest = lines.pop() ?? '';
    const tooLong = lines.findIndex(isTooLong);
    if (tooLong >= 0) {
      if (tooLong > 0) yield lines.slice(0, tooLong).map(stripCarriageReturn);
      throw new LineTooLongError(linesYielded + tooLong + 1);
    }
    if (isTooLong(rest)) {
      if (lines.length > 0) yield lines.map(stripCarriageReturn);
      throw new LineTooLongError(linesYielded + lines.length + 1);
    }
    if (lines.length > 0) {
      linesYielded += lines.length;
      yield lines.map(stripCarriageReturn);
    }
  }
  // A character cut by the end of the input.
  if (carry.length > 0) throw new NotUtf8Error(linesYielded + 1);
  if (isTooLong(rest)) throw new LineTooLongError(linesYielded + 1);
  if (rest.length > 0) yield [stripCarriageReturn(rest)];
}

/**
 * Whether a line (with its \r, if any) exceeds the bound in UTF-8 bytes. A UTF-16 code unit
 * takes at most 3 bytes, so only long strings are measured.
 */
function isTooLong(line: string): boolean {
  if (line.length * 3 <= MAX_LINE_BYTES + 1) return false;
  const bytes = Buffer.byteLength(line, 'utf8');
  return bytes > MAX_LINE_BYTES + (line.endsWith('\r') ? 1 : 0);
}

function stripCarriageReturn(line: string): string {
  return line.endsWith('\r') ? line.slice(0, -1) : line;
}

/** How many bytes at the end begin a UTF-8 sequence the bytes do not finish (0-3). */
function incompleteTail(bytes: Buffer): number {
  for (let back = 1; back <= Math.min(3, bytes.length); back += 1) {
    const byte = bytes[bytes.length - back] as number;
    if ((byte & 0xc0) === 0x80) continue; // a continuation byte: look further back
    const length = byte >= 0xf0 ? 4 : byte >= 0xe0 ? 3 : byte >= 0xc0 ? 2 : 1;
    return length > back ? back : 0;
  }
  return 0;
}

/** The first line of `body` that is not UTF-8: its index among body's lines, and where it starts. */
function firstBadLine(body: Buffer): { index: number; offset: number } {
  let offset = 0;
  for (let index = 0; ; index += 1) {
    const end = body.indexOf(0x0a, offset);
    const line = body.subarray(offset, end < 0 ? body.length : end);
    if (!isUtf8(line) || end < 0) return { index, offset };
    offset = end + 1;
  }
}
