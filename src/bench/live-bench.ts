import { rmSync, writeFileSync } from 'node:fs';
import { Agent, request } from 'node:http';
import { cpus, loadavg } from 'node:os';
import { join } from 'node:path';
import { baselineConfig } from './http-bench.js';
import {
  type BaselineConfig,
  type Child,
  type CommitMessage,
  isCommit,
  startChild,
  startLiveChild,
} from './http-child.js';
import { fetchOnce } from './http-load.js';
import { LatencyHistogram, noticeLatency, nowNs, nsToMs } from './latency-histogram.js';
import { formatCount, removeDatabase, shownAgainst } from './measure.js';
import { processTreeCpuMicros } from './process-cpu.js';
import { ensureWrk, type LoadRun, type LoadTarget, runWrk } from './wrk.js';

/**
 * Many pollers, live (issue 10, item 4): thousands of kept-alive connections (wrk, a process of
 * its own) polling the market's live intraday snapshot and trades while the demo's exchange
 * ingests, and two probe connections (this process) polling the same answers to time each
 * commit's first appearance in an answer. The server child reports each batch's commit instant
 * on process.hrtime's monotonic clock, which this process reads too; a current-day answer's
 * ETag carries the store version it was computed at, so an answer shows commit V when its
 * version is V or later. Each variant of the server is a fresh demo on the same history; the
 * baseline is a bare node:http server sending one snapshot's bytes at the same connections.
 */

export interface LiveBenchOptions {
  readonly directory: string;
  readonly until: string;
  readonly seed: number;
  /** Seconds of each paced run (the targets'); a closed loop runs at most CLOSED_SECONDS. */
  readonly seconds: number;
  readonly connections: number;
  /** Virtual seconds per real second of the live exchange. */
  readonly speed: number;
  /** How often the live exchange commits a batch, ms. */
  readonly tickMs: number;
  /** Each poller asks on average this often, ms (the paced runs). */
  readonly pollMs: number;
}

/** Paced pollers (what desk applications do), or every connection asking again at once (saturation). */
export type LoadMode = 'paced' | 'closed';

export interface ProbeResult {
  readonly path: string;
  readonly answers: number;
  /** Commit to first answer showing it, ms. */
  readonly p50Ms: number;
  readonly p99Ms: number;
  readonly maxMs: number;
  readonly commits: number;
  /** Commits of the window that no answer showed before the run ended. */
  readonly unseen: number;
}

export interface LiveVariant {
  readonly label: string;
  readonly mode: LoadMode;
  readonly load: LoadRun;
  /** Server CPU (every thread: the ingest or the checkpoint thread too) per poller answer, µs. */
  readonly cpuUs: number;
  /** The same CPU per answer of any client, the probes' (mostly 304s) counted too, µs. */
  readonly cpuUsAllAnswers: number;
  readonly probes: readonly ProbeResult[];
  /** Answers the probes received during the load run (most of them 304s). */
  readonly probeAnswers: number;
  /** Events and batches committed during the run. */
  readonly events: number;
  readonly batches: number;
  /** Commit to the serving thread's notice, p50 and p99: ms. */
  readonly noticeP50Ms: number;
  readonly noticeP99Ms: number;
}

/** The bare server under the same loads and probes: its "commits" move a counter and nothing else. */
export interface LiveBaseline extends Pick<ProbedRun, 'load' | 'cpuUs' | 'cpuUsAllAnswers' | 'probes'> {
  readonly mode: LoadMode;
}

export interface LiveBenchResult {
  readonly machine: string;
  readonly options: LiveBenchOptions;
  readonly loadAverages: readonly number[];
  readonly baselines: readonly LiveBaseline[];
  readonly baselineBytes: number;
  readonly variants: readonly LiveVariant[];
}

const MARKET = 'au_electricity';
const HISTORY_DAYS = 10;
const PATHS = [`/api/intraday?futures=${MARKET}`, `/api/trades?market=${MARKET}`];
/** Connections first open and the server warms up: commits before this are not counted. */
const SETTLE_MS = 1_500;
const WARMUP_SECONDS = 3;
/**
 * The closed loop measures throughput, which a few seconds settle; run longer, the 2,000
 * connections queued behind each other only pile up the generator's timeouts.
 */
const CLOSED_SECONDS = 10;

