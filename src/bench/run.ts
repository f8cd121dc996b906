import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { benchHttp, HTTP_FLAGS, httpOptions } from './http-bench.js';
import { httpSection } from './http-report.js';
import { benchIngest, type IngestBenchResult } from './ingest-bench.js';
import { formatCount, formatMiB, perSecond } from './measure.js';
import { benchPostgres, postgresSection } from './postgres-bench.js';
import { benchSeed, type SeedBenchResult } from './seed-bench.js';

/**
 * `npm run bench`: runs the benchmarks in sequence and rewrites their sections of
 * docs/benchmarks.md (other sections are kept). `--help` lists the flags (USAGE).
 */

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const DOC = join(ROOT, 'docs', 'benchmarks.md');
const SCRATCH = join(ROOT, '.bench-tmp', 'run');
const UNTIL = '20250221';
const SEED = 1;
const TARGET_EVENTS_PER_SECOND = 100_000;

const USAGE = [
  'Usage: npm run bench -- [flags]   (or: node --expose-gc .bench-build/bench/run.js [flags], after npm run bench has built it)',
  '',
  'Runs the benchmarks and rewrites their sections of docs/benchmarks.md (text outside them is kept).',
  '',
  '  --help               this text; runs nothing',
  '  --ingest-days N      simulated days of the ingest benchmark (default 20)',
  '  --seed-days N        trading days of the seed benchmark (default 250)',
  '  --no-seed            skip the seed benchmark',
  '  --no-http            skip the HTTP benchmark',
  '  --http-only          only the HTTP benchmark (needs wrk; installed when root, else it says how)',
  '  --pg URL             also the PostgreSQL benchmark, on a database it may create schemas in',
  '  --pg-days N          trading days of the PostgreSQL benchmark (default 10)',
  '  --pg-rounds N        rounds of each PostgreSQL ingest path and baseline (default 3)',
  '  --pg-only            only the PostgreSQL benchmark (with --pg)',
  ...HTTP_FLAGS.map(([name, text]) => `  ${name.padEnd(20)} ${text}`),
  '',
].join('\n');

function flag(name: string, fallback: number): number {
  const index = process.argv.indexOf(name);
  const value = index >= 0 ? Number(process.argv[index + 1]) : fallback;
  if (!Number.isInteger(value) || value < 1) throw new Error(`${name} needs a positive whole number`);
  return value;
}

async function main(): Promise<void> {
  if (process.argv.includes('--help') || process.argv.includes('-h')) {
    process.stdout.write(USAGE);
    return;
  }
  const pgIndex = process.argv.indexOf('--pg');
  if (pgIndex >= 0) {
    await postgres(process.argv[pgIndex + 1] ?? '');
    if (process.argv.includes('--pg-only')) return;
  }
  if (!process.argv.includes('--http-only')) await ingestAndSeed();
  if (!process.argv.includes('--no-http')) {
    // Its own cache directory: the seeded history is kept between runs (SCRATCH is not).
    const options = httpOptions(process.argv, join(ROOT, '.bench-tmp', 'http'), UNTIL, SEED);
    const section = httpSection(await benchHttp(options));
    process.stderr.write(`${section}\n`);
    writeSection('http', section);
    process.stderr.write(`bench: wrote ${DOC}\n`);
  }
}

async function ingestAndSeed(): Promise<void> {
  const ingestDays = flag('--ingest-days', 20);
  const seedDays = flag('--seed-days', 250);
  const withSeed = !process.argv.includes('--no-seed');
  mkdirSync(SCRATCH, { recursive: true });
  const load = loadavg()[0] ?? 0;
  const machine = `${cpus()[0]?.model ?? 'unknown CPU'} x ${cpus().length}, Node ${process.version}, load average ${load.toFixed(2)} at start`;
  process.stderr.write(`bench: ingest of ${ingestDays} simulated days ...\n`);
  const ingest = await benchIngest({ days: ingestDays, until: UNTIL, seed: SEED, directory: SCRATCH });
  process.stderr.write(`${ingestTable(ingest)}\n`);
  let seed: SeedBenchResult | undefined;
  if (withSeed) {
    process.stderr.write(`bench: seed of ${seedDays} trading days (a few minutes) ...\n`);
    seed = await benchSeed({ days: seedDays, until: UNTIL, seed: SEED, directory: SCRATCH });
    process.stderr.write(`${seedTable(seed)}\n`);
  }
  rmSync(SCRATCH, { recursive: true, force: true });
  writeSection('ingest', ingestSection(machine, ingest, seed));
  process.stderr.write(`bench: wrote ${DOC}\n`);
}

