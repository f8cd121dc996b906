import { describe, expect, it } from 'vitest';
import type { CaseResult, HttpBenchResult, Side } from './http-bench.js';
import { httpSection } from './http-report.js';

const side = (requestsPerSecond: number, p99Ms: number): Side => ({
  runs: [],
  requestsPerSecond,
  p50Ms: 0.2,
  p99Ms,
  cpuUs: 25,
  bytesPerResponse: 664,
  errors: 0,
});

const oneCase = (label: string, gridquote: Side, baseline: Side): CaseResult => ({
  label,
  request: '/api/epi?date=20250220',
  gridquote,
  baseline,
  sameHeaders: [],
});

function result(cases: readonly CaseResult[]): HttpBenchResult {
  return {
    machine: 'a machine',
    options: {
      directory: '/tmp',
      days: 250,
      until: '20250221',
      seed: 1,
      seconds: 3,
      rounds: 5,
      connections: 8,
      liveSpeed: 600,
      workers: [1],
      fresh: false,
    },
    history: {
      path: '/tmp/h.db',
      days: 250,
      first: '20240228',
      last: '20250221',
      reused: true,
      seedMs: undefined,
    },
    logLevel: 'info',
    cases,
    scaling: { request: '/api/epi?date=20250220', sides: [] },
    coldTickerMs: [20],
    serveRssBytes: 140e6,
    liveEvents: 0,
    liveHistoryDays: 10,
    wallMs: 1_000,
  };
}

describe('httpSection', () => {
  it("never prints a cached case's ratio just beside its target as the target itself", () => {
    // 38,733 / 55,521 is 0.6976...: the table printed "0.70" while its verdict said NOT met.
    const text = httpSection(
      result([
        oneCase('EPI of a past day, cached', side(38_733, 0.83), side(55_521, 0.69)),
        // 1.5005x the baseline's p99: "1.50" would read as within the target.
        oneCase('a trade log, cached', side(30_000, 1.5005), side(33_000, 1)),
        // A case without targets keeps two decimals.
        oneCase('the live snapshot', side(34_975, 1.5005), side(49_964, 1)),
      ]),
    );
    expect(text).toContain('| 38,733 | 55,521 | 0.698 |');
    expect(text).toContain('| 0.698 x, 1.20 x | **NOT met** |');
    expect(text).toContain('| 1.50 ms / 1.00 ms | 1.5005 |');
    expect(text).toContain('| 0.91 x, 1.5005 x | **NOT met** |');
    expect(text).toContain('| 34,975 | 49,964 | 0.70 |');
    expect(text).toContain('| 1.50 ms / 1.00 ms | 1.50 |');
  });

  it('gives p50, like req/s, p99 and CPU, as a ratio to the bare server', () => {
    const slower = { ...side(20_000, 1.2), p50Ms: 0.3, cpuUs: 30 };
    const text = httpSection(result([oneCase('EPI of a past day, cached', slower, side(25_000, 1))]));
    const header = text.split('\n').find((line) => line.startsWith('| case |')) ?? '';
    expect(header).toContain('| p50 gridquote / node:http | ratio | p99 gridquote / node:http | ratio |');
    expect(text).toContain(
      '| 20,000 | 25,000 | 0.80 | 0.30 ms / 0.20 ms | 1.50 | 1.20 ms / 1.00 ms | 1.20 | 30 / 25 µs | 1.20 |',
    );
    // every row of the table has as many cells as its header
    const cells = (line: string) => line.split('|').length;
    const row = text.split('\n').find((line) => line.startsWith('| EPI of a past day, cached |')) ?? '';
    expect(cells(row)).toBe(cells(header));
  });
});
