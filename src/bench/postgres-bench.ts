import { readFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import pg from 'pg';
import { lastTradingDays } from '../domain/calendar.js';
import type { FeedEvent } from '../feed/events.js';
import { parseFeedLine } from '../feed/ndjson.js';
import { createSimulator } from '../feed/simulator/simulator.js';
import { ingestDays } from '../ingest/ingest-events.js';
import { ingestLines } from '../ingest/ingest-lines.js';
import { bareCopyTable } from '../store/postgres/bare-copy.js';
import { dropSchemas } from '../store/postgres/drop-schemas.js';
import { openPostgresStore } from '../store/postgres/open-postgres-store.js';
import { tickerStatement } from '../store/postgres/postgres-reader.js';
import type { MarketStore } from '../store/store.js';
import { collect } from '../store/store-contract.js';
import { formatCount, measure, perSecond, shownAgainst, type Timing } from './measure.js';

export interface PostgresBenchOptions {
  readonly url: string;
  readonly days: number;
  readonly until: string;
  readonly seed: number;
  /** Rounds of every ingest path and baseline, one after the other (medians are reported). */
  readonly rounds: number;
}

/** A measured path: wall and process CPU, and the CPU of the server backends it used. */
export interface ServerTiming extends Timing {
  /** undefined where the server's processes cannot be read (not on this machine). */
  readonly serverCpuMs: number | undefined;
}

export interface PostgresBenchResult {
  readonly days: number;
  readonly events: number;
  /** ingestDays, one transaction a day (seed); one timing a round. */
  readonly eventsPath: ServerTiming[];
  /** ingestLines of the export, one transaction (ingest of a file). */
  readonly linesPath: ServerTiming[];
  /** The same lines COPYed into a bare table, one COPY and transaction a day: eventsPath's floor. */
  readonly bareDays: ServerTiming[];
  /** The same lines COPYed into a bare table in one COPY and transaction: linesPath's floor. */
  readonly bareFile: ServerTiming[];
  /** The whole last day's au_electricity futures ticker: first call on a newly opened store. */
  readonly openTickerMs: number;
  /** The same on a store serving already (a connection open), first time asked: not yet prepared. */
  readonly coldTickerMs: number;
  /** The same, median of 10 calls after it. */
  readonly warmTickerMs: number;
  /** The server's own time for it (planning and execution) on a new connection, EXPLAIN ANALYZE. */
  readonly serverTickerMs: number;
  readonly tickerRows: number;
}

/**
 * Ingest into PostgreSQL against a bare COPY of the same lines in the same run (so the ratio
 * reads the same on any machine), and the full-day market ticker from a store just opened.
 * Each round runs every path once, in the same order, into fresh tables: the same lines, the
 * same server, the same warmth of the process for both sides (the first round pays the JIT's
 * warm-up in the stores' code), and the same warmth of the server's: each load runs on
 * connections opened for it, whose backends have touched no shared buffer yet (bare-copy.ts).
 * Every store goes in a schema of its own, dropped at the end.
 */
export async function benchPostgres(options: PostgresBenchOptions): Promise<PostgresBenchResult> {
  const dates = lastTradingDays(options.days, options.until);
  const simulator = createSimulator({ seed: options.seed });
  const days: FeedEvent[][] = dates.map((date) => simulator.simulateDay(date));
  const events = days.reduce((sum, day) => sum + day.length, 0);
  const schemas: string[] = [];
  // Every connection of the bench names itself, so that the server's CPU for it can be read.
  const application = `gq_bench_${process.pid}`;
  const named = new URL(options.url);
  named.searchParams.set('application_name', application);
  const open = async (reuse?: string): Promise<MarketStore> => {
    const schema = reuse ?? `gq_bench_${Math.random().toString(36).slice(2, 10)}`;
    if (!reuse) schemas.push(schema);
    return openPostgresStore(named.href, { schema, migrate: true });
  };
  const bare = await bareCopyTable(named.href);
  const backends = new Backends(options.url, application);
  /** A path's timing with the server's CPU for it (its backends must still be connected at the end). */
  const timed = async <T>(work: () => Promise<T>): Promise<{ result: T; timing: ServerTiming }> => {
    const before = await backends.cpu();
    const measured = await measure(work);
    const after = await backends.cpu();
    let serverCpuMs: number | undefined;
    if (before && after) {
      serverCpuMs = 0;
      for (const [pid, ms] of after) serverCpuMs += ms - (before.get(pid) ?? 0);
    }
    return { result: measured.result, timing: { ...measured.timing, serverCpuMs } };
  };
  try {
    const result = {
      eventsPath: [] as ServerTiming[],
      linesPath: [] as ServerTiming[],
      bareDays: [] as ServerTiming[],
      bareFile: [] as ServerTiming[],
    };
    let lines: string[] = [];
    const byDay = new Map<string, { date: string; seq: number; type: string; line: string }[]>();
    for (let round = 0; round < options.rounds; round += 1) {
      const store = await open();
      result.eventsPath.push(
        (
          await timed(async () => {
            await ingestDays(store.writer, days);
          })
        ).timing,
      );
      if (round === 0) {
        lines = await collect(store.events.lines());
        lines.forEach((line, index) => {
          const parsed = parseFeedLine(line, index + 1);
          if (!parsed.ok) throw new Error(parsed.reason);
          const { date, seq, type } = parsed.event;
          const group = byDay.get(date) ?? [];
          group.push({ date, seq, type, line });
          byDay.set(date, group);
        });
      }
      await store.close();

      const copy = await open();
      const linesPath = await timed(() =>
        ingestLines(
          copy.writer,
          (async function* () {
            for (let start = 0; start < lines.length; start += 1000) yield lines.slice(start, start + 1000);
          })(),
        ),
      );
      if (linesPath.result.added !== events) throw new Error(`ingestLines stored ${linesPath.result.added}`);
      result.linesPath.push(linesPath.timing);
      await copy.close();

      await bare.empty();
      result.bareDays.push(
        (
          await timed(async () => {
            for (const group of byDay.values()) await bare.load(group);
          })
        ).timing,
      );
      await bare.empty();
      const all = [...byDay.values()].flat();
      result.bareFile.push((await timed(() => bare.load(all))).timing);
    }

    let reopened = await open(schemas[0]);
    const last = dates.at(-1) ?? options.until;
    const query = {
      date: last,
      selection: { instrument: 'future', market: 'au_electricity' },
      from: '000000',
      to: '235959',
    } as const;
    const ticker = () => reopened.reader.ticker(query);
    const opened = await measure(ticker);
    await reopened.close();
    // As a running server meets it: its connection is open (it answered something else), the
    // ticker statement is not prepared on it yet and no answer is cached.
    reopened = await open(schemas[0]);
    await reopened.reader.version();
    const cold = await measure(ticker);
    const warm: number[] = [];
    for (let i = 0; i < 10; i += 1) warm.push((await measure(ticker)).timing.wallMs);
    await reopened.close();
    return {
      days: dates.length,
      events,
      ...result,
      openTickerMs: opened.timing.wallMs,
      coldTickerMs: cold.timing.wallMs,
      warmTickerMs: median(warm),
      serverTickerMs: await explainedMs(options.url, schemas[0] ?? '', tickerStatement(query)),
      tickerRows: cold.result.length,
    };
  } finally {
    await backends.close();
    await bare.drop();
    await dropSchemas(options.url, schemas);
  }
}

/**
 * CPU time of the server backends of one application_name, read from /proc: the server must
 * run on this machine (as the bench's does). cpu() answers undefined where it cannot be read.
 */
class Backends {
  private client: pg.Client | undefined;
  private readable = true;

  constructor(
    private readonly url: string,
    private readonly application: string,
  ) {}

  async cpu(): Promise<Map<number, number> | undefined> {
    if (!this.readable) return undefined;
    if (!this.client) {
      this.client = new pg.Client({ connectionString: this.url });
      await this.client.connect();
    }
    const found = await this.client.query<{ pid: number }>(
      'SELECT pid FROM pg_stat_activity WHERE application_name = $1',
      [this.application],
    );
    const cpu = new Map<number, number>();
    for (const { pid } of found.rows) {
      try {
        // utime and stime, fields 14 and 15, counted after the command name's closing bracket
        const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.split(' ') ?? [];
        cpu.set(pid, ((Number(fields[11]) + Number(fields[12])) * 1000) / CLOCK_TICKS);
      } catch {
        this.readable = false;
        return undefined;
      }
    }
    return cpu;
  }

  async close(): Promise<void> {
    await this.client?.end();
  }
}

/** getconf CLK_TCK on Linux. */
const CLOCK_TICKS = 100;

/** Planning and execution time the server reports for a statement, on a new connection. */
async function explainedMs(url: string, schema: string, statement: { text: string; values: unknown[] }) {
  const client = new pg.Client({ connectionString: url, options: `-c search_path=${schema}` });
  await client.connect();
  try {
    const result = await client.query(`EXPLAIN (ANALYZE, FORMAT JSON) ${statement.text}`, statement.values);
    const [plan] = result.rows[0]['QUERY PLAN'] as { 'Planning Time': number; 'Execution Time': number }[];
    return (plan?.['Planning Time'] ?? 0) + (plan?.['Execution Time'] ?? 0);
  } finally {
    await client.end();
  }
}

export function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1
    ? (sorted[middle] ?? 0)
    : ((sorted[middle - 1] ?? 0) + (sorted[middle] ?? 0)) / 2;
}

