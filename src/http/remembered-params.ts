import type { AccessLevel } from '../query/context.js';
import { type OperationSpec, type ParamDefs, type ReadParams, readParams } from './params.js';

/**
 * readParams of one operation, remembered per distinct (access level, URL): pollers
 * send the same few URLs again and again, and parsing, decoding and validating them (dates,
 * contract codes) was about 3 µs of every request (docs/benchmarks.md). A refused query is not
 * remembered (it throws every time, with every issue). The values handed out are frozen: every
 * request with that query shares them.
 */

/** Distinct queries kept per operation; all are forgotten when it is full (a scan of junk queries cannot grow it). */
export const REMEMBERED_QUERIES = 1024;

export class RememberedParams<S extends ParamDefs> {
  readonly #spec: OperationSpec<S>;
  /** By access level, then by the request's URL as it came (its path is the operation's): no key is built per request. */
  readonly #known: Readonly<Record<AccessLevel, Map<string, ReadParams<S>>>> = {
    historical: new Map(),
    end_of_day: new Map(),
  };

  constructor(spec: OperationSpec<S>) {
    this.#spec = spec;
  }

  read(url: string, access: AccessLevel): ReadParams<S> {
    const known = this.#known[access];
    let read = known.get(url);
    if (read === undefined) {
      const fresh = readParams(this.#spec, url, access);
      read = Object.freeze({
        values: Object.freeze(fresh.values),
        format: fresh.format,
        ignored: Object.freeze(fresh.ignored),
      });
      if (known.size >= REMEMBERED_QUERIES) known.clear();
      known.set(url, read);
    }
    return read;
  }

  /** The parameters of a query read before, without reading a new one (fast-lane.ts: hits only). */
  known(url: string, access: AccessLevel): ReadParams<S> | undefined {
    return this.#known[access].get(url);
  }
}
