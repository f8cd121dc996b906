import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { availableParallelism, cpus, loadavg } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { DEFAULT_CLUSTER } from '../cli/cluster.js';
import { benchCluster, type ClusterBenchResult } from './cluster-bench.js';
import { benchHttp, HTTP_FLAGS, httpOptions } from './http-bench.js';
import { httpSection } from './http-report.js';
import { benchIngest, type IngestBenchResult } from './ingest-bench.js';
import { benchLivePollers, livePollersSection } from './live-bench.js';
import { formatCount, formatMiB, perSecond } from './measure.js';
import { benchPostgres, postgresSection } from './postgres-bench.js';
import { benchSeed, type SeedBenchResult } from './seed-bench.js';
import { benchStreams, streamSection } from './stream-bench.js';

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

/** The live flags, for --help (the cases are separate from the HTTP benchmark's). */
const LIVE_FLAGS = [
  ['--live-only', 'only the many-pollers case (wrk + commit-to-answer probe on the live demo)'],
  ['--no-live', 'skip the many-pollers case'],
  ['--live-connections N', 'kept-alive wrk connections of the many-pollers case (default 2000)'],
  ['--live-duration S', 'seconds of each paced run (default 30; a closed loop runs at most 10)'],
  ['--live-poll MS', 'each paced poller asks every MS on average (default 500)'],
  ['--live-speed N', 'replay speed of the live exchange (default 120: a day lasts about 3 minutes)'],
  ['--live-tick MS', 'how often its live exchange commits a batch (default 50)'],
  ['--stream-only', 'only the stream latency case (SSE subscribers in client processes on the live demo)'],
  ['--no-stream', 'skip the stream latency case'],
  ['--stream-counts N,M', 'subscriber counts to measure, the first the reference (default 100,1000)'],
  ['--stream-duration S', 'seconds measured per count (default 10)'],
  ['--stream-clients N', 'client processes opening the streams (default 4)'],
  ['--stream-catchup N', 'events of the live day stored before the streams connect (default 1500)'],
  [
    '--stream-workers N',
    "also the largest count on `serve --workers N` beside the demo's exchange (default: the cores; 1 skips it)",
  ],
] as const;

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
  '  --cluster            also the distributed topology (NATS -> ingest -> PostgreSQL -> replicas, Redis limits)',
  `  --cluster-pg URL     its PostgreSQL database, where it may create a schema (default ${DEFAULT_CLUSTER.db})`,
  `  --cluster-nats URL   its NATS server with JetStream (default ${DEFAULT_CLUSTER.nats})`,
  `  --cluster-redis URL  its Redis (default ${DEFAULT_CLUSTER.redis})`,
  '  --cluster-only       only the distributed topology benchmark',
  ...HTTP_FLAGS.map(([name, text]) => `  ${name.padEnd(20)} ${text}`),
  ...LIVE_FLAGS.map(([name, text]) => `  ${name.padEnd(20)} ${text}`),
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
  if (process.argv.includes('--cluster') || process.argv.includes('--cluster-only')) {
    await cluster();
    if (process.argv.includes('--cluster-only')) return;
  }
  const pgIndex = process.argv.indexOf('--pg');
  if (pgIndex >= 0) {
    await postgres(process.argv[pgIndex + 1] ?? '');
    if (process.argv.includes('--pg-only')) return;
  }
  const liveOnly = process.argv.includes('--live-only');
  const streamOnly = process.argv.includes('--stream-only');
  if (liveOnly || streamOnly) {
    if (liveOnly) await livePollers();
    if (streamOnly) await streamLatency();
    return;
  }
  const httpOnly = process.argv.includes('--http-only');
  if (!httpOnly) await ingestAndSeed();
  if (!process.argv.includes('--no-http')) {
    // Its own cache directory: the seeded history is kept between runs (SCRATCH is not).
    const options = httpOptions(process.argv, join(ROOT, '.bench-tmp', 'http'), UNTIL, SEED);
    const section = httpSection(await benchHttp(options));
    process.stderr.write(`${section}\n`);
    writeSection('http', section);
    process.stderr.write(`bench: wrote ${DOC}\n`);
  }
  if (httpOnly) return;
  if (!process.argv.includes('--no-live')) await livePollers();
  if (!process.argv.includes('--no-stream')) await streamLatency();
}

async function streamLatency(): Promise<void> {
  const directory = join(ROOT, '.bench-tmp', 'stream');
  mkdirSync(directory, { recursive: true });
  const countsIndex = process.argv.indexOf('--stream-counts');
  const streams = (countsIndex >= 0 ? (process.argv[countsIndex + 1] ?? '') : '100,1000')
    .split(',')
    .map(Number);
  if (streams.some((count) => !Number.isInteger(count) || count < 1)) {
    throw new Error('--stream-counts needs whole numbers >= 1, separated by commas');
  }
  const result = await benchStreams({
    directory,
    until: UNTIL,
    seed: SEED,
    streams,
    seconds: flag('--stream-duration', 10),
    clients: flag('--stream-clients', 4),
    speed: flag('--live-speed', 120),
    tickMs: flag('--live-tick', 50),
    catchUpEvents: flag('--stream-catchup', 1_500),
    serveWorkers: flag('--stream-workers', availableParallelism()),
  });
  const section = streamSection(result);
  process.stderr.write(`${section}\n`);
  writeSection('stream', section);
  process.stderr.write(`bench: wrote ${DOC}\n`);
}

