import { nextTradingDay, SESSION_CLOSE } from '../domain/calendar.js';
import { sydneyClock } from '../domain/dates.js';
import type { FeedEvent } from '../feed/events.js';

/**
 * Runs the simulated exchange live: releases each trading day's events as a clock passes their
 * time, through the normal ingest path. When the live day is today and the exchange is in
 * session, the clock is the real Sydney clock; otherwise (nights, weekends, holidays, or a
 * day ahead of the calendar) the day is replayed on a virtual clock at `speed` x real time, so
 * the demo market is always visibly moving. Each finished day is followed by the next trading
 * day; every event is ingested exactly once and in order, so the store sees a normal feed.
 */
export interface LiveExchangeOptions {
  /** The day to run first (usually the trading day after the store's latest date). */
  readonly firstDate: string;
  /** Produces the whole event list of a trading day (deterministic simulator). */
  readonly simulateDay: (date: string) => FeedEvent[];
  /** Stores a batch of events (validated, idempotent); throws or rejects on refusal. */
  readonly ingest: (events: FeedEvent[]) => Promise<unknown> | undefined;
  /** Virtual seconds per real second when replaying. */
  readonly speed: number;
  readonly now?: () => Date;
  readonly tickMs?: number;
  readonly onDayStart?: (date: string, mode: 'real-time' | 'replay') => void;
  readonly onError?: (error: unknown) => void;
}

export interface LiveExchange {
  /** The live day and the clock's time of day (HHmmss). */
  position(): { date: string; time: string; mode: 'real-time' | 'replay' };
  /**
   * Moves the clock by one step now (the timer calls this; tests call it directly). A tick while
   * the previous one still stores its events does nothing: batches are stored one at a time, in order.
   */
  tick(): Promise<void>;
  stop(): void;
}

/** A day's replay starts just before the open so the first book updates arrive at once. */
const REPLAY_START_SECONDS = toSeconds('095900');
const DAY_END_SECONDS = toSeconds(SESSION_CLOSE);
const LAST_SECOND = toSeconds('235959');

export function startLiveExchange(options: LiveExchangeOptions, autoTick = true): LiveExchange {
  const now = options.now ?? (() => new Date());
  let date = options.firstDate;
  let events: FeedEvent[] = [];
  let released = 0;
  let mode: 'real-time' | 'replay' = 'replay';
  let dayStartedAt = 0;

  function beginDay(): void {
    events = options.simulateDay(date);
    released = 0;
    const clock = sydneyClock(now());
    const inSession = clock.time >= '095900' && clock.time < SESSION_CLOSE;
    mode = clock.date === date && inSession ? 'real-time' : 'replay';
    dayStartedAt = now().getTime();
    options.onDayStart?.(date, mode);
  }

  function clockSeconds(): number {
    if (mode === 'real-time') return toSeconds(sydneyClock(now()).time);
    const elapsed = (now().getTime() - dayStartedAt) / 1000;
    return REPLAY_START_SECONDS + Math.floor(elapsed * options.speed);
  }

  let ticking = false;

  async function tick(): Promise<void> {
    if (ticking) return;
    ticking = true;
    try {
      const seconds = clockSeconds();
      const time = fromSeconds(Math.min(seconds, LAST_SECOND));
      let end = released;
      while (end < events.length && (events[end]?.time ?? '') <= time) end += 1;
      if (end > released) {
        await options.ingest(events.slice(released, end));
        released = end;
      }
      if (released >= events.length && seconds >= DAY_END_SECONDS) {
        date = nextTradingDay(date);
        beginDay();
      }
    } catch (error) {
      options.onError?.(error);
    } finally {
      ticking = false;
    }
  }

  beginDay();
  const timer = autoTick ? setInterval(() => void tick(), options.tickMs ?? 250) : undefined;
  timer?.unref();

  return {
    position: () => ({ date, time: fromSeconds(Math.min(clockSeconds(), LAST_SECOND)), mode }),
    tick,
    stop: () => {
      if (timer) clearInterval(timer);
    },
  };
}

function toSeconds(time: string): number {
  return Number(time.slice(0, 2)) * 3600 + Number(time.slice(2, 4)) * 60 + Number(time.slice(4, 6));
}

function fromSeconds(total: number): string {
  const hours = Math.floor(total / 3600);
  const minutes = Math.floor((total % 3600) / 60);
  const seconds = total % 60;
  return [hours, minutes, seconds].map((part) => String(part).padStart(2, '0')).join('');
}
