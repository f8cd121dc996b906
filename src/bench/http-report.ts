import type { CaseResult, HttpBenchResult, ScalingSide } from './http-bench.js';
import { median } from './http-load.js';
import { formatCount, formatMiB, shownAgainst } from './measure.js';

/** The targets of the issues "Production envelope" (part 7) and "The serve path at the speed of the platform". */
export const HTTP_TARGETS = {
  /** Cached answers: req/s at least this share of the baseline's. */
  throughputRatio: 0.7,
  /** Cached answers: p99 at most this multiple of the baseline's. */
  p99Ratio: 1.5,
  coldTickerMs: 100,
  /** 300 MB (10^6 bytes), the stricter reading. */
  rssBytes: 300e6,
} as const;

/** The docs/benchmarks.md section of the HTTP benchmark. */
export function httpSection(result: HttpBenchResult): string {
  const { options, history } = result;
  const lines = [
    '## HTTP: gridquote against a bare node:http server, driven by wrk',
    '',
    `Measured ${new Date().toISOString().slice(0, 16).replace('T', ' ')} UTC on ${result.machine}; the HTTP part took ${Math.round(result.wallMs / 1000)} s.`,
    `Load: wrk in a process of its own, one thread, ${options.connections} keep-alive connections, no pipelining, no` +
      ` Accept-Encoding (identity bodies), on loopback; ${options.seconds} s per run after a 1 s warm-up; each case runs` +
      ` gridquote and the baseline in ${options.rounds} interleaved rounds (a b, b a, ...); medians of the runs. p50 and p99` +
      " are wrk's own (its latency histogram, microsecond resolution). Server CPU per answer is the server process's user +" +
      ' system time (`/proc/<pid>/stat`, its workers included, read from outside before and after each run) over the' +
      ' answers of the run: unlike req/s it does not depend on whether the load generator, which shares the cores, kept up.',
    `Store: ${history.days} trading days ${history.first}..${history.last} (seed ${options.seed}), ` +
      (history.reused
        ? 'reused from an earlier run.'
        : `seeded in this run (${((history.seedMs ?? 0) / 1000).toFixed(1)} s).`),
    '',
    'gridquote is `gridquote serve --workers 1` (dist/cli/main.js, every other setting at its default: log level' +
      ` \`${result.logLevel}\`, one JSON line per request to stdout, here a file; metrics; the answer cache), with a real` +
      ' historical key whose limits (10^6 a second, 6 x 10^7 a minute) the load stays under, so the limiter counts every' +
      ' request; `Accept: application/json` goes through negotiation, and every answer carries its ETag. The cold ticker' +
      ' runs the same composition with the answer cache off; the live case runs the demo (its live exchange replaying' +
      ` the trading days after a ${result.liveHistoryDays}-day history at ${options.liveSpeed}x in the server process, log level` +
      ` \`warn\` as the demo sets it; ${formatCount(result.liveEvents)} events committed during its runs). The baseline is a bare` +
      " `node:http` server answering every request with the bytes gridquote sent for the case's (first) request, fetched" +
      ' from it first, with the same headers (the bench checks that the two answers match).',
    '',
    '| case | request | bytes/answer | req/s gridquote | req/s node:http | ratio | p50 gridquote / node:http | ratio | p99 gridquote / node:http | ratio | server CPU/answer gridquote / node:http | ratio |',
    '|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|',
    ...result.cases.map(caseRow),
    '',
    'ratio = gridquote / node:http (req/s: higher is better; p50, p99 and CPU: lower is better). The node:http column is the' +
      ' generator check: wrk kept up with the bare server at that rate, so it was not what limited gridquote.',
    '',
    `### Every core: \`serve --workers N\` on \`${result.scaling.request}\``,
    '',
    'The same request on `gridquote serve --workers N`, with the rate-limited key and with a key without limits (which' +
      ' skips the limiter: the difference is the price of the shared counter), the runs interleaved. Server CPU counts' +
      " the primary (which hands connections to the workers and keeps each key's rate-limit budget, leased to the" +
      ' workers in blocks: a busy key costs a message per block, not per request) and every worker. wrk shares the 2' +
      ' cores with the server, so req/s cannot double.',
    '',
    '| workers | key | req/s | p50 | p99 | server CPU/answer | req/s vs first row | CPU/answer vs first row |',
    '|---:|---|---:|---:|---:|---:|---:|---:|',
    ...scalingRows(result),
    '',
    '### Targets',
    '',
    '| target | measured | verdict |',
    '|---|---|---|',
    ...targetRows(result),
    '',
    `Reproduce: \`npm run bench\` (this section alone: \`npm run bench -- --http-only ${flags(result)}\`; add` +
      ' `--http-fresh` to reseed the history; `--help` lists the flags). wrk is needed: the bench installs the Debian' +
      ' package when run as root, else says how.',
  ];
  return lines.join('\n');
}

