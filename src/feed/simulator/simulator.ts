import { isTradingDay, tradingDaysBetween } from '../../domain/calendar.js';
import { addDays, isValidDate } from '../../domain/dates.js';
import type { FeedEvent } from '../events.js';
import { planDay } from './activity.js';
import { Curve } from './curve.js';
import { dayListing } from './day-listing.js';
import { EventLog } from './event-log.js';
import { IntradayPrices } from './intraday.js';
import { OpenInterest } from './open-interest.js';
import { Rng } from './prng.js';
import { runSession } from './session.js';

export interface SimulatorOptions {
  seed: number;
}

export interface Simulator {
  /**
   * Events of one trading day, in publication order: time ascending, seq = 1, 2, 3, ... Must be
   * called with strictly increasing trading dates; state (curves, open interest) carries over.
   */
  simulateDay(date: string): FeedEvent[];
}

/**
 * The synthetic exchange. Everything it produces follows from the seed and the dates asked
 * for: the first day's curves and open interest come from the seed alone, and each day draws
 * from streams labelled with the seed and that date.
 */
export function createSimulator(options: SimulatorOptions): Simulator {
  const { seed } = options;
  if (!Number.isSafeInteger(seed)) throw new RangeError(`seed must be a safe integer: ${seed}`);
  const curve = new Curve(seed);
  const openInterest = new OpenInterest(seed);
  let previousClose: ReadonlyMap<string, number> = new Map();
  let lastDate: string | undefined;

  return {
    simulateDay(date: string): FeedEvent[] {
      if (!isValidDate(date) || !isTradingDay(date)) throw new RangeError(`not a trading day: ${date}`);
      if (lastDate !== undefined && date <= lastDate) {
        throw new RangeError(`dates must increase: ${date} after ${lastDate}`);
      }
      // A gap in the dates still moves the curves by one step per trading day skipped.
      const steps = lastDate === undefined ? 0 : tradingDaysBetween(addDays(lastDate, 1), date).length;
      curve.advance(date, steps);
      const listing = dayListing(date);
      openInterest.startDay(date, listing.listed);
      const prices = new IntradayPrices(curve, previousClose, Rng.derive(seed, 'prices', date));
      const rng = Rng.derive(seed, 'activity', date);
      const log = new EventLog(date);
      runSession({ date, rng, log, prices, curve, openInterest, listing }, planDay(rng, date, listing));
      previousClose = prices.closingMids();
      lastDate = date;
      return log.events;
    },
  };
}

/** Convenience: the events of each date in order (dates ascending trading days). */
export function* simulateHistory(
  options: SimulatorOptions,
  dates: readonly string[],
): Generator<{ date: string; events: FeedEvent[] }> {
  const simulator = createSimulator(options);
  for (const date of dates) yield { date, events: simulator.simulateDay(date) };
}