async function postgres(url: string): Promise<void> {
  if (!/^postgres(ql)?:\/\//.test(url)) throw new Error('--pg needs a postgres:// URL');
  const days = flag('--pg-days', 10);
  const load = loadavg()[0] ?? 0;
  process.stderr.write(`bench: PostgreSQL, ${days} simulated days ...\n`);
  const rounds = flag('--pg-rounds', 3);
  const result = await benchPostgres({ url, days, until: UNTIL, seed: SEED, rounds });
  const end = loadavg()[0] ?? 0;
  const machine = `${cpus()[0]?.model ?? 'unknown CPU'} x ${cpus().length}, Node ${process.version}, load average ${load.toFixed(2)} at start and ${end.toFixed(2)} at the end`;
  const section = postgresSection(machine, result, { seed: SEED, until: UNTIL });
  process.stderr.write(`${section}\n`);
  writeSection('postgres', section);
}

function ingestTable(result: IngestBenchResult): string {
  const row = (name: string, timing: { wallMs: number; cpuMs: number }) => {
    const ratio = timing.wallMs / result.baseline.wallMs;
    return `| ${name} | ${formatCount(Math.round(timing.wallMs))} ms | ${formatCount(perSecond(result.events, timing.wallMs))} | ${formatCount(perSecond(result.events, timing.cpuMs))} | ${ratio.toFixed(2)} x |`;
  };
  return [
    '| path | wall time | events/s (wall) | events/s (CPU) | time vs baseline |',
    '|---|---:|---:|---:|---:|',
    row('`ingestEvents` day by day, one transaction a day (seed, live demo)', result.eventsPath),
    row('`ingestFile` of the NDJSON export, one transaction', result.filePath),
    row(
      'baseline: the same lines into a bare `(date, seq, line)` table, a transaction a day',
      result.baseline,
    ),
  ].join('\n');
}

function seedTable(result: SeedBenchResult): string {
  return [
    '| trading days | dates | events | wall time | database size | peak RSS |',
    '|---:|---|---:|---:|---:|---:|',
    `| ${result.days} | ${result.first}..${result.last} | ${formatCount(result.events)} | ${(result.wallMs / 1000).toFixed(1)} s | ${formatMiB(result.databaseBytes)} | ${formatMiB(result.maxRssBytes)} |`,
  ].join('\n');
}

function ingestSection(
  machine: string,
  ingest: IngestBenchResult,
  seed: SeedBenchResult | undefined,
): string {
  // Both paths count: a live feed arrives as events, a backfill as a file.
  const paths = [
    ['`ingestEvents`', perSecond(ingest.events, ingest.eventsPath.wallMs)],
    ['`ingestFile`', perSecond(ingest.events, ingest.filePath.wallMs)],
  ] as const;
  const verdicts = paths
    .map(
      ([name, rate]) =>
        `${name} ${rate >= TARGET_EVENTS_PER_SECOND ? 'met' : 'NOT met'} (${formatCount(rate)})`,
    )
    .join(', ');
  return [
    '## Ingest and seed',
    '',
    `Measured ${new Date().toISOString().slice(0, 10)} on ${machine}. Seed ${SEED}, histories ending ${UNTIL}.`,
    'events/s (CPU) divides by the process CPU time, all threads (GC helpers) included: well above the wall',
    'figure means the process waited (for a busy CPU or the disk); below it, GC threads worked in parallel.',
    '',
    `### Ingest: ${ingest.days} simulated trading days, ${formatCount(ingest.events)} events, into a fresh SQLite file`,
    '',
    `Simulating them took ${formatCount(Math.round(ingest.simulate.wallMs))} ms (not counted). Feed ${formatMiB(ingest.feedBytes)}, database ${formatMiB(ingest.databaseBytes)}.`,
    '',
    ingestTable(ingest),
    '',
    `Target >= ${formatCount(TARGET_EVENTS_PER_SECOND)} events/s (wall): ${verdicts}.`,
    '',
    ...(seed
      ? [
          `### Seed: \`gridquote seed --days ${seed.days} --until ${UNTIL}\` (simulation included, one transaction per day)`,
          '',
          seedTable(seed),
          '',
        ]
      : []),
    'Reproduce: `npm run bench` (or `npm run bench -- --ingest-days 20 --seed-days 250 --no-http`).',
  ].join('\n');
}

/** Replaces the named section between its markers, or appends it; other sections stay. */
function writeSection(name: string, body: string): void {
  const start = `<!-- bench:${name}:start -->`;
  const end = `<!-- bench:${name}:end -->`;
  const block = `${start}\n${body}\n${end}`;
  let text = existsSync(DOC)
    ? readFileSync(DOC, 'utf8')
    : '# Benchmarks\n\n`npm run bench` runs every benchmark and rewrites its section below (text outside the\n' +
      'marked sections is kept).\n';
  const from = text.indexOf(start);
  const to = text.indexOf(end);
  if (from >= 0 && to > from) text = `${text.slice(0, from)}${block}${text.slice(to + end.length)}`;
  else text = `${text.trimEnd()}\n\n${block}\n`;
  writeFileSync(DOC, text);
}

await main();