export async function benchLivePollers(options: LiveBenchOptions): Promise<LiveBenchResult> {
  ensureWrk(progress);
  const loadAverages = [loadavg()[0] ?? 0];
  const machine = `${cpus()[0]?.model ?? 'unknown CPU'} x ${cpus().length}, Node ${process.version}`;
  const variants: LiveVariant[] = [];
  let baselines: LiveBenchResult['baselines'] | undefined;
  let baselineBytes = 0;
  for (const ingest of ['in-process', 'thread'] as const) {
    if (baselines === undefined) {
      // The baseline sends a live snapshot's bytes; the server it came from then makes way for a
      // fresh one, so that each composition is measured at the same moment of the replayed day
      // (the market's activity, and so the batches, vary through the day).
      const source = await startLiveServer(options, ingest);
      try {
        const measured = await runBaselines(options, source.child);
        baselines = measured.runs;
        baselineBytes = measured.bytes;
      } finally {
        await source.child.stop();
        removeDatabase(source.db);
      }
    }
    const server = await startLiveServer(options, ingest);
    try {
      loadAverages.push(loadavg()[0] ?? 0);
      const label = ingest === 'in-process' ? 'ingest on the serving thread (default)' : 'ingest thread';
      // Unmeasured: the first load on a fresh server (JIT, 2,000 first connections) would fall on one variant only.
      progress(`warm-up, ${WARMUP_SECONDS} s paced`);
      await runWrk(
        { url: server.child.ready.url, paths: PATHS, headers: server.headers },
        { ...settingsOf(options, 'paced'), seconds: WARMUP_SECONDS },
      );
      variants.push(await runVariant(options, server, label, 'paced'));
      // Saturation once, on the default composition: the most it serves.
      if (ingest === 'in-process') variants.push(await runVariant(options, server, label, 'closed'));
    } finally {
      await server.child.stop();
      removeDatabase(server.db);
    }
  }
  loadAverages.push(loadavg()[0] ?? 0);
  if (baselines === undefined) throw new Error('no baseline run');
  return { machine, options, loadAverages, baselines, baselineBytes, variants };
}

function settingsOf(options: LiveBenchOptions, mode: LoadMode) {
  return {
    connections: options.connections,
    seconds: mode === 'paced' ? options.seconds : Math.min(options.seconds, CLOSED_SECONDS),
    ...(mode === 'paced' ? { pollMs: options.pollMs } : {}),
  };
}

interface LiveServer {
  readonly child: Child;
  readonly db: string;
  readonly commits: CommitMessage[];
  readonly headers: Readonly<Record<string, string>>;
}

async function startLiveServer(
  options: LiveBenchOptions,
  ingest: 'thread' | 'in-process',
): Promise<LiveServer> {
  const db = join(options.directory, `live-pollers-${ingest}.db`);
  removeDatabase(db);
  progress(
    `live demo (${ingest} ingest) at ${options.speed}x, a batch every ${options.tickMs} ms, on a ${HISTORY_DAYS}-day history`,
  );
  const { child, commits } = await startLiveChild({
    db,
    historyDays: HISTORY_DAYS,
    until: options.until,
    seed: options.seed,
    speed: options.speed,
    ingest,
    tickMs: options.tickMs,
  });
  const headers = { authorization: `Bearer ${child.ready.key ?? ''}`, accept: 'application/json' };
  return { child, db, commits, headers };
}

/** node:http sending one intraday snapshot's exact bytes to the same loads: what the generator and the machine allow. */
async function runBaselines(
  options: LiveBenchOptions,
  server: Child,
): Promise<{ runs: LiveBenchResult['baselines']; bytes: number }> {
  const headers = { authorization: `Bearer ${server.ready.key ?? ''}`, accept: 'application/json' };
  const reference = await fetchOnce(`${server.ready.url}${PATHS[0]}`, headers);
  const configPath = join(options.directory, 'live-baseline.json');
  const config: BaselineConfig = {
    ...baselineConfig(reference.status, reference.rawHeaders, reference.body),
    versionEveryMs: options.tickMs,
  };
  writeFileSync(configPath, JSON.stringify(config));
  const commits: CommitMessage[] = [];
  const baseline = await startChild('./http-baseline-child.js', [configPath], {
    stdout: 'ignore',
    onMessage: (message) => {
      if (isCommit(message)) commits.push(message);
    },
  });
  try {
    const runs: LiveBaseline[] = [];
    for (const mode of ['paced', 'closed'] as const) {
      progress(
        `baseline: node:http sending ${reference.body.length} bytes, its version moved every ${options.tickMs} ms, ${options.connections} connections, ${mode}`,
      );
      const run = await probedRun(options, baseline, commits, headers, mode);
      report(`node:http, ${mode}`, run.load, run.cpuUs, run.cpuUsAllAnswers);
      reportProbes(run.probes);
      runs.push({ mode, ...run });
    }
    return { runs, bytes: reference.body.length };
  } finally {
    await baseline.stop();
    rmSync(configPath, { force: true });
  }
}

