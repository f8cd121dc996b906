import { StoreUnavailableError } from './problems.js';

/**
 * Wraps a store interface so that anything its methods throw or reject with becomes a
 * StoreUnavailableError (503).
 * Requests are validated before they reach the store, so a throw there is the store failing
 * (closed, locked, disk error), never the client's fault. The store interfaces are methods only
 * (store.ts): each method of the target, its own or its class's, is wrapped once, into a plain
 * object. A Proxy did the same per property access, which a cached answer pays on every request
 * (the key store's rememberedKey): about 0.4 µs of a busy server's CPU (docs/benchmarks.md).
 */
export function guardStore<T extends object>(target: T): T {
  const guarded: Record<PropertyKey, unknown> = {};
  for (let layer: object | null = target; layer !== null && layer !== Object.prototype; ) {
    for (const name of Reflect.ownKeys(layer)) {
      if (name === 'constructor' || name in guarded || typeof Reflect.get(target, name) !== 'function')
        continue;
      guarded[name] = (...args: unknown[]) => {
        let result: unknown;
        try {
          // Looked up at each call: a method replaced on the store later (a test's spy) is the one called.
          result = Reflect.apply(Reflect.get(target, name) as (...a: unknown[]) => unknown, target, args);
        } catch (error) {
          throw unavailable(error);
        }
        return result instanceof Promise
          ? result.catch((error: unknown) => {
              throw unavailable(error);
            })
          : result;
      };
    }
    layer = Reflect.getPrototypeOf(layer);
  }
  return guarded as T;
}

function unavailable(error: unknown): StoreUnavailableError {
  return new StoreUnavailableError('the market data store failed', { cause: error });
}
