import { lastTradingDays } from '../domain/calendar.js';
import type { FeedEvent } from '../feed/events.js';
import { parseFeedLine } from '../feed/ndjson.js';
import { createSimulator } from '../feed/simulator/simulator.js';
import { ingestEvents } from '../ingest/ingest-events.js';
import { ingestLines } from '../ingest/ingest-lines.js';
import { bareCopyTable } from '../store/postgres/bare-copy.js';
import { dropSchemas } from '../store/postgres/drop-schemas.js';
import { openPostgresStore } from '../store/postgres/open-postgres-store.js';
import type { MarketStore } from '../store/store.js';
import { collect } from '../store/store-contract.js';
import { measure, type Timing } from './measure.js';

export interface PostgresBenchOptions {
  readonly url: string;
  readonly days: number;
  readonly until: string;
  readonly seed: number;
}

export interface PostgresBenchResult {
  readonly days: number;
  readonly events: number;
  /** ingestEvents day by day, one transaction a day (seed, live demo). */
  readonly eventsPath: Timing;
  /** ingestLines of the export, one transaction (ingest of a file). */
  readonly linesPath: Timing;
  /** The same lines COPYed into a bare table, one COPY and transaction a day. */
  readonly baseline: Timing;
  /** The whole last day's au_electricity futures ticker: first call on a newly opened store. */
  readonly openTickerMs: number;
  /** The same on a store serving already (a connection open), first time asked: not yet prepared. */
  readonly coldTickerMs: number;
  /** The same, median of 10 calls after it. */
  readonly warmTickerMs: number;
  readonly tickerRows: number;
}

/**
 * Ingest into PostgreSQL against a bare COPY of the same lines in the same run (so the ratio
 * reads the same on any machine), and the full-day market ticker from a store just opened.
 * Every store goes in a schema of its own, dropped at the end.
 */
export async function benchPostgres(options: PostgresBenchOptions): Promise<PostgresBenchResult> {
  const dates = lastTradingDays(options.days, options.until);
  const simulator = createSimulator({ seed: options.seed });
  const days: FeedEvent[][] = dates.map((date) => simulator.simulateDay(date));
  const events = days.reduce((sum, day) => sum + day.length, 0);
  const schemas: string[] = [];
  const open = async (reuse?: string): Promise<MarketStore> => {
    const schema = reuse ?? `gq_bench_${Math.random().toString(36).slice(2, 10)}`;
    if (!reuse) schemas.push(schema);
    return openPostgresStore(options.url, { schema, migrate: true });
  };
  const bare = await bareCopyTable(options.url);
  try {
    const store = await open();
    const eventsPath = await measure(async () => {
      for (const day of days) await ingestEvents(store.writer, day);
    });
    const lines = await collect(store.events.lines());
    await store.close();

    const copy = await open();
    const linesPath = await measure(() =>
      ingestLines(
        copy.writer,
        (async function* () {
          for (let start = 0; start < lines.length; start += 1000) yield lines.slice(start, start + 1000);
        })(),
      ),
    );
    await copy.close();

    const byDay = new Map<string, { date: string; seq: number; type: string; line: string }[]>();
    lines.forEach((line, index) => {
      const parsed = parseFeedLine(line, index + 1);
      if (!parsed.ok) throw new Error(parsed.reason);
      const { date, seq, type } = parsed.event;
      const group = byDay.get(date) ?? [];
      group.push({ date, seq, type, line });
      byDay.set(date, group);
    });
    const baseline = await measure(async () => {
      for (const group of byDay.values()) await bare.load(group);
    });

    let reopened = await open(schemas[0]);
    const last = dates.at(-1) ?? options.until;
    const ticker = () =>
      reopened.reader.ticker({
        date: last,
        selection: { instrument: 'future', market: 'au_electricity' },
        from: '000000',
        to: '235959',
      });
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
    warm.sort((a, b) => a - b);
    return {
      days: dates.length,
      events,
      eventsPath: eventsPath.timing,
      linesPath: linesPath.timing,
      baseline: baseline.timing,
      openTickerMs: opened.timing.wallMs,
      coldTickerMs: cold.timing.wallMs,
      warmTickerMs: warm[5] ?? 0,
      tickerRows: cold.result.length,
    };
  } finally {
    await bare.drop();
    await dropSchemas(options.url, schemas);
  }
}
