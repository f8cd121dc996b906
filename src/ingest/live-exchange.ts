import { nextTradingDay, SESSION_CLOSE } from '../domain/calendar.js';
import type { FeedEvent } from '../feed/events.js';
import { type ClockMode, fromSeconds, type SimulatedClock, toSeconds } from './simulated-clock.js';

/**
 * Runs the simulated exchange live: releases each trading day's events as its clock (see
 * simulated-clock.ts: real time in session, a virtual replay otherwise) passes their time,
 * through the normal ingest path. Each finished day is followed by the next trading day; every
 * event is ingested exactly once and in order, so the store sees a normal feed.
 */
export interface LiveExchangeOptions {
  /** The day to run first (usually the trading day after the store's latest date). */
  readonly firstDate: string;
  /** Produces the whole event list of a trading day (deterministic simulator). */
  readonly simulateDay: (date: string) => FeedEvent[];
  /** Stores a batch of events (validated, idempotent); throws or rejects on refusal. */
  readonly ingest: (events: FeedEvent[]) => Promise<unknown> | undefined;
  /** The exchange's clock; the same one the API reads. */
  readonly clock: SimulatedClock;
  readonly tickMs?: number;
  readonly onDayStart?: (date: string, mode: ClockMode) => void;
  /**
   * A batch was refused: its events are offered again at the next tick, so none is skipped. Told
   * once while the same refusal lasts (a full disk refuses every tick), and again when it changes.
   */
  readonly onError?: (error: unknown) => void;
  /** A batch was stored after `failedTicks` refused ones. */
  readonly onRecovered?: (failedTicks: number) => void;
}

export interface LiveExchange {
  /** The live day and the clock's time of day (HHmmss). */
  position(): { date: string; time: string; mode: ClockMode };
  /**
   * Moves the clock by one step now (the timer calls this; tests call it directly). A tick while
   * the previous one still stores its events does nothing: batches are stored one at a time, in order.
   */
  tick(): Promise<void>;
  stop(): void;
}

const DAY_END_SECONDS = toSeconds(SESSION_CLOSE);
const LAST_SECOND = toSeconds('235959');

export function startLiveExchange(options: LiveExchangeOptions, autoTick = true): LiveExchange {
  const { clock } = options;
  let date = options.firstDate;
  let events: FeedEvent[] = [];
  let released = 0;

  function beginDay(): void {
    events = options.simulateDay(date);
    released = 0;
    const mode = clock.startDay(date);
    options.onDayStart?.(date, mode);
  }

  let ticking = false;
  /** The refusal of the last tick, while batches are refused, and how many ticks it lasted. */
  let refusal: string | undefined;
  let refusedTicks = 0;

  function refused(error: unknown): void {
    refusedTicks += 1;
    const text = error instanceof Error ? error.message : String(error);
    if (text === refusal) return;
    refusal = text;
    options.onError?.(error);
  }

  async function tick(): Promise<void> {
    if (ticking) return;
    ticking = true;
    try {
      const seconds = clock.secondsOfDay();
      const time = fromSeconds(Math.min(seconds, LAST_SECOND));
      let end = released;
      while (end < events.length && (events[end]?.time ?? '') <= time) end += 1;
      if (end > released) {
        await options.ingest(events.slice(released, end));
        released = end;
        if (refusal !== undefined) options.onRecovered?.(refusedTicks);
        refusal = undefined;
        refusedTicks = 0;
      }
      if (released >= events.length && seconds >= DAY_END_SECONDS) {
        date = nextTradingDay(date);
        beginDay();
      }
    } catch (error) {
      refused(error);
    } finally {
      ticking = false;
    }
  }

  beginDay();
  const timer = autoTick ? setInterval(() => void tick(), options.tickMs ?? 250) : undefined;
  timer?.unref();

  return {
    position: () => clock.position(),
    tick,
    stop: () => {
      if (timer) clearInterval(timer);
    },
  };
}
