import { describe, expect, it } from 'vitest';
import { sydneyClock } from '../domain/dates.js';
import {
  formatReplaySchedule,
  parseReplaySchedule,
  replayClock,
  replayDueMs,
  replayPosition,
} from './replay-schedule.js';

// Friday 2026-01-16: the next trading day is Monday 2026-01-19.
const START = Date.parse('2026-01-10T03:00:00.000Z');
const SCHEDULE = { from: '20260116', startMs: START, speed: 60 };
/** 09:59:00 to 17:00:00 is 25 260 exchange seconds: 421 real seconds at 60x. */
const DAY_MS = 421_000;

describe('the replay schedule', () => {
  it('round-trips through its text, and refuses what is not one', () => {
    const text = formatReplaySchedule(SCHEDULE);
    expect(text).toBe('20260116,2026-01-10T03:00:00.000Z,60');
    expect(parseReplaySchedule(text)).toEqual(SCHEDULE);
    expect(parseReplaySchedule('20260116,2026-01-10T03:00:00Z,1')).toEqual({ ...SCHEDULE, speed: 1 });
    for (const bad of [
      '',
      '20260117,2026-01-10T03:00:00Z,60', // a Saturday
      '20260116,2026-01-10 03:00,60',
      '20260116,2026-01-10T03:00:00+11:00,60',
      '20260116,2026-01-10T03:00:00Z,0',
      '20260116,2026-01-10T03:00:00Z,1.5',
      '20260116,2026-01-10T03:00:00Z,60,x',
      '20260116,2026-02-30T03:00:00Z,60', // no such day: Date.parse would make it March 2
      '20260116,2026-01-10T24:00:00Z,60', // the next day's midnight
    ]) {
      expect(parseReplaySchedule(bad), bad).toMatch(/^must be <trading day/);
    }
  });

  it('replays the first day from 09:59:00 at its speed, then the next trading day', () => {
    expect(replayPosition(SCHEDULE, START - 5_000)).toEqual({ date: '20260116', seconds: 35_940 });
    expect(replayPosition(SCHEDULE, START)).toEqual({ date: '20260116', seconds: 35_940 });
    expect(replayPosition(SCHEDULE, START + 1_000)).toEqual({ date: '20260116', seconds: 36_000 });
    expect(replayPosition(SCHEDULE, START + DAY_MS - 1_000).date).toBe('20260116');
    expect(replayPosition(SCHEDULE, START + DAY_MS)).toEqual({ date: '20260119', seconds: 35_940 });
    expect(replayPosition(SCHEDULE, START + 2 * DAY_MS + 500)).toEqual({ date: '20260120', seconds: 35_970 });
  });

  it('is a Sydney exchange clock every process computes alike', () => {
    let now = START + 60_000;
    const clock = replayClock(SCHEDULE, () => now);
    expect(sydneyClock(clock())).toEqual({ date: '20260116', time: '105900' });
    now = START + DAY_MS + 60_000;
    expect(sydneyClock(clock())).toEqual({ date: '20260119', time: '105900' });
    expect(replayClock(SCHEDULE, () => now)().getTime()).toBe(clock().getTime());
  });

  it('releases an event when the clock reaches it', () => {
    for (const [date, time] of [
      ['20260116', '100005'],
      ['20260116', '162135'],
      ['20260119', '130000'],
    ] as const) {
      const due = replayDueMs(SCHEDULE, date, time);
      expect(sydneyClock(replayClock(SCHEDULE, () => due)())).toEqual({ date, time });
    }
    // Before the replay start (a pre-open event): due at the day's start.
    expect(replayDueMs(SCHEDULE, '20260119', '080000')).toBe(START + DAY_MS);
  });
});
