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

/** Turns a driver error into the store's own (a lock wait exceeded), or leaves it. */
export type ErrorTranslator = (error: unknown) => unknown;

const asIs: ErrorTranslator = (error) => error;

/** Calls a synchronous function, its result or (translated) throw as a settled promise. */
function settle<A extends unknown[], R>(
  run: (...args: A) => R,
  translate: ErrorTranslator = asIs,
): (...args: A) => Promise<R> {
  return (...args) => {
    try {
      return Promise.resolve(run(...args));
    } catch (error) {
      return Promise.reject(translate(error));
    }
  };
}

/** Every method of a synchronous reader or key store, returning a promise. */
export function promised<T extends MarketReader | KeyStore>(
  sync: Synchronous<T>,
  translate?: ErrorTranslator,
): T {
  const wrapped: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(sync)) {
    wrapped[name] =
      typeof value === 'function' ? settle(value as (...args: unknown[]) => unknown, translate) : value;
  }
  return wrapped as T;
}

export function promisedWriter(sync: Synchronous<MarketWriter>, translate?: ErrorTranslator): MarketWriter {
  return {
    append: settle((events) => sync.append(events), translate),
    begin: settle(() => {
      const batch = sync.begin();
      return {
        append: settle((events) => batch.append(events), translate),
        commit: settle(() => batch.commit(), translate),
        rollback: settle(() => batch.rollback(), translate),
      } satisfies WriteBatch;
    }, translate),
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
    after: settle((query) => sync.after(query)),
  };
}
