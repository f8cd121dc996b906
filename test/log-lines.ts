import { Writable } from 'node:stream';

/** A destination for an app's log (AppOptions.logger.stream) that pushes each chunk written onto `into`. */
export function logInto(into: string[]): Writable {
  return new Writable({
    write(chunk, _encoding, done) {
      into.push(String(chunk));
      done();
    },
  });
}

/** The JSON lines gathered by logInto, parsed, in the order written. */
export function parsedLines<T>(from: readonly string[]): T[] {
  return from
    .join('')
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => JSON.parse(line) as T);
}
