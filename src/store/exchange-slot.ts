import type { StoreClaim } from './store.js';

/**
 * A store's own hold on its exchange (MarketStore.claimExchange), the same for every adapter: one
 * claim at a time from the store, given back when released or when the store closes. `take` is
 * the adapter's lock (undefined when another holds it).
 */
export function exchangeSlot(take: () => StoreClaim | undefined | Promise<StoreClaim | undefined>) {
  let held: StoreClaim | undefined;
  return {
    async claim(): Promise<StoreClaim | undefined> {
      if (held !== undefined) return undefined;
      const lock = await take();
      if (lock === undefined) return undefined;
      const claim: StoreClaim = {
        async release() {
          if (held === claim) held = undefined;
          await lock.release();
        },
        lost: lock.lost,
      };
      held = claim;
      return claim;
    },
    /** At close: the claim still held, if any, is given back. */
    async release(): Promise<void> {
      await held?.release();
    },
  };
}

/** The `lost` of a claim that lasts as long as its process: it never settles. */
export const NEVER_LOST: Promise<string> = new Promise(() => undefined);
