import { SESSION_CLOSE } from '../domain/calendar.js';
import { sydneyClock, sydneyUnixSeconds } from '../domain/dates.js';
import type { ExchangeClock } from '../domain/exchange-clock.js';

export type ClockMode = 'real-time' | 'replay';

/**
 * The simulated exchange's clock (the demo's exchange clock). While the live day is today and
 * the exchange is in session it is the real Sydney clock; otherwise (nights, weekends,
 * holidays, or a day ahead of the calendar) the day is replayed on virtual time at `speed` x
 * real time from just before the open, so the demo market is always visibly moving. The app
 * reads `now` as its exchange clock, so the API sees the very time the feed is released at.
 */
export interface SimulatedClock {
  /** The exchange's current instant: the live day at the clock's time, Sydney time. */
  readonly now: ExchangeClock;
  /** Starts a trading day on the clock (replayed from 09:59:00 unless it is live now). */
  startDay(date: string): ClockMode;
  /** Seconds since midnight of the live day (past 23:59:59 when a replay overruns). */
  secondsOfDay(): number;
  /** The live day and the clock's time of day (HHmmss). */
  position(): { date: string; time: string; mode: ClockMode };
}

export interface SimulatedClockOptions {
  /** Virtual seconds per real second when replaying. */
  readonly speed: number;
  /** The real time (tests pin it). */
  readonly realNow?: () => Date;
}

/** A day's replay starts just before the open so the first book updates arrive at once. */
const REPLAY_START_SECONDS = toSeconds('095900');
const LAST_SECOND = toSeconds('235959');

export function createSimulatedClock(options: SimulatedClockOptions): SimulatedClock {
  const realNow = options.realNow ?? (() => new Date());
  let day: { date: string; mode: ClockMode; startedAtMs: number } | undefined;

  /** Virtual milliseconds since the live day's midnight, in replay mode. */
  function replayMs(startedAtMs: number): number {
    return REPLAY_START_SECONDS * 1000 + (realNow().getTime() - startedAtMs) * options.speed;
  }

  function secondsOfDay(): number {
    if (day === undefined) return toSeconds(sydneyClock(realNow()).time);
    if (day.mode === 'real-time') return toSeconds(sydneyClock(realNow()).time);
    return Math.floor(replayMs(day.startedAtMs) / 1000);
  }

  return {
    now() {
      if (day === undefined || day.mode === 'real-time') return realNow();
      const ms = Math.min(replayMs(day.startedAtMs), LAST_SECOND * 1000);
      const whole = Math.floor(ms / 1000);
      return new Date(sydneyUnixSeconds(day.date, fromSeconds(whole)) * 1000 + (ms - whole * 1000));
    },
    startDay(date) {
      const real = realNow();
      const mode = runsInRealTime(date, real) ? 'real-time' : 'replay';
      day = { date, mode, startedAtMs: real.getTime() };
      return mode;
    },
    secondsOfDay,
    position() {
      const time = fromSeconds(Math.min(secondsOfDay(), LAST_SECOND));
      if (day === undefined) return { date: sydneyClock(realNow()).date, time, mode: 'real-time' };
      return { date: day.date, time, mode: day.mode };
    },
  };
}

/** Whether a trading day started at `real` runs on the real clock: it is that day's session in Sydney (from the minute before the open). */
export function runsInRealTime(date: string, real: Date): boolean {
  const clock = sydneyClock(real);
  return clock.date === date && clock.time >= '095900' && clock.time < SESSION_CLOSE;
}

export function toSeconds(time: string): number {
  return Number(time.slice(0, 2)) * 3600 + Number(time.slice(2, 4)) * 60 + Number(time.slice(4, 6));
}

export function fromSeconds(total: number): string {
  const hours = Math.floor(total / 3600);
  const minutes = Math.floor((total % 3600) / 60);
  const seconds = total % 60;
  return [hours, minutes, seconds].map((part) => String(part).padStart(2, '0')).join('');
}
