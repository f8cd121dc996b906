import type { EventLog, KeyStore, MarketReader, MarketWriter, WriteBatch } from '../store.js';

/**
 * better-sqlite3 answers synchronously: the adapter's parts are written as plain functions and
 * wrapped once here into the promise-returning interfaces of store.ts. A throw becomes a
 * rejected promise, so callers see one failure path whatever the adapter.
 */
export type Synchronous<T> = {
  [K in keyof T]: T[K] extends (...args: infer A) => Promise<infer R>
    ? (...args: A) => R extends WriteBatch ? Synchronous<WriteBatch> : R
    : T[K] extends (...args: infer A) => AsyncIterable<infer I>
      ? (...args: A) => Iterable<I>
      : T[K];
};

/** Calls a synchronous function, its result or throw as a settled promise. */
function settle<A extends unknown[], R>(run: (...args: A) => R): (...args: A) => Promise<R> {
  return (...args) => {
    try {
      return Promise.resolve(run(...args));
    } catch (error) {
      return Promise.reject(error);
    }
  };
}

/** Every method of a synchronous reader or key store, returning a promise. */
export function promised<T extends MarketReader | KeyStore>(sync: Synchronous<T>): T {
  const wrapped: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(sync)) {
    wrapped[name] = typeof value === 'function' ? settle(value as (...args: unknown[]) => unknown) : value;
  }
  return wrapped as T;
}

export function promisedWriter(sync: Synchronous<MarketWriter>): MarketWriter {
  return {
    append: settle((events) => sync.append(events)),
    begin: settle(() => {
      const batch = sync.begin();
      return {
        append: settle((events) => batch.append(events)),
        commit: settle(() => batch.commit()),
        rollback: settle(() => batch.rollback()),
      } satisfies WriteBatch;
    }),
  };
}

/**
 * Lines as an async iterable over the synchronous cursor: still read lazily, and leaving the
 * loop early closes the cursor. While it is open its connection serves no other read.
 */
export function promisedEventLog(sync: Synchronous<EventLog>): EventLog {
  return {
    lines(query) {
      return (async function* () {
        yield* sync.lines(query);
      })();
    },
  };
}
