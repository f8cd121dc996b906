import { createWriteStream } from 'node:fs';
import { join } from 'node:path';
import { finished } from 'node:stream/promises';
import Database from 'better-sqlite3';
import { lastTradingDays } from '../domain/calendar.js';
import type { FeedEvent } from '../feed/events.js';
import { simulateHistory } from '../feed/simulator/simulator.js';
import { ingestEvents } from '../ingest/ingest-events.js';
import { ingestFile } from '../ingest/ingest-file.js';
import { openSqliteStore } from '../store/sqlite/open-sqlite-store.js';
import { databaseBytes, measure, removeDatabase, type Timing } from './measure.js';

export interface IngestBenchOptions {
  readonly days: number;
  readonly until: string;
  readonly seed: number;
  /** Scratch directory for the database and feed files. */
  readonly directory: string;
}

export interface IngestBenchResult {
  readonly days: number;
  readonly events: number;
  readonly simulate: Timing;
  /** ingestEvents per day (the simulator's and the live demo's path), one transaction a day. */
  readonly events_path: Timing;
  /** ingestFile of the exported NDJSON: parse + validate + append, one transaction. */
  readonly file_path: Timing;
  /** The same lines into a bare (date, seq, line) table: the floor for any SQLite event log here. */
  readonly baseline: Timing;
  readonly databaseBytes: number;
  readonly feedBytes: number;
}

/**
 * Ingest throughput of a simulated history into fresh SQLite files, through both ingest paths,
 * with a baseline measured in the same run so the numbers can be read as ratios on any machine.
 */
export async function benchIngest(options: IngestBenchOptions): Promise<IngestBenchResult> {
  const dates = lastTradingDays(options.days, options.until);
  const simulated = await measure(() => [...simulateHistory({ seed: options.seed }, dates)].map((day) => day.events));
  const days: FeedEvent[][] = simulated.result;
  const events = days.reduce((sum, day) => sum + day.length, 0);

  const eventsDb = join(options.directory, 'ingest-events.db');
  removeDatabase(eventsDb);
  const store = openSqliteStore(eventsDb);
  const eventsPath = await measure(() => {
    for (const day of days) ingestEvents(store.writer, day);
  });
  const feed = join(options.directory, 'ingest-feed.ndjson');
  const out = createWriteStream(feed);
  for (const line of store.events.lines()) {
    if (!out.write(`${line}\n`)) await new Promise((resolve) => out.once('drain', resolve));
  }
  out.end();
  await finished(out);
  store.close();
  const bytes = databaseBytes(eventsDb);

  const fileDb = join(options.directory, 'ingest-file.db');
  removeDatabase(fileDb);
  const fileStore = openSqliteStore(fileDb);
  const filePath = await measure(() => ingestFile(fileStore.writer, feed));
  fileStore.close();

  const baseline = await measureBaseline(options.directory, days);
  removeDatabase(eventsDb);
  removeDatabase(fileDb);
  return {
    days: dates.length,
    events,
    simulate: simulated.timing,
    events_path: eventsPath.timing,
    file_path: filePath.timing,
    baseline,
    databaseBytes: bytes,
    feedBytes: databaseBytes(feed),
  };
}

async function measureBaseline(directory: string, days: readonly FeedEvent[][]): Promise<Timing> {
  const path = join(directory, 'ingest-baseline.db');
  removeDatabase(path);
  const db = new Database(path);
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = NORMAL');
  db.exec('CREATE TABLE events (date INTEGER, seq INTEGER, line TEXT, PRIMARY KEY (date, seq)) WITHOUT ROWID');
  const insert = db.prepare('INSERT INTO events (date, seq, line) VALUES (?, ?, ?)');
  const lines = days.map((day) => day.map((event) => [Number(event.date), event.seq, JSON.stringify(event)] as const));
  const { timing } = await measure(() => {
    for (const day of lines) {
      db.transaction(() => {
        for (const [date, seq, line] of day) insert.run(date, seq, line);
      })();
    }
  });
  db.close();
  removeDatabase(path);
  return timing;
}
