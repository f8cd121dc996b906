import type { MarketReader } from '../src/store/store.js';

/** A reader answering only what a unit test needs; anything else fails loudly. */
export function stubReader(answers: Partial<MarketReader>): MarketReader {
  return new Proxy(answers as MarketReader, {
    get(target, property) {
      const value = Reflect.get(target, property);
      if (value !== undefined) return value;
      return () => {
        throw new Error(`stub reader: ${String(property)} was not expected`);
      };
    },
  });
}
