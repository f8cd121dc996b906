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
