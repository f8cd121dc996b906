import { setTimeout as sleep } from 'node:timers/promises';
import { isTradingDay, nextTradingDay, tradingDaysBetween } from '../domain/calendar.js';
import { type ReplaySchedule, replayDueMs } from '../ingest/replay-schedule.js';
import type { FeedEvent } from './events.js';
import { createSimulator } from './simulator/simulator.js';

export interface SimulatedFeedOptions {
  readonly seed: number;
  /** First day; a non-trading day starts at the next trading day. */
  readonly from: string;
  /** Trading days to produce; unbounded when omitted (runs until aborted). */
  readonly days?: number;
  /**
   * Exchange seconds per real second: each event waits until its time of day, counted from the
   * day's first event, is reached at this speed. Omitted: as fast as the consumer takes them.
   */
  readonly speed?: number;
  /**
   * Instead of `speed`: each event waits until the shared replay clock (ingest/replay-schedule.ts)
   * reaches it, so the API replicas answering on that clock see it at its time. `from` is then
   * the schedule's first day.
   */
  readonly schedule?: ReplaySchedule;
  /**
   * The simulator's days from this one up to the day before `from` are simulated, not produced:
   * a feed continuing a store seeded from this day (demo, cluster) continues its prices and
   * open interest instead of starting afresh.
   */
  readonly warmUpFrom?: string;
  readonly signal?: AbortSignal;
}

/**
 * The simulator's days, event by event, optionally paced at a speed: what `gridquote feed
 * publish --simulate` sends. Deterministic for (seed, from): the same arguments give the same
 * events, so a publisher restarted with them republishes identical events (same ids).
 */
export async function* simulatedFeed(options: SimulatedFeedOptions): AsyncGenerator<FeedEvent> {
  const simulator = createSimulator({ seed: options.seed });
  const { schedule } = options;
  let date = schedule?.from ?? (isTradingDay(options.from) ? options.from : nextTradingDay(options.from));
  if (options.warmUpFrom !== undefined) {
    for (const day of tradingDaysBetween(options.warmUpFrom, date))
      if (day < date) simulator.simulateDay(day);
  }
  for (let day = 0; options.days === undefined || day < options.days; day += 1) {
    const events = simulator.simulateDay(date);
    const start = performance.now();
    const first = secondsOf(events[0]?.time ?? '000000');
    for (const event of events) {
      if (options.signal?.aborted) return;
      const wait = schedule
        ? replayDueMs(schedule, event.date, event.time) - Date.now()
        : options.speed === undefined
          ? 0
          : start + ((secondsOf(event.time) - first) * 1000) / options.speed - performance.now();
      if (wait > 0) {
        await sleep(wait, undefined, { signal: options.signal }).catch(() => undefined);
        if (options.signal?.aborted) return;
      }
      yield event;
    }
    date = nextTradingDay(date);
  }
}

function secondsOf(time: string): number {
  return Number(time.slice(0, 2)) * 3600 + Number(time.slice(2, 4)) * 60 + Number(time.slice(4, 6));
}
