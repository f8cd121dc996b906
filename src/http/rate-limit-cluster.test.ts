import { describe, expect, it } from 'vitest';
import type { RateLimitWindow, WindowCount } from './rate-limit.js';
import { LeaseHolder, MAX_LEASE } from './rate-limit-cluster.js';
import { type Lease, LeaseLedger } from './rate-limit-ledger.js';

/**
 * The leases of `serve --workers N` in one process: a ledger (the primary) and N holders (the
 * workers) joined by an asynchronous channel, with a clock the test moves. The real processes
 * are covered by src/cli/serve-workers.test.ts.
 */

const SECOND: RateLimitWindow = { name: 'per-second', seconds: 1 };

function cluster(workers: number) {
  let now = 1_000_000;
  const clock = () => now;
  const ledger = new LeaseLedger(() => workers, clock);
  let messages = 0;
  const ask = async (window: RateLimitWindow, key: string, limit: number, want: number): Promise<Lease> => {
    messages += 1;
    // A real round trip: the answer comes in a later turn.
    await new Promise((resolve) => setImmediate(resolve));
    return ledger.grant(window, key, limit, want);
  };
  const holders = Array.from({ length: workers }, () => new LeaseHolder(ask, clock));
  /** A request of `key` at worker `worker % workers`. */
  const consume = async (
    worker: number,
    key: string,
    limit: number,
    window = SECOND,
  ): Promise<WindowCount> => {
    const holder = holders[worker % workers];
    if (holder === undefined) throw new Error('no such worker');
    return holder.consume(window, key, limit);
  };
  return {
    consume,
    advance: (ms: number) => {
      now += ms;
    },
    messages: () => messages,
  };
}

const admitted = (counts: readonly WindowCount[], limit: number) =>
  counts.filter((count) => count.consumedPoints <= limit).length;

describe('rate-limit leases across workers', () => {
  it('admits exactly the limit of a burst spread over the workers, never more', async () => {
    const { consume } = cluster(2);
    const counts = await Promise.all(Array.from({ length: 20 }, (_, i) => consume(i, 'k', 6)));
    expect(admitted(counts, 6)).toBe(6);
    expect(counts.filter((count) => count.consumedPoints > 6)).toHaveLength(14);
  });

  it('never admits more than the limit however the requests fall, and refuses at once after', async () => {
    const { consume, messages } = cluster(3);
    const counts: WindowCount[] = [];
    // One worker busy first (its leases grow), then the others.
    for (let i = 0; i < 300; i++) counts.push(await consume(0, 'k', 500));
    const rest = await Promise.all(Array.from({ length: 600 }, (_, i) => consume(i, 'k', 500)));
    counts.push(...rest);
    const ok = admitted(counts, 500);
    expect(ok).toBeLessThanOrEqual(500);
    // What other workers held unspent when one was refused: a few requests, not a lease's worth.
    expect(ok).toBeGreaterThanOrEqual(500 - 2 * 3);
    const asked = messages();
    // An exhausted window is refused without asking the primary again.
    const late = await consume(1, 'k', 500);
    expect(late.consumedPoints).toBeGreaterThan(500);
    expect(messages()).toBeLessThanOrEqual(asked + 1);
  });

  it('spends a busy key locally: far fewer messages than requests', async () => {
    const { consume, messages } = cluster(2);
    const counts: WindowCount[] = [];
    for (let i = 0; i < 5000; i++) counts.push(await consume(i, 'k', 1_000_000));
    expect(admitted(counts, 1_000_000)).toBe(5000);
    expect(messages()).toBeLessThan(5000 / 50);
    expect(MAX_LEASE).toBeGreaterThan(50);
  });

  it('starts a new budget when the window ends', async () => {
    const { consume, advance } = cluster(2);
    const first = await Promise.all(Array.from({ length: 8 }, (_, i) => consume(i, 'k', 4)));
    expect(first.filter((count) => (count.consumedPoints ?? 0) <= 4)).toHaveLength(4);
    advance(1000);
    const second = await Promise.all(Array.from({ length: 8 }, (_, i) => consume(i, 'k', 4)));
    expect(second.filter((count) => (count.consumedPoints ?? 0) <= 4)).toHaveLength(4);
    for (const count of second) expect(count.msBeforeNext).toBeGreaterThan(0);
  });

  it('keeps keys and windows apart', async () => {
    const { consume } = cluster(2);
    const a = await Promise.all(Array.from({ length: 6 }, (_, i) => consume(i, 'a', 3)));
    const b = await Promise.all(Array.from({ length: 6 }, (_, i) => consume(i, 'b', 3)));
    const minute = await consume(0, 'a', 3, { name: 'per-minute', seconds: 60 });
    expect(a.filter((count) => (count.consumedPoints ?? 0) <= 3)).toHaveLength(3);
    expect(b.filter((count) => (count.consumedPoints ?? 0) <= 3)).toHaveLength(3);
    expect(minute.consumedPoints).toBe(1);
  });
});