/** Issue 9's target: ingest at least this share of the bare COPY's rate. */
const INGEST_TARGET = 0.3;

/** The section of docs/benchmarks.md (run.ts writes it). */
export function postgresSection(
  machine: string,
  result: PostgresBenchResult,
  feed: { readonly seed: number; readonly until: string },
  /** The machine's cores, which the process and the server share. */
  cores = availableParallelism(),
): string {
  const wall = (timings: readonly Timing[]) => median(timings.map((timing) => timing.wallMs));
  const cpu = (timings: readonly Timing[]) => median(timings.map((timing) => timing.cpuMs));
  const rounds = (path: readonly Timing[], floor: readonly Timing[]) =>
    path
      .map((timing, index) => shownAgainst((floor[index]?.wallMs ?? 0) / timing.wallMs, INGEST_TARGET))
      .join(' / ');
  const serverCpu = (timings: readonly ServerTiming[]) =>
    timings.some((timing) => timing.serverCpuMs === undefined)
      ? undefined
      : median(timings.map((timing) => timing.serverCpuMs ?? 0));
  const work = (timings: readonly ServerTiming[]) => cpu(timings) + (serverCpu(timings) ?? 0);
  const row = (
    name: string,
    timings: readonly ServerTiming[],
    floor: readonly ServerTiming[],
    against: string,
  ) => {
    const server = serverCpu(timings);
    const cpuRatio = server === undefined ? 'n/a' : (work(floor) / work(timings)).toFixed(2);
    return `| ${name} | ${formatCount(Math.round(wall(timings)))} ms | ${formatCount(perSecond(result.events, wall(timings)))} | ${against} ${shownAgainst(wall(floor) / wall(timings), INGEST_TARGET)} (${rounds(timings, floor)}) | ${formatCount(Math.round(cpu(timings)))} + ${server === undefined ? 'n/a' : formatCount(Math.round(server))} ms | ${cpuRatio} |`;
  };
  const eventsRatio = wall(result.bareDays) / wall(result.eventsPath);
  const linesRatio = wall(result.bareFile) / wall(result.linesPath);
  const cpuRatio = (path: readonly ServerTiming[], floor: readonly ServerTiming[]) =>
    serverCpu(path) === undefined ? '' : `; by CPU ${(work(floor) / work(path)).toFixed(2)}`;
  /**
   * What the cores allow: a path's wall time cannot fall below its process's and server's CPU
   * together spread over every core, so against its bare COPY its ratio cannot rise above this.
   */
  const cap = (path: readonly ServerTiming[], floor: readonly ServerTiming[]) =>
    serverCpu(path) === undefined ? undefined : wall(floor) / (work(path) / cores);
  const daysCap = cap(result.eventsPath, result.bareDays);
  const linesCap = cap(result.linesPath, result.bareFile);
  const caps =
    daysCap === undefined || linesCap === undefined
      ? []
      : [
          '',
          `What ${cores} cores allow: a path's wall time cannot fall below its CPU, the process's and the server's together, over ${cores}; against its bare COPY, that caps \`ingestDays\` at ${daysCap.toFixed(2)} and \`ingestLines\` at ${linesCap.toFixed(2)} in this run, however well the two overlap.`,
        ];
  const met = (ratio: number) =>
    `${ratio >= INGEST_TARGET ? 'met' : 'NOT met'} (${shownAgainst(ratio, INGEST_TARGET)}`;
  return [
    '## PostgreSQL',
    '',
    `Measured ${new Date().toISOString().slice(0, 10)} on ${machine}, against the PostgreSQL server given with \`--pg\`.`,
    `${result.days} simulated trading days (seed ${feed.seed}, ending ${feed.until}), ${formatCount(result.events)} events, each store and bare table fresh and loaded on connections opened with it.`,
    `${result.eventsPath.length} rounds, each running every row once in this order; medians; rate ratios of the medians and, in brackets, of each round. CPU: the process's and the server backends' it used (from /proc), which a busy machine stretches far less than wall time; its ratio is the bare COPY's CPU over the path's.`,
    '',
    '| path | wall time | events/s | rate vs its bare COPY | CPU: process + server | CPU vs its bare COPY |',
    '|---|---:|---:|---:|---:|---:|',
    row(
      '`ingestDays`: one transaction a day, the next day validated while one commits (seed)',
      result.eventsPath,
      result.bareDays,
      'A:',
    ),
    row(
      '`ingestLines` of the export, one transaction (ingest of a file)',
      result.linesPath,
      result.bareFile,
      'B:',
    ),
    row(
      'A: the same lines COPYed into a bare `(date, seq, id, type, line)` table, a transaction a day',
      result.bareDays,
      result.bareDays,
      '',
    ),
    row(
      'B: the same lines COPYed into a bare table, one COPY and transaction',
      result.bareFile,
      result.bareFile,
      '',
    ),
    '',
    `Target: ingest at least ${INGEST_TARGET} of the bare COPY rate (wall): \`ingestDays\` ${met(eventsRatio)}${cpuRatio(result.eventsPath, result.bareDays)}), \`ingestLines\` ${met(linesRatio)}${cpuRatio(result.linesPath, result.bareFile)}).`,
    ...caps,
    '',
    `Full-day au_electricity futures ticker of the last day (${formatCount(result.tickerRows)} rows), not cached: ${result.coldTickerMs.toFixed(1)} ms the first time on a serving store (connection open, statement not yet prepared; target < 50 ms: ${result.coldTickerMs < 50 ? 'met' : 'NOT met'}); ${result.openTickerMs.toFixed(1)} ms as the very first request of a store just opened (connecting included); median of the next 10 calls ${result.warmTickerMs.toFixed(1)} ms; the server's own time (planning and execution, EXPLAIN ANALYZE on a new connection) ${result.serverTickerMs.toFixed(1)} ms.`,
    '',
    'Reproduce: `npm run bench -- --pg postgres://... --pg-only`.',
  ].join('\n');
}
