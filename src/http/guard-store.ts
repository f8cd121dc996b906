import { StoreUnavailableError } from './problems.js';

/**
 * Wraps a store interface so that anything it throws or rejects with becomes a
 * StoreUnavailableError (503).
 * Requests are validated before they reach the store, so a throw there is the store failing
 * (closed, locked, disk error), never the client's fault. Wrapped methods are made once.
 */
export function guardStore<T extends object>(target: T): T {
  const wrapped = new Map<PropertyKey, unknown>();
  return new Proxy(target, {
    get(object, property) {
      const value: unknown = Reflect.get(object, property);
      if (typeof value !== 'function') return value;
      let guarded = wrapped.get(property);
      if (guarded === undefined) {
        guarded = (...args: unknown[]) => {
          let result: unknown;
          try {
            result = value.apply(object, args);
          } catch (error) {
            throw unavailable(error);
          }
          return result instanceof Promise
            ? result.catch((error: unknown) => {
                throw unavailable(error);
              })
            : result;
        };
        wrapped.set(property, guarded);
      }
      return guarded;
    },
  });
}

function unavailable(error: unknown): StoreUnavailableError {
  return new StoreUnavailableError('the market data store failed', { cause: error });
}
