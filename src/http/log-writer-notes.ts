/**
 * What the request log's two writers (pipe-writer.ts, file-writer.ts) share: the line each says
 * on stderr about the log itself, and the count of the lines a dropped batch held.
 */

/** One line on stderr, as the log writers say what happens to the log. */
export function say(text: string): void {
  process.stderr.write(`gridquote: ${text}\n`);
}

/** The lines (newlines) in a batch of the log's bytes. */
export function countLines(bytes: Buffer): number {
  let lines = 0;
  for (let at = bytes.indexOf(10); at !== -1; at = bytes.indexOf(10, at + 1)) lines += 1;
  return lines;
}
