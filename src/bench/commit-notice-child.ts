import { createSimulator } from '../feed/simulator/simulator.js';
import { ingestEvents } from '../ingest/ingest-events.js';
import { openSqliteStore } from '../store/sqlite/open-sqlite-store.js';
import type { NoticeConfig } from './commit-notice.js';

/**
 * The writer of commit-notice.ts, in a process of its own: argv[2] is a NoticeConfig as JSON. It
 * appends `commits` batches of `events` events of a simulated day to the SQLite file, `everyMs`
 * apart, and sends after each commit the store's version and the instant (process.hrtime) it
 * returned.
 */
const config = JSON.parse(process.argv[2] ?? '{}') as NoticeConfig;
const store = openSqliteStore(config.db);
const day = createSimulator({ seed: 1 }).simulateDay(config.date);
let version = 0;
for (let commit = 0; commit < config.commits; commit += 1) {
  const batch = day.slice(commit * config.events, (commit + 1) * config.events);
  version += (await ingestEvents(store.writer, batch)).added;
  process.send?.({ version, atNs: String(process.hrtime.bigint()) });
  await new Promise((resolve) => setTimeout(resolve, config.everyMs));
}
await store.close();
process.disconnect?.();
