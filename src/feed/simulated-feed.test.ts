import { describe, expect, it } from 'vitest';
import { nextTradingDay } from '../domain/calendar.js';
import type { FeedEvent } from './events.js';
import { simulatedFeed } from './simulated-feed.js';
import { createSimulator } from './simulator/simulator.js';

async function take(feed: AsyncIterable<FeedEvent>, count: number): Promise<FeedEvent[]> {
  const events: FeedEvent[] = [];
  for await (const event of feed) {
    events.push(event);
    if (events.length === count) break;
  }
  return events;
}

describe('the simulated feed', () => {
  it('continues a history when warmed up from its first day: the same events as one simulator run', async () => {
    const first = '20260302';
    const second = nextTradingDay(first);
    const third = nextTradingDay(second);
    const simulator = createSimulator({ seed: 3 });
    simulator.simulateDay(first);
    simulator.simulateDay(second);
    const continued = simulator.simulateDay(third);
    const fed = await take(
      simulatedFeed({ seed: 3, from: third, days: 1, warmUpFrom: first }),
      continued.length,
    );
    expect(fed).toEqual(continued);
    // Without the warm-up the day starts afresh: other prices.
    const fresh = await take(simulatedFeed({ seed: 3, from: third, days: 1 }), continued.length);
    expect(fresh).not.toEqual(continued);
  });

  it('on a replay clock: releases what the clock has passed at once and holds what it has not reached', async () => {
    // The whole day is past: every event at once.
    const past = { from: '20260302', startMs: Date.now() - 3_600_000, speed: 60 };
    const started = performance.now();
    const all = await take(simulatedFeed({ seed: 3, from: '20260302', days: 1, schedule: past }), 100_000);
    expect(all.length).toBeGreaterThan(1000);
    expect(performance.now() - started).toBeLessThan(10_000);
    // The day starts in an hour: nothing yet.
    const future = { from: '20260302', startMs: Date.now() + 3_600_000, speed: 60 };
    const abort = new AbortController();
    const pending = take(
      simulatedFeed({ seed: 3, from: '20260302', schedule: future, signal: abort.signal }),
      1,
    );
    setTimeout(() => abort.abort(), 300);
    expect(await pending).toEqual([]);
  });
});