async function livePollers(): Promise<void> {
  const directory = join(ROOT, '.bench-tmp', 'live');
  mkdirSync(directory, { recursive: true });
  const result = await benchLivePollers({
    directory,
    until: UNTIL,
    seed: SEED,
    connections: flag('--live-connections', 2_000),
    seconds: flag('--live-duration', 30),
    speed: flag('--live-speed', 120),
    tickMs: flag('--live-tick', 50),
    pollMs: flag('--live-poll', 500),
  });
  const section = livePollersSection(result);
  process.stderr.write(`${section}\n`);
  writeSection('live', section);
  process.stderr.write(`bench: wrote ${DOC}\n`);
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

function text(name: string, fallback: string): string {
  const index = process.argv.indexOf(name);
  return index >= 0 ? (process.argv[index + 1] ?? fallback) : fallback;
}

async function cluster(): Promise<void> {
  const options = {
    pg: text('--cluster-pg', DEFAULT_CLUSTER.db),
    nats: text('--cluster-nats', DEFAULT_CLUSTER.nats),
    redis: text('--cluster-redis', DEFAULT_CLUSTER.redis),
  };
  const result = await benchCluster({
    ...options,
    until: UNTIL,
    seed: SEED,
    historyDays: 2,
    streamDays: 3,
    latencySamples: 60,
    connections: 16,
    seconds: 10,
    scratch: join(ROOT, '.bench-tmp', 'cluster'),
    log: (line) => process.stderr.write(`${line}\n`),
  });
  const machine = `${cpus()[0]?.model ?? 'unknown CPU'} x ${cpus().length}, Node ${process.version}`;
  const section = clusterSection(machine, result);
  process.stderr.write(`${section}\n`);
  writeSection('cluster', section);
}

function clusterSection(machine: string, result: ClusterBenchResult): string {
  const ms = (value: number) => `${value.toFixed(1)} ms`;
  const row = (name: string, run: ClusterBenchResult['one']) =>
    `| ${name} | ${formatCount(Math.round(run.load.requestsPerSecond))} | ${ms(run.load.p50Ms)} | ${ms(run.load.p99Ms)} | ${Math.round(run.cpuPerAnswerUs)} µs | ${Math.round(run.frontCpuPerAnswerUs)} µs |`;
  const { latency } = result;
  return [
    '## Distributed topology',
    '',
    `Measured ${new Date().toISOString().slice(0, 16).replace('T', ' ')} UTC on ${machine}; load average ${result.loadBefore.toFixed(2)} at start, ${result.loadAfter.toFixed(2)} at the end.`,
    'The machine is shared with other work (PostgreSQL, NATS, Redis, the replicas, wrk and the front all on its cores): the',
    'absolute figures are noisy; the ratios within this run are the ones to read.',
    '',
    `**Ingest from the stream.** ${formatCount(result.streamEvents)} events (3 simulated trading days) published to JetStream first`,
    `(${formatCount(perSecond(result.streamEvents, result.publishSeconds * 1000))} events/s acknowledged), then one \`gridquote ingest --from\` worker`,
    `stored them into PostgreSQL at **${formatCount(perSecond(result.streamEvents, result.ingestSeconds * 1000))} events/s** (${result.ingestSeconds.toFixed(1)} s from its start line to the last commit).`,
    `Baseline in the same run: the same days stored in process (\`ingestEvents\`, a transaction a day, as the demo and seed do) at`,
    `${formatCount(perSecond(result.streamEvents, result.directSeconds * 1000))} events/s: the stream path runs at ${(result.directSeconds / result.ingestSeconds).toFixed(2)} of it (batches of at most 2048 messages, each a transaction, acked after commit).`,
    '',
    `**Publish to visible.** ${latency.samples} observations (${latency.samples / 2} au_electricity futures trades, each published alone after the`,
    "events before it were stored, on both replicas), from the publish call to the replica's `/api/intraday` answer",
    `changing: **p50 ${ms(latency.p50Ms)}, p99 ${ms(latency.p99Ms)}** (max ${ms(latency.maxMs)}; ${latency.missed} not seen within 3 s).`,
    "The path: JetStream, the worker's batch (it waits 5 ms for more), the PostgreSQL commit and its NOTIFY, the replica",
    'reading the changed days, its next answer computed afresh; the poll itself costs about a request. Over the same',
    `samples the worker's batches took ${ms(result.batchMeanMs)} on average (\`gridquote_ingest_batch_seconds\`) and the replicas read a`,
    `commit ${ms(result.noticeMeanMs)} after its notice on average (\`gridquote_store_notice_delay_seconds\`).`,
    '',
    '**Two replicas against one**, behind the same round-robin front (`src/cli/round-robin-front.ts`, in the benchmark',
    `process), wrk in its own process (1 thread, ${result.one.load.seconds.toFixed(0)} s, 16 connections), a key whose every request is counted in Redis; the cached`,
    'intraday snapshot and a cached trade log in turn:',
    '',
    "| replicas | req/s | p50 | p99 | replicas' CPU per answer | front CPU per answer |",
    '|---|---:|---:|---:|---:|---:|',
    row('one', result.one),
    row('two', result.two),
    '',
    `Two replicas served ${(result.two.load.requestsPerSecond / result.one.load.requestsPerSecond).toFixed(2)} times the requests of one, at ${(result.two.cpuPerAnswerUs / result.one.cpuPerAnswerUs).toFixed(2)} times the CPU per answer.`,
    '',
    'Reproduce: `npm run bench -- --cluster-only` (services at the defaults of `gridquote cluster`, or `--cluster-pg`,',
    '`--cluster-nats`, `--cluster-redis`).',
  ].join('\n');
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
