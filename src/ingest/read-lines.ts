import { StringDecoder } from 'node:string_decoder';

/**
 * Splits a byte stream into lines, yielding them in groups (one per chunk read) so the caller
 * pays for one await per chunk, not per line. Handles \n and \r\n; a last line without a line
 * break is still yielded, and a leading byte order mark is dropped. Stream errors propagate.
 */
export async function* readLineGroups(input: AsyncIterable<Buffer | string>): AsyncGenerator<string[]> {
  const decoder = new StringDecoder('utf8');
  let rest = '';
  let first = true;
  for await (const chunk of input) {
    let text = rest + (typeof chunk === 'string' ? chunk : decoder.write(chunk));
    if (first && text.length > 0) {
      if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
      first = false;
    }
    const lines = text.split('\n');
    rest = lines.pop() ?? '';
    if (lines.length > 0) yield lines.map(stripCarriageReturn);
  }
  rest += decoder.end();
  if (rest.length > 0) yield [stripCarriageReturn(rest)];
}

function stripCarriageReturn(line: string): string {
  return line.endsWith('\r') ? line.slice(0, -1) : line;
}
