import { once } from 'node:events';
import { createWriteStream, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { finished } from 'node:stream/promises';
import Database from 'better-sqlite3';
import { lastTradingDays } from '../domain/calendar.js';
import { createSimulator } from '../feed/simulator/simulator.js';
import { ingestEvents } from '../ingest/ingest-events.js';
import { ingestFile } from '../ingest/ingest-file.js';
import { openStore } from '../store/open-store.js';
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
  readonly eventsPath: Timing;
  /** ingestFile of the exported NDJSON: parse + validate + append, one transaction. */
  readonly filePath: Timing;
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
  const eventsDb = join(options.directory, 'ingest-events.db');
  removeDatabase(eventsDb);
  const store = await openStore(eventsDb, { access: 'write', create: true });
  // Day by day, as seeding does: simulate (not timed), then ingest (timed).
  const simulator = createSimulator({ seed: options.seed });
  let simulate: Timing = { wallMs: 0, cpuMs: 0 };
  let eventsPath: Timing = { wallMs: 0, cpuMs: 0 };
  let events = 0;
  for (const date of dates) {
    const day = await measure(() => simulator.simulateDay(date));
    const ingest = await measure(() => ingestEvents(store.writer, day.result));
    simulate = add(simulate, day.timing);
    eventsPath = add(eventsPath, ingest.timing);
    events += day.result.length;
  }
  const feed = join(options.directory, 'ingest-feed.ndjson');
  const out = createWriteStream(feed);
  for await (const line of store.events.lines()) {
    if (!out.write(`${line}\n`)) await once(out, 'drain');
  }
  out.end();
  await finished(out);
  await store.close();
  const bytes = databaseBytes(eventsDb);

  const fileDb = join(options.directory, 'ingest-file.db');
  removeDatabase(fileDb);
  const fileStore = await openStore(fileDb, { access: 'write', create: true });
  const filePath = await measure(() => ingestFile(fileStore.writer, feed));
  await fileStore.close();

  const baseline = await measureBaseline(options.directory, feed);
  removeDatabase(eventsDb);
  removeDatabase(fileDb);
  return {
    days: dates.length,
    events,
    simulate,
    eventsPath,
    filePath: filePath.timing,
    baseline,
    databaseBytes: bytes,
    feedBytes: databaseBytes(feed),
  };
}

function add(a: Timing, b: Timing): Timing {
  return { wallMs: a.wallMs + b.wallMs, cpuMs: a.cpuMs + b.cpuMs };
}

/** The one place outside store/sqlite that touches the driver: a measuring stick, not a layer. */
async function measureBaseline(directory: string, feed: string): Promise<Timing> {
  const path = join(directory, 'ingest-baseline.db');
  removeDatabase(path);
  const db = new Database(path);
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = NORMAL');
  db.exec(
    'CREATE TABLE events (date INTEGER, seq INTEGER, line TEXT, PRIMARY KEY (date, seq)) WITHOUT ROWID',
  );
  const insert = db.prepare('INSERT INTO events (date, seq, line) VALUES (?, ?, ?)');
  // The canonical lines, grouped by date for one transaction a day, read before timing.
  const days = new Map<number, [number, number, string][]>();
  for (const line of readFileSync(feed, 'utf8').split('\n')) {
    if (line === '') continue;
    const { date, seq } = JSON.parse(line) as { date: string; seq: number };
    const rows = days.get(Number(date)) ?? [];
    rows.push([Number(date), seq, line]);
    days.set(Number(date), rows);
  }
  const { timing } = await measure(() => {
    for (const rows of days.values()) {
      db.transaction(() => {
        for (const [date, seq, line] of rows) insert.run(date, seq, line);
      })();
    }
  });
  db.close();
  removeDatabase(path);
  return timing;
}
