import { PassThrough } from 'node:stream';
import { PROCESS_IO } from '../cli/cli-io.js';
import { seedStore } from '../cli/seed.js';

/**
 * Runs one seed in its own process so that its peak RSS is its own: argv = db, days, until,
 * seed. Prints one JSON line with the wall time, peak RSS and counts.
 */
const [db = '', days = '250', until = '', seed = '1'] = process.argv.slice(2);
const start = performance.now();
const result = await seedStore(
  { ...PROCESS_IO, stderr: new PassThrough() },
  { db, days: Number(days), until, seed: Number(seed) },
);
process.stdout.write(
  `${JSON.stringify({
    wallMs: performance.now() - start,
    maxRssBytes: process.resourceUsage().maxRSS * 1024,
    added: result.added,
    days: result.dates.length,
    first: result.dates[0],
    last: result.dates.at(-1),
  })}\n`,
);
