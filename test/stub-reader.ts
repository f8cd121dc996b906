import type { MarketReader } from '../src/store/store.js';

/** Plain answers for the reader's methods; the stub returns them as promises, as a store does. */
export type StubAnswers = {
  [K in keyof MarketReader]?: (...args: Parameters<MarketReader[K]>) => Awaited<ReturnType<MarketReader[K]>>;
};

/** A reader answering only what a unit test needs; anything else fails loudly. */
export function stubReader(answers: StubAnswers): MarketReader {
  return new Proxy(answers as unknown as MarketReader, {
    get(target, property) {
      const value: unknown = Reflect.get(target, property);
      if (typeof value === 'function') {
        return async (...args: unknown[]) => value.apply(target, args);
      }
      return async () => {
        throw new Error(`stub reader: ${String(property)} was not expected`);
      };
    },
  });
}
