import { describe, expect, it } from 'vitest';
import type { FeedEvent } from '../feed/events.js';
import { type LiveExchangeOptions, startLiveExchange } from './live-exchange.js';
import { createSimulatedClock } from './simulated-clock.js';

function dayOf(date: string): FeedEvent[] {
  const times = ['100000', '120000', '155959', '160000'];
  return times.map((time, index) => ({
    type: 'message',
    date,
    seq: index + 1,
    time,
    market: 'au_electricity',
    board: 'message_board',
    text: `RFQ ${index}`,
  }));
}

/** A controllable clock: Sydney is UTC+11 in January (AEDT). */
function clockAt(iso: string) {
  let current = new Date(iso).getTime();
  return {
    now: () => new Date(current),
    advance: (ms: number) => {
      current += ms;
    },
  };
}

/**
 * The exchange from Monday 19 January 2026 on a virtual clock (60x the given one), ticked by the
 * test; what it ingests is collected in `ingested`.
 */
function exchangeFrom(clock: ReturnType<typeof clockAt>, options: Partial<LiveExchangeOptions> = {}) {
  const ingested: FeedEvent[] = [];
  const live = startLiveExchange(
    {
      firstDate: '20260119',
      simulateDay: dayOf,
      ingest: (events) => {
        ingested.push(...events);
        return undefined;
      },
      clock: createSimulatedClock({ speed: 60, realNow: clock.now }),
      ...options,
    },
    false,
  );
  return { live, ingested };
}

describe('live exchange', () => {
  it('replays a future day on a virtual clock, in order, once, then moves to the next trading day', async () => {
    // Saturday 2026-01-17 03:00 UTC = 14:00 Sydney; the live day is Monday 19 January.
    const clock = clockAt('2026-01-17T03:00:00Z');
    const starts: string[] = [];
    const { live, ingested } = exchangeFrom(clock, {
      onDayStart: (date, mode) => starts.push(`${date} ${mode}`),
    });
    expect(live.position()).toMatchObject({ date: '20260119', time: '095900', mode: 'replay' });
    await live.tick();
    expect(ingested).toHaveLength(0);
    clock.advance(2_000); // 120 virtual seconds: 10:01:00
    await live.tick();
    expect(ingested.map((event) => event.time)).toEqual(['100000']);
    clock.advance(7 * 60_000); // 7 real minutes = 7 virtual hours: past the close
    await live.tick();
    expect(ingested.map((event) => `${event.date}/${event.seq}`)).toEqual([
      '20260119/1',
      '20260119/2',
      '20260119/3',
      '20260119/4',
    ]);
    expect(live.position().date).toBe('20260120');
    expect(starts).toEqual(['20260119 replay', '20260120 replay']);
  });

  it('follows the real Sydney clock when the live day is today and in session', async () => {
    // 2026-01-19 01:30 UTC = 12:30 Sydney (AEDT), a Monday.
    const clock = clockAt('2026-01-19T01:30:00Z');
    const { live, ingested } = exchangeFrom(clock);
    await live.tick();
    expect(live.position()).toMatchObject({ date: '20260119', time: '123000', mode: 'real-time' });
    expect(ingested.map((event) => event.time)).toEqual(['100000', '120000']);
  });

  it('reports a refusal once while it lasts, offers the same events again, and says when they are stored', async () => {
    const clock = clockAt('2026-01-17T03:00:00Z');
    const said: string[] = [];
    let refusing: string | undefined = 'database or disk is full';
    const stored: FeedEvent[] = [];
    const { live } = exchangeFrom(clock, {
      ingest: (events) => {
        if (refusing !== undefined) throw new Error(refusing);
        stored.push(...events);
        return undefined;
      },
      onError: (error) => said.push(`error: ${(error as Error).message}`),
      onRecovered: (ticks) => said.push(`stored after ${ticks} refused ticks`),
    });
    clock.advance(2_000); // 10:01:00
    for (let tick = 0; tick < 3; tick++) await live.tick();
    clock.advance(60_000); // 11:01:00: no new event, the same one is still offered
    await live.tick();
    refusing = 'store unavailable';
    await live.tick();
    expect(said).toEqual(['error: database or disk is full', 'error: store unavailable']);
    expect(live.position().time).toBe('110100');
    refusing = undefined;
    await live.tick();
    expect(stored.map((event) => event.time)).toEqual(['100000']);
    expect(said.at(-1)).toBe('stored after 5 refused ticks');
    // Told again if a later batch is refused.
    refusing = 'database or disk is full';
    clock.advance(60_000); // 12:01:00
    await live.tick();
    expect(said.at(-1)).toBe('error: database or disk is full');
  });
});