async function runVariant(
  options: LiveBenchOptions,
  server: LiveServer,
  label: string,
  mode: LoadMode,
): Promise<LiveVariant> {
  const { child } = server;
  const versionBefore = (await child.stats()).storeVersion ?? 0;
  const firstCommit = server.commits.length;
  const run = await probedRun(options, child, server.commits, server.headers, mode);
  const versionAfter = (await child.stats()).storeVersion ?? 0;
  report(`${label}, ${mode}`, run.load, run.cpuUs, run.cpuUsAllAnswers);
  reportProbes(run.probes);
  const notices = noticeLatency(run.window);
  progress(
    `  commit to server notice: p50 ${notices.percentile(50).toFixed(2)} ms, p99 ${notices.percentile(99).toFixed(2)} ms`,
  );
  return {
    noticeP50Ms: notices.percentile(50),
    noticeP99Ms: notices.percentile(99),
    label,
    mode,
    load: run.load,
    cpuUs: run.cpuUs,
    cpuUsAllAnswers: run.cpuUsAllAnswers,
    probes: run.probes,
    probeAnswers: run.probeAnswers,
    events: versionAfter - versionBefore,
    batches: server.commits.length - firstCommit,
  };
}

interface ProbedRun {
  readonly load: LoadRun;
  /** Server CPU per poller answer, and per answer of any client (the probes' too), µs. */
  readonly cpuUs: number;
  readonly cpuUsAllAnswers: number;
  readonly probes: ProbeResult[];
  readonly probeAnswers: number;
  /** The commits the probes were timed on: after the connections settled, before the load ended. */
  readonly window: CommitMessage[];
}

/** One wrk run on `child` with the two probes polling meanwhile, timed on the commits `child` reports. */
async function probedRun(
  options: LiveBenchOptions,
  child: Child,
  commits: readonly CommitMessage[],
  headers: Readonly<Record<string, string>>,
  mode: LoadMode,
): Promise<ProbedRun> {
  const target: LoadTarget = { url: child.ready.url, paths: PATHS, headers };
  const startNs = nowNs();
  const probes = PATHS.map((path) => startProbe(`${child.ready.url}${path}`, headers));
  const firstCommit = commits.length;
  const before = processTreeCpuMicros(child.pid);
  const load = await runWrk(target, settingsOf(options, mode));
  const cpuMicros = processTreeCpuMicros(child.pid) - before;
  const endNs = nowNs();
  const seen = await Promise.all(probes.map((probe) => probe.stop()));
  // The server also answered the probes meanwhile (mostly 304s): every answer counts.
  const probeAnswers = seen.flat().filter((receipt) => receipt.atNs <= endNs).length;
  const window = commits.slice(firstCommit).filter((commit) => {
    const at = BigInt(commit.atNs);
    return nsToMs(at - startNs) >= SETTLE_MS && at < endNs;
  });
  return {
    load,
    cpuUs: cpuMicros / Math.max(1, load.requests),
    cpuUsAllAnswers: cpuMicros / Math.max(1, load.requests + probeAnswers),
    probes: seen.map((receipts, index) => probeResult(PATHS[index] ?? '', receipts, window)),
    probeAnswers,
    window,
  };
}

function reportProbes(probes: readonly ProbeResult[]): void {
  for (const probe of probes) {
    progress(
      `  commit to answer, ${probe.path}: p50 ${probe.p50Ms.toFixed(2)} ms, p99 ${probe.p99Ms.toFixed(2)} ms, max ${probe.maxMs.toFixed(2)} ms over ${probe.commits} commits (${probe.unseen} not seen), ${probe.answers} probe answers`,
    );
  }
}

/** An answer the probe received: the version its ETag names, and when its last byte arrived. */
interface Receipt {
  readonly version: number;
  readonly atNs: bigint;
}

/**
 * One kept-alive connection asking for `url` again as soon as each answer is in, with the ETag it
 * last received in If-None-Match: the server answers 304 (headers only) until a commit changes the
 * answer, then 200 with the new one. A 304 carries the ETag too, so each receipt still names the
 * version the server holds; asking conditionally keeps the probe's own load off the machine it
 * measures (two connections back to back would otherwise fetch the whole snapshot thousands of
 * times a second, more bytes than all the pollers together).
 */
