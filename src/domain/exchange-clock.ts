import { sydneyClock } from './dates.js';

/**
 * The exchange's current instant: the one "now" of every operation (the ticker's default
 * window, whether the current day is today, key expiry, the ingest lag, how long a live answer
 * stays fresh). Production hands in the wall clock; the demo hands in its simulated exchange's
 * clock, which replays a trading day on virtual time outside the session (docs/api.md
 * "Exchange clock"). Built once at start and passed down; nothing below reads the time itself.
 *
 * What must follow the real passage of time stays on the wall clock instead: rate-limit
 * windows, timeouts, log timestamps and when a key was created or revoked.
 */
export type ExchangeClock = () => Date;

/** The real exchange's clock: the system time, read in Sydney time where a date or time is needed. */
export const wallClock: ExchangeClock = () => new Date();

/** The exchange's current trading-calendar date (yyyyMMdd) and time of day (HHmmss), Sydney time. */
export function exchangeNow(clock: ExchangeClock): { date: string; time: string } {
  return sydneyClock(clock());
}
