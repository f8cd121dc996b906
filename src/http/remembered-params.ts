import type { AccessLevel } from '../query/context.js';
import { type OperationSpec, type ParamDefs, type ReadParams, readParams } from './params.js';

/**
 * readParams of one operation, remembered per distinct (access level, query string): pollers
 * send the same few URLs again and again, and parsing, decoding and validating them (dates,
 * contract codes) was about 3 µs of every request (docs/benchmarks.md). A refused query is not
 * remembered (it throws every time, with every issue). The values handed out are frozen: every
 * request with that query shares them.
 */

/** Distinct queries kept per operation; all are forgotten when it is full (a scan of junk queries cannot grow it). */
export const REMEMBERED_QUERIES = 1024;

export class RememberedParams<S extends ParamDefs> {
  readonly #spec: OperationSpec<S>;
  readonly #known = new Map<string, ReadParams<S>>();

  constructor(spec: OperationSpec<S>) {
    this.#spec = spec;
  }

  read(url: string, access: AccessLevel): ReadParams<S> {
    const mark = url.indexOf('?');
    // The level's name cannot contain '?', so the two parts never run together.
    const id = mark < 0 ? access : `${access}${url.slice(mark)}`;
    let read = this.#known.get(id);
    if (read === undefined) {
      const fresh = readParams(this.#spec, url, access);
      read = Object.freeze({
        values: Object.freeze(fresh.values),
        format: fresh.format,
        ignored: Object.freeze(fresh.ignored),
      });
      if (this.#known.size >= REMEMBERED_QUERIES) this.#known.clear();
      this.#known.set(id, read);
    }
    return read;
  }
}
