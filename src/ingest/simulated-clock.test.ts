import { describe, expect, it } from 'vitest';
import { sydneyClock } from '../domain/dates.js';
import { createSimulatedClock } from './simulated-clock.js';

function realClockAt(iso: string) {
  let current = new Date(iso).getTime();
  return {
    now: () => new Date(current),
    advance: (ms: number) => {
      current += ms;
    },
  };
}

describe('simulated exchange clock', () => {
  it('reads the real time until a day starts', () => {
    const real = realClockAt('2026-01-17T03:00:00Z');
    const clock = createSimulatedClock({ speed: 60, realNow: real.now });
    expect(clock.now().toISOString()).toBe('2026-01-17T03:00:00.000Z');
  });

  it('gives the instant of the replayed day at virtual time, moving at speed x real time', () => {
    // Saturday 14:00 in Sydney: Monday 19 January is replayed.
    const real = realClockAt('2026-01-17T03:00:00Z');
    const clock = createSimulatedClock({ speed: 60, realNow: real.now });
    expect(clock.startDay('20260119')).toBe('replay');
    expect(sydneyClock(clock.now())).toEqual({ date: '20260119', time: '095900' });
    real.advance(15_000); // 15 real seconds = 15 virtual minutes
    expect(sydneyClock(clock.now())).toEqual({ date: '20260119', time: '101400' });
    expect(clock.position()).toEqual({ date: '20260119', time: '101400', mode: 'replay' });
    // Half a real second is 30 virtual seconds: the instant keeps sub-second precision.
    real.advance(510);
    expect(clock.now().getTime() % 1000).toBe(600);
    expect(sydneyClock(clock.now()).time).toBe('101430');
  });

  it('stops at the replayed day last second rather than running into the next date', () => {
    const real = realClockAt('2026-01-17T03:00:00Z');
    const clock = createSimulatedClock({ speed: 60, realNow: real.now });
    clock.startDay('20260119');
    real.advance(24 * 60_000); // 24 virtual hours
    expect(sydneyClock(clock.now())).toEqual({ date: '20260119', time: '235959' });
    expect(clock.secondsOfDay()).toBeGreaterThan(86_400);
  });

  it('is the real clock while the live day is today and in session', () => {
    const real = realClockAt('2026-01-19T01:30:00Z'); // Monday 12:30 in Sydney
    const clock = createSimulatedClock({ speed: 60, realNow: real.now });
    expect(clock.startDay('20260119')).toBe('real-time');
    real.advance(15_000);
    expect(clock.now().toISOString()).toBe('2026-01-19T01:30:15.000Z');
    expect(clock.position()).toEqual({ date: '20260119', time: '123015', mode: 'real-time' });
  });
});