function startProbe(url: string, headers: Readonly<Record<string, string>>): { stop(): Promise<Receipt[]> } {
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  const receipts: Receipt[] = [];
  let running = true;
  const loop = (async () => {
    let etag: string | undefined;
    while (running) {
      etag = await getEtag(url, etag === undefined ? headers : { ...headers, 'if-none-match': etag }, agent);
      const version = /-v(\d+)"$/.exec(etag)?.[1];
      if (version === undefined) throw new Error(`${url}: no current-day ETag (${etag})`);
      receipts.push({ version: Number(version), atNs: nowNs() });
    }
  })();
  return {
    async stop() {
      running = false;
      await loop;
      agent.destroy();
      return receipts;
    },
  };
}

function getEtag(url: string, headers: Readonly<Record<string, string>>, agent: Agent): Promise<string> {
  return new Promise((resolve, reject) => {
    const outgoing = request(url, { headers: { ...headers }, agent }, (response) => {
      response.resume();
      response.on('error', reject);
      response.on('end', () => {
        if (response.statusCode !== 200 && response.statusCode !== 304) {
          reject(new Error(`${url} answered ${response.statusCode}`));
        } else resolve(String(response.headers.etag ?? ''));
      });
    });
    outgoing.on('error', reject);
    outgoing.end();
  });
}

/** For each commit of the window: the first answer at its version or later, minus its commit instant. */
function probeResult(
  path: string,
  receipts: readonly Receipt[],
  commits: readonly CommitMessage[],
): ProbeResult {
  const histogram = new LatencyHistogram();
  let unseen = 0;
  let next = 0;
  for (const commit of commits) {
    const at = BigInt(commit.atNs);
    // Receipts are in time order; skip those before the commit, then the first showing it.
    while (next < receipts.length && (receipts[next]?.atNs ?? 0n) < at) next += 1;
    let found: Receipt | undefined;
    for (let index = next; index < receipts.length; index++) {
      const receipt = receipts[index];
      if (receipt !== undefined && receipt.version >= commit.version) {
        found = receipt;
        break;
      }
    }
    if (found === undefined) unseen += 1;
    else histogram.add(nsToMs(found.atNs - at));
  }
  return {
    path,
    answers: receipts.length,
    p50Ms: histogram.percentile(50),
    p99Ms: histogram.percentile(99),
    maxMs: histogram.max,
    commits: commits.length,
    unseen,
  };
}

function report(label: string, load: LoadRun, cpuUs: number, cpuUsAllAnswers = cpuUs): void {
  progress(
    `  ${label}: ${Math.round(load.requestsPerSecond)} req/s, p50 ${load.p50Ms.toFixed(2)} ms, p99 ${load.p99Ms.toFixed(2)} ms, ${load.errors} errors, server CPU ${Math.round(cpuUs)} µs/answer (${Math.round(cpuUsAllAnswers)} counting the probes' answers)`,
  );
}

function progress(line: string): void {
  process.stderr.write(`bench live: ${line}\n`);
}

