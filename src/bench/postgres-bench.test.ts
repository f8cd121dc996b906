import { describe, expect, it } from 'vitest';
import { type PostgresBenchResult, postgresSection, type ServerTiming } from './postgres-bench.js';

const timing = (wallMs: number): ServerTiming => ({ wallMs, cpuMs: wallMs / 2, serverCpuMs: wallMs / 3 });

function result(daysWallMs: number, linesWallMs: number): PostgresBenchResult {
  return {
    days: 10,
    events: 95_034,
    eventsPath: [timing(daysWallMs)],
    linesPath: [timing(linesWallMs)],
    bareDays: [timing(340)],
    bareFile: [timing(225)],
    openTickerMs: 25,
    coldTickerMs: 17,
    warmTickerMs: 19,
    serverTickerMs: 5,
    tickerRows: 3_042,
  };
}

describe('postgresSection', () => {
  it('never prints a ratio just under the target as the target itself', () => {
    // 340 / 1,137 is 0.2990...: "0.30" beside "NOT met" read as a contradiction.
    const text = postgresSection('a machine', result(1_137, 600), { seed: 1, until: '20250221' });
    expect(text).toContain('`ingestDays` NOT met (0.299');
    expect(text).toContain('| A: 0.299 (0.299) |');
    expect(text).toContain('`ingestLines` met (0.38');
  });

  it('says what the cores allow: the bare COPY over the process and server CPU of the path spread over them', () => {
    // ingestDays: 1,137 ms of wall, CPU 568.5 + 379 ms; on 2 cores at least 473.75 ms: 340 / 473.75 = 0.72
    const text = postgresSection('a machine', result(1_137, 600), { seed: 1, until: '20250221' }, 2);
    expect(text).toContain('What 2 cores allow:');
    expect(text).toContain('caps `ingestDays` at 0.72 and `ingestLines` at 0.90 in this run');
  });
});