/** The cached answers: the cases the req/s and p99 targets are about. */
const hasTargets = (one: CaseResult): boolean => one.label.endsWith(', cached');

function caseRow(one: CaseResult): string {
  const g = one.gridquote;
  const b = one.baseline;
  const errors = g.errors + b.errors > 0 ? ` (socket errors: ${g.errors} / ${b.errors})` : '';
  // Beside a target, the decimals that tell its side: the table must not print 0.70 for the 0.698 its verdict refuses.
  const against = (value: number, target: number) =>
    hasTargets(one) ? shownAgainst(value, target) : value.toFixed(2);
  return (
    `| ${one.label}${errors} | \`${one.request}\` | ${formatCount(Math.round(g.bytesPerResponse))} |` +
    ` ${formatCount(Math.round(g.requestsPerSecond))} | ${formatCount(Math.round(b.requestsPerSecond))} |` +
    ` ${against(g.requestsPerSecond / b.requestsPerSecond, HTTP_TARGETS.throughputRatio)} |` +
    ` ${ms(g.p50Ms)} / ${ms(b.p50Ms)} | ${ratio(g.p50Ms, b.p50Ms)} |` +
    ` ${ms(g.p99Ms)} / ${ms(b.p99Ms)} | ${against(g.p99Ms / b.p99Ms, HTTP_TARGETS.p99Ratio)} |` +
    ` ${formatCount(Math.round(g.cpuUs))} / ${formatCount(Math.round(b.cpuUs))} µs | ${ratio(g.cpuUs, b.cpuUs)} |`
  );
}

function scalingRows(result: HttpBenchResult): string[] {
  const reference = result.scaling.sides[0]?.side;
  return result.scaling.sides.map(({ workers, limited, side }: ScalingSide) => {
    const vs = (value: number, of: number | undefined) => (of === undefined ? 'n/a' : ratio(value, of));
    return (
      `| ${workers} | ${limited ? 'rate-limited' : 'without limits'} | ${formatCount(Math.round(side.requestsPerSecond))} |` +
      ` ${ms(side.p50Ms)} | ${ms(side.p99Ms)} | ${formatCount(Math.round(side.cpuUs))} µs |` +
      ` ${vs(side.requestsPerSecond, reference?.requestsPerSecond)} | ${vs(side.cpuUs, reference?.cpuUs)} |`
    );
  });
}

function targetRows(result: HttpBenchResult): string[] {
  const rows: string[] = [];
  for (const one of result.cases.filter(hasTargets)) {
    const throughput = one.gridquote.requestsPerSecond / one.baseline.requestsPerSecond;
    const p99 = one.gridquote.p99Ms / one.baseline.p99Ms;
    rows.push(
      `| ${one.label}: req/s >= ${HTTP_TARGETS.throughputRatio} x node:http, p99 <= ${HTTP_TARGETS.p99Ratio} x | ${shownAgainst(throughput, HTTP_TARGETS.throughputRatio)} x, ${shownAgainst(p99, HTTP_TARGETS.p99Ratio)} x | ${verdict(throughput >= HTTP_TARGETS.throughputRatio && p99 <= HTTP_TARGETS.p99Ratio)} |`,
    );
  }
  const cold = median(result.coldTickerMs);
  rows.push(
    `| cold full-day market ticker < ${HTTP_TARGETS.coldTickerMs} ms (single requests before any load, median of ${result.coldTickerMs.length} distinct days, JSON, identity) | ${cold.toFixed(1)} ms (${Math.min(...result.coldTickerMs).toFixed(1)}..${Math.max(...result.coldTickerMs).toFixed(1)}) | ${verdict(cold < HTTP_TARGETS.coldTickerMs)} |`,
    `| peak RSS of \`serve --workers 1\` < ${HTTP_TARGETS.rssBytes / 1e6} MB, ${result.history.days}-day store, after its runs | ${formatMiB(result.serveRssBytes)} | ${verdict(result.serveRssBytes < HTTP_TARGETS.rssBytes)} |`,
  );
  return rows;
}

function flags(result: HttpBenchResult): string {
  const { options } = result;
  return [
    `--http-duration ${options.seconds}`,
    `--http-rounds ${options.rounds}`,
    `--http-connections ${options.connections}`,
    `--http-days ${options.days}`,
    `--http-speed ${options.liveSpeed}`,
    `--http-workers ${options.workers.join(',')}`,
  ].join(' ');
}

function ratio(value: number, of: number): string {
  return `${(value / of).toFixed(2)}`;
}

function ms(value: number): string {
  return `${value < 10 ? value.toFixed(2) : value.toFixed(1)} ms`;
}

function verdict(met: boolean): string {
  return met ? 'met' : '**NOT met**';
}
