import { isTradingDay, nextTradingDay, SESSION_CLOSE } from '../domain/calendar.js';
import { isValidDate, sydneyUnixSeconds } from '../domain/dates.js';
import type { ExchangeClock } from '../domain/exchange-clock.js';
import { fromSeconds, toSeconds } from './simulated-clock.js';

/**
 * A simulated exchange clock that separate processes compute alone and agree on: trading day
 * `from` is replayed from 09:59:00 starting at the real instant `startMs`, at `speed` exchange
 * seconds per real second; when it reaches the session close (17:00) the next trading day
 * starts at 09:59:00, and so on. The feed publisher paces its events by it and every API
 * replica answers on it (`--replay-clock`, GRIDQUOTE_REPLAY_CLOCK), so that a replica's "now"
 * is the very time the feed is at. (The demo's clock, simulated-clock.ts, decides each day as
 * it starts, which only one process can do.)
 *
 * Written as `<yyyyMMdd>,<ISO instant>,<speed>`, e.g. `20261125,2026-11-24T02:00:00.000Z,60`.
 */
export interface ReplaySchedule {
  readonly from: string;
  readonly startMs: number;
  readonly speed: number;
}

const DAY_START_SECONDS = toSeconds('095900');
/** Exchange seconds from a day's replay start to the session close. */
const DAY_SECONDS = toSeconds(SESSION_CLOSE) - DAY_START_SECONDS;
const MAX_SPEED = 1_000_000;

export function formatReplaySchedule(schedule: ReplaySchedule): string {
  return `${schedule.from},${new Date(schedule.startMs).toISOString()},${schedule.speed}`;
}

/** The schedule, or the reason the text is not one. */
export function parseReplaySchedule(text: string): ReplaySchedule | string {
  const [from = '', start = '', speedText = '', ...rest] = text.split(',');
  const startMs = Date.parse(start);
  const speed = Number(speedText);
  if (
    rest.length > 0 ||
    !isValidDate(from) ||
    !isTradingDay(from) ||
    !/^\d{4}-\d\d-\d\dT[\d:.]+Z$/.test(start) ||
    Number.isNaN(startMs) ||
    // Date.parse rolls an impossible day over (February 30 is March 2): the day must read back.
    new Date(startMs).toISOString().slice(0, 10) !== start.slice(0, 10) ||
    !/^\d+$/.test(speedText) ||
    speed < 1 ||
    speed > MAX_SPEED
  ) {
    return `must be <trading day yyyyMMdd>,<UTC instant like 2026-11-24T02:00:00Z>,<speed 1..${MAX_SPEED}>, got ${JSON.stringify(text)}`;
  }
  return { from, startMs, speed };
}

/** The replayed day and its exchange time of day (seconds since midnight) at a real instant. */
export function replayPosition(schedule: ReplaySchedule, realMs: number): { date: string; seconds: number } {
  const elapsed = Math.max(0, ((realMs - schedule.startMs) / 1000) * schedule.speed);
  return {
    date: nthTradingDay(schedule.from, Math.floor(elapsed / DAY_SECONDS)),
    seconds: DAY_START_SECONDS + (elapsed % DAY_SECONDS),
  };
}

/** The trading day `count` trading days after `from`; the last answer is kept (asked per request). */
let lastDay = { from: '', count: 0, date: '' };
function nthTradingDay(from: string, count: number): string {
  if (lastDay.from === from && lastDay.count === count) return lastDay.date;
  let date = from;
  for (let day = 0; day < count; day += 1) date = nextTradingDay(date);
  lastDay = { from, count, date };
  return date;
}

/** The exchange clock of the schedule: what `serve --replay-clock` answers on. */
export function replayClock(schedule: ReplaySchedule, realNow: () => number = Date.now): ExchangeClock {
  return () => {
    const { date, seconds } = replayPosition(schedule, realNow());
    const whole = Math.floor(seconds);
    return new Date((sydneyUnixSeconds(date, fromSeconds(whole)) + (seconds - whole)) * 1000);
  };
}

/**
 * The real instant (ms) at which the schedule reaches an event of `date` at `time` (HHmmss):
 * when the publisher releases it. `date` must be `from` or a trading day after it.
 */
export function replayDueMs(schedule: ReplaySchedule, date: string, time: string): number {
  let days = 0;
  for (let day = schedule.from; day < date; day = nextTradingDay(day)) days += 1;
  const offset = Math.max(0, toSeconds(time) - DAY_START_SECONDS);
  // Rounded up to whole ms: at the instant returned the clock shows the event's second, never the one before.
  return Math.ceil(schedule.startMs + ((days * DAY_SECONDS + offset) * 1000) / schedule.speed);
}
