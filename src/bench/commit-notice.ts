import { fork } from 'node:child_process';
import { once } from 'node:events';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { openSqliteStore } from '../store/sqlite/open-sqlite-store.js';
import { LatencyHistogram, nowNs, nsToMs } from './latency-histogram.js';
import { removeDatabase } from './measure.js';

/** The writer's orders (commit-notice-child.ts). */
export interface NoticeConfig {
  readonly db: string;
  /** The simulated trading day whose events are written. */
  readonly date: string;
  readonly commits: number;
  /** Events per commit. */
  readonly events: number;
  readonly everyMs: number;
}

export interface NoticeResult {
  readonly commits: number;
  readonly events: number;
  readonly everyMs: number;
  /** Commits whose notice never came. */
  readonly missed: number;
  readonly p50Ms: number;
  readonly p99Ms: number;
  readonly maxMs: number;
}

/** What the writer sends after each commit. */
interface Committed {
  readonly version: number;
  readonly atNs: string;
}

/**
 * How soon a SQLite store hears a commit made by another process (open-sqlite-store.ts watches
 * its WAL file, and polls as the fallback): a child appends `commits` small batches to a fresh
 * file, this process listens on its own store of the file, and each commit's delay is the first
 * notice reaching its version, less the instant the writer's append returned (both on the
 * machine's monotonic clock). A notice that came before that return counts as 0.
 */
export async function measureCommitNotices(
  directory: string,
  date: string,
  commits = 200,
  events = 20,
  everyMs = 20,
): Promise<NoticeResult> {
  const db = join(directory, 'commit-notice.db');
  removeDatabase(db);
  await openSqliteStore(db).close(); // created and migrated before anyone listens
  const store = openSqliteStore(db, { readonly: true });
  const heard: { readonly version: number; readonly atNs: bigint }[] = [];
  const stop = store.onAppend((notice) => heard.push({ version: notice.version, atNs: nowNs() }));
  const committed: Committed[] = [];
  try {
    const config: NoticeConfig = { db, date, commits, events, everyMs };
    const child = fork(
      fileURLToPath(new URL('./commit-notice-child.js', import.meta.url)),
      [JSON.stringify(config)],
      { execArgv: [], stdio: ['ignore', 'inherit', 'inherit', 'ipc'] },
    );
    child.on('message', (message: Committed) => committed.push(message));
    const [code] = await once(child, 'exit');
    if (code !== 0) throw new Error(`the commit notice writer exited with code ${code}`);
    // The last commit's notice, even by the fallback poll.
    await new Promise((resolve) => setTimeout(resolve, 300));
  } finally {
    stop();
    await store.close();
    removeDatabase(db);
  }
  const histogram = new LatencyHistogram();
  let missed = 0;
  for (const commit of committed) {
    const notice = heard.find((one) => one.version >= commit.version);
    if (notice === undefined) missed += 1;
    else histogram.add(Math.max(0, nsToMs(notice.atNs - BigInt(commit.atNs))));
  }
  return {
    commits: committed.length,
    events,
    everyMs,
    missed,
    p50Ms: histogram.percentile(50),
    p99Ms: histogram.percentile(99),
    maxMs: histogram.max,
  };
}