export function livePollersSection(result: LiveBenchResult): string {
  const { options } = result;
  const modeText = (mode: LoadMode) =>
    mode === 'paced' ? `paced, each every ${options.pollMs} ms on average` : 'closed loop (saturation)';
  const row = (label: string, mode: LoadMode, load: LoadRun, cpuUs: number, cpuUsAllAnswers = cpuUs) =>
    `| ${label} | ${modeText(mode)} | ${formatCount(Math.round(load.requestsPerSecond))} | ${load.p50Ms.toFixed(1)} | ${load.p99Ms.toFixed(1)} | ${load.errors} | ${Math.round(cpuUs)} | ${Math.round(cpuUsAllAnswers)} |`;
  const lines = [
    '## Live pollers',
    '',
    `Measured ${new Date().toISOString().slice(0, 16).replace('T', ' ')} UTC on ${result.machine}; load average (1 min) ${result.loadAverages.map((value) => value.toFixed(1)).join(' → ')} over the run. The machine (2 cores) is shared with other jobs: figures move by tens of percent between runs, and wrk and the probes share the cores with the server.`,
    '',
    `${formatCount(options.connections)} kept-alive connections (wrk, one thread, its own process) poll \`${PATHS.join('` and `')}\` in turn, for ${options.seconds} s paced and ${Math.min(options.seconds, CLOSED_SECONDS)} s in a closed loop, while the demo's exchange replays a day at ${options.speed}x and commits a batch every ${options.tickMs} ms; a rate-limited key far above the load. Each server is a fresh \`startDemo\` on a ${HISTORY_DAYS}-day history, warmed by ${WARMUP_SECONDS} s of paced load first. Paced: each connection waits a random 0-${2 * options.pollMs} ms before each request (pollers, as desk applications poll). Closed loop: each asks again the moment its answer is in, which measures queueing (mean latency = connections / throughput, whatever the server). The baseline is bare node:http sending the intraday snapshot's ${formatCount(result.baselineBytes)} bytes to the same loads and probes (the generator's and the machine's own ceiling), its ETag's version moved every ${options.tickMs} ms as if a batch had committed.`,
    '',
    "| server | load | req/s | p50 ms | p99 ms | errors | server CPU µs per poller answer | the same per answer, the probes' counted |",
    '|---|---|---:|---:|---:|---:|---:|---:|',
    ...result.baselines.map((run) =>
      row('node:http, fixed bytes (baseline)', run.mode, run.load, run.cpuUs, run.cpuUsAllAnswers),
    ),
    ...result.variants.map((variant) =>
      row(`gridquote, ${variant.label}`, variant.mode, variant.load, variant.cpuUs, variant.cpuUsAllAnswers),
    ),
    '',
    "Commit to first answer: two probe connections (the bench process) poll the same two answers back to back, each request with the ETag last received in If-None-Match (a 304 until the answer changes, so the probes do not load the machine with snapshots of their own); the server reports each batch's commit instant on the machine's monotonic clock (process.hrtime), and an answer shows a commit once its ETag's version (the store version it was computed at) reaches the commit's. The probes wait in the same queue as the pollers, so this is what a poller sees; their own round trip is part of it. The bare server's commits cost nothing (a counter moves, and its ETag with it): its rows are the floor that this machine, the pollers' load and the probes' own round trips leave. Server CPU counts every thread of the server process (the ingest thread, or the WAL checkpoint thread) and is divided by every answer, the probes' included.",
    '',
    '| server | load | answer | commits | p50 ms | p99 ms | max ms | not seen | of which commit to server notice, p50 / p99 ms | events committed | probe answers |',
    '|---|---|---|---:|---:|---:|---:|---:|---:|---:|---:|',
    ...result.baselines.flatMap((run) =>
      run.probes.map(
        (probe) =>
          `| node:http, its version moved every ${options.tickMs} ms (baseline) | ${modeText(run.mode)} | \`${probe.path}\` | ${probe.commits} | ${probe.p50Ms.toFixed(1)} | ${probe.p99Ms.toFixed(1)} | ${probe.maxMs.toFixed(1)} | ${probe.unseen} | - | - | ${formatCount(probe.answers)} |`,
      ),
    ),
    ...result.variants.flatMap((variant) =>
      variant.probes.map(
        (probe) =>
          `| ${variant.label} | ${modeText(variant.mode)} | \`${probe.path}\` | ${probe.commits} | ${probe.p50Ms.toFixed(1)} | ${probe.p99Ms.toFixed(1)} | ${probe.maxMs.toFixed(1)} | ${probe.unseen} | ${variant.noticeP50Ms.toFixed(1)} / ${variant.noticeP99Ms.toFixed(1)} | ${formatCount(variant.events)} in ${variant.batches} batches | ${formatCount(probe.answers)} |`,
      ),
    ),
    '',
    `Targets (paced, default composition): no errors, p99 under 20 ms, commit-to-answer p99 under 10 ms: ${verdicts(result)}.`,
    '',
    'Reproduce: `npm run bench -- --live-only` (`--live-connections N`, `--live-duration S`, `--live-poll MS`, `--live-speed N`, `--live-tick MS`).',
  ];
  return lines.join('\n');
}

function verdicts(result: LiveBenchResult): string {
  const best = result.variants.find((variant) => variant.mode === 'paced');
  if (best === undefined) return 'no run';
  const worstProbe = Math.max(...best.probes.map((probe) => probe.p99Ms));
  // The bare server's figures under the same load and probes: what this machine allows in this run.
  const floor = result.baselines.find((run) => run.mode === 'paced');
  const bare = (ms: number | undefined) =>
    ms === undefined ? '' : `; the bare server's own: ${ms.toFixed(1)} ms`;
  const floorProbe = floor && Math.max(...floor.probes.map((probe) => probe.p99Ms));
  const under = (ms: number, targetMs: number) =>
    `${shownAgainst(ms, targetMs, 1)} ms (${ms < targetMs ? 'met' : 'NOT met'}`;
  return [
    `errors ${best.load.errors === 0 ? 'none (met)' : `${best.load.errors} (NOT met)`}`,
    `p99 ${under(best.load.p99Ms, 20)}${bare(floor?.load.p99Ms)})`,
    `commit-to-answer p99 ${under(worstProbe, 10)}${bare(floorProbe)})`,
  ].join('; ');
}
