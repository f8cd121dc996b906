import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { databaseBytes, removeDatabase } from './measure.js';

export interface SeedBenchOptions {
  readonly days: number;
  readonly until: string;
  readonly seed: number;
  readonly directory: string;
}

export interface SeedBenchResult {
  readonly days: number;
  readonly first: string;
  readonly last: string;
  readonly events: number;
  readonly wallMs: number;
  readonly maxRssBytes: number;
  readonly databaseBytes: number;
}

/** `gridquote seed` of a long history in a child process: wall time, database size, peak RSS. */
export async function benchSeed(options: SeedBenchOptions): Promise<SeedBenchResult> {
  const db = join(options.directory, 'seed.db');
  removeDatabase(db);
  const child = fileURLToPath(new URL('./seed-child.js', import.meta.url));
  const { stdout } = await promisify(execFile)(
    process.execPath,
    [child, db, String(options.days), options.until, String(options.seed)],
    { maxBuffer: 1024 * 1024 },
  );
  const report = JSON.parse(stdout) as {
    wallMs: number;
    maxRssBytes: number;
    added: number;
    days: number;
    first: string;
    last: string;
  };
  const bytes = databaseBytes(db);
  removeDatabase(db);
  return {
    days: report.days,
    first: report.first,
    last: report.last,
    events: report.added,
    wallMs: report.wallMs,
    maxRssBytes: report.maxRssBytes,
    databaseBytes: bytes,
  };
}
