import { DEFAULT_CACHE_BYTES } from '../http/answer.js';
import type { HttpBenchResult, LoadSummary } from './http-bench.js';
import type { ChildStats } from './http-child.js';
import { median } from './http-load.js';
import { formatCount, formatMiB } from './measure.js';

/** The targets of the issue "Production envelope", part 7. */
export const HTTP_TARGETS = {
  /** (b) requests/s at least this share of the baseline's. */
  throughputRatio: 0.7,
  /** (b) p99 at most this multiple of the baseline's. */
  p99Ratio: 2,
  coldTickerMs: 100,
  /** 300 MB (10^6 bytes), the stricter reading. */
  rssBytes: 300e6,
} as const;

/** The docs/benchmarks.md section of the HTTP benchmark. */
export function httpSection(result: HttpBenchResult): string {
  const { options, history } = result;
  const lines = [
    '## HTTP: gridquote against a bare node:http server',
    '',
    `Measured ${new Date().toISOString().slice(0, 10)} on ${result.machine}; the HTTP part took ${Math.round(result.wallMs / 1000)} s.`,
    `Load: autocannon in the bench process, ${options.connections} keep-alive connections, no pipelining, no Accept-Encoding` +
      ` (identity bodies); each server in its own child process on loopback. ${options.seconds} s per run after a ${1} s` +
      ` warm-up; (a) and (b) in ${options.rounds} interleaved rounds (a b, b a, ...), the other cases in` +
      ` ${Math.min(options.rounds, 3)}; medians of the runs. Latency percentiles are exact, from every answer's time;` +
      ' MB/s counts response bytes on the wire, headers included (1 MB = 10^6 bytes).',
    `Store: ${history.days} trading days ${history.first}..${history.last} (seed ${options.seed}), ` +
      (history.reused
        ? 'reused from an earlier run.'
        : `seeded in this run (${((history.seedMs ?? 0) / 1000).toFixed(1)} s).`),
    '',
    `(b) runs \`startServer\` as \`gridquote serve\` does: answer cache on (default budget), log level` +
      ` \`${result.logLevel}\` (serve's default), which writes one JSON line per request to stdout; the child's` +
      ` stdout is a file (${formatCount(result.log.lines)} lines, ${formatMiB(result.log.bytes)} in this run, deleted after).` +
      ' Each request authenticates a real historical key (SHA-256 of its secret compared with the stored hash; the' +
      ' key store keeps the record in memory and checks SQLite for changes once a second) whose rate' +
      ' limits are 10^9 per second and per minute, so the limiter counts every request but never refuses;' +
      ' `Accept: application/json` goes through negotiation.',
    `(a) is a bare \`node:http\` server answering every request with the bytes gridquote sent for (b), fetched from` +
      ` it first: the same body and the headers ${result.sameHeaders.map((name) => `\`${name}\``).join(', ')}` +
      ' (plus Date, Connection and Keep-Alive, which Node adds to both); the bench checks that the two answers match.',
    '',
    '| case | request | req/s | p50 | p99 | MB/s | bytes/answer | server CPU/answer |',
    '|---|---|---:|---:|---:|---:|---:|---:|',
  ];
  if (result.baseline) {
    lines.push(
      row('(a) baseline: bare node:http, same bytes', `\`${result.paths.tradelog}\``, result.baseline),
    );
  }
  lines.push(
    row('(b) gridquote, cached past-day trade log', `\`${result.paths.tradelog}\``, result.gridquote),
  );
  if (result.tickerCached) {
    lines.push(
      row('(c) full-day ticker, JSON, cached', `\`${result.paths.ticker}\``, result.tickerCached.json),
    );
    lines.push(row('(c) full-day ticker, CSV, cached', 'same, `Accept: text/csv`', result.tickerCached.csv));
  }
  if (result.tickerCold) {
    const request = `\`/api/ticker?futures=au_electricity&date=…\`, ${result.tickerCold.days} past days in turn`;
    lines.push(row('(c) full-day ticker, JSON, cold (cache off)', request, result.tickerCold.json));
    lines.push(
      row('(c) full-day ticker, CSV, cold (cache off)', 'same, `Accept: text/csv`', result.tickerCold.csv),
    );
  }
  if (result.intraday) {
    lines.push(
      row(
        `(d) intraday snapshot while the live feed ingests (${formatCount(result.intraday.eventsIngested)} events during the runs)`,
        `\`${result.paths.intraday}\``,
        result.intraday,
      ),
    );
  }
  lines.push('');
  if (result.tickerCold || result.intraday) {
    lines.push(
      'The cold rows use a server with the answer cache off (`cacheBytes: 0`, otherwise the composition of' +
        ' `startServer`, same log level) on the same store, each request a whole day in turn: every answer is' +
        ' queried and serialised. (d) runs `startDemo` (log level `warn` as the demo sets it: no request lines)' +
        ` on a fresh ${result.intraday?.historyDays ?? 10}-day history ending ${options.until}, its live exchange` +
        ` replaying the following trading days at ${options.liveSpeed}x in the server process; every commit drops` +
        ' the cached snapshot, so answers mix hits and fresh queries.',
      '',
    );
  }

  lines.push('### Targets', '', '| target | measured | verdict |', '|---|---|---|');
  if (result.baseline && result.ratios) {
    const throughput = median(result.ratios.requestsPerSecond);
    const p99 = median(result.ratios.p99);
    lines.push(
      `| (b) req/s >= ${HTTP_TARGETS.throughputRatio} x (a) | ${throughput.toFixed(2)} x (per round: ${list(result.ratios.requestsPerSecond)}) | ${verdict(throughput >= HTTP_TARGETS.throughputRatio)} |`,
      `| (b) p99 <= ${HTTP_TARGETS.p99Ratio} x (a) p99 | ${p99.toFixed(2)} x (per round: ${list(result.ratios.p99)}) | ${verdict(p99 <= HTTP_TARGETS.p99Ratio)} |`,
    );
  }
  if (result.coldLatency) {
    const cold = median(result.coldLatency.json);
    lines.push(
      `| cold full-day market ticker < ${HTTP_TARGETS.coldTickerMs} ms (JSON, identity, median of ${result.coldLatency.json.length} distinct days) | ${cold.toFixed(1)} ms | ${verdict(cold < HTTP_TARGETS.coldTickerMs)} |`,
    );
  }
  if (result.baseline) {
    const cpu = result.gridquote.serverCpuUs / result.baseline.serverCpuUs;
    lines.push(
      `| (informative) server CPU per answer, (b) / (a) | ${cpu.toFixed(2)} x (${Math.round(result.gridquote.serverCpuUs)} µs against ${Math.round(result.baseline.serverCpuUs)} µs) | no target |`,
    );
  }
  const target = `< ${HTTP_TARGETS.rssBytes / 1e6} MB (${formatMiB(HTTP_TARGETS.rssBytes)})`;
  const rssRow = (when: string, memory: ChildStats) =>
    `| RSS ${target}, ${history.days}-day store, ${when} | ${formatMiB(memory.rssBytes)} (anonymous ${optionalMiB(memory.anonBytes)}, file pages ${optionalMiB(memory.fileBytes)}) | ${verdict(memory.rssBytes < HTTP_TARGETS.rssBytes)} |`;
  if (result.memory.serveAfterLoad) {
    const fillCount = result.coldLatency?.cacheFill?.length ?? 0;
    // Whether the tickers it answered, at their size, exceed the cache's budget.
    const full = fillCount * (result.tickerCached?.json.bytesPerResponse ?? 0) > DEFAULT_CACHE_BYTES;
    lines.push(
      rssRow('after its load runs', result.memory.serveAfterLoad),
      rssRow(
        `then after ${fillCount} more distinct full-day tickers${full ? ' (answer cache full)' : ''}`,
        result.memory.serve,
      ),
    );
  } else {
    lines.push(rssRow('after its runs', result.memory.serve));
  }
  lines.push(
    '',
    'Ratios are medians of the per-round ratios (b)/(a), each from two runs adjacent in time. Server CPU/answer is' +
      " the server child's CPU time (user + system, all its threads, read before and after each run) over the" +
      ' answers of the run: unlike req/s it does not depend on whether the load generator, sharing the machine,' +
      ' kept up; its ratio is what the req/s ratio would be if each side had a core of its own.',
  );

  if (result.coldLatency) {
    lines.push(
      '',
      '### Cold full-day ticker, single requests',
      '',
      'One request at a time on a kept-alive connection to the (b) server before any load, each for a day nothing' +
        ' had asked for yet (a cache miss: query, serialisation, ETag digest and, when asked, compression); time from' +
        ' sending to the last byte.',
      '',
      '| request | days | median | min | max |',
      '|---|---:|---:|---:|---:|',
      coldRow('JSON, identity', result.coldLatency.json),
      coldRow('CSV, identity', result.coldLatency.csv),
      coldRow('JSON, `Accept-Encoding: gzip, deflate, br` (brotli)', result.coldLatency.jsonBrotli),
      ...(result.coldLatency.cacheFill
        ? [
            coldRow(
              'JSON, identity, each remaining day, after the load runs (filling the cache)',
              result.coldLatency.cacheFill,
            ),
          ]
        : []),
    );
  }

  lines.push(
    '',
    '### Memory of the server processes',
    '',
    `Anonymous memory is the JS heap, the answer cache (budget ${formatMiB(DEFAULT_CACHE_BYTES)}), Node buffers and SQLite's page cache; file` +
      ' pages are the node binary and libraries plus the store pages SQLite has mapped (mmap) and touched. The' +
      ' first row is the state right after the load runs; the second the same server after it answered each' +
      ' remaining day of the store once, which fills the answer cache and maps much of the store.',
    '',
    '| server | after | RSS | anonymous | file pages | peak RSS | JS heap used |',
    '|---|---|---:|---:|---:|---:|---:|',
  );
  if (result.memory.serveAfterLoad) {
    lines.push(
      memoryRow(
        `(b), (c) cached: serve, ${history.days}-day store`,
        'its load runs',
        result.memory.serveAfterLoad,
      ),
    );
  }
  lines.push(
    memoryRow(
      `(b), (c) cached: serve, ${history.days}-day store`,
      result.memory.serveAfterLoad ? 'then filling the answer cache' : 'its runs',
      result.memory.serve,
    ),
  );
  if (result.memory.noCache) {
    lines.push(
      memoryRow(`(c) cold: cache off, ${history.days}-day store`, 'its runs', result.memory.noCache),
    );
  }
  if (result.memory.live) {
    lines.push(
      memoryRow(
        `(d) demo with live feed, ${result.intraday?.historyDays ?? 10}-day store`,
        'its runs',
        result.memory.live,
      ),
    );
  }
  const flags = [
    `--http-duration ${options.seconds}`,
    `--http-rounds ${options.rounds}`,
    `--http-days ${options.days}`,
    `--http-connections ${options.connections}`,
    `--http-speed ${options.liveSpeed}`,
  ].join(' ');
  lines.push(
    '',
    `Reproduce: \`npm run bench\` (this section alone: \`node --expose-gc dist/bench/run.js --http-only ${flags}\`;` +
      ' add `--http-fresh` to reseed the history). Profile of (b): `node dist/bench/http-profile.js`.',
  );
  return lines.join('\n');
}

function row(name: string, request: string, summary: LoadSummary): string {
  const errors = summary.errors > 0 ? ` (${summary.errors} socket errors)` : '';
  return (
    `| ${name}${errors} | ${request} | ${formatCount(Math.round(summary.requestsPerSecond))} |` +
    ` ${ms(summary.p50Ms)} | ${ms(summary.p99Ms)} | ${(summary.bytesPerSecond / 1e6).toFixed(1)} |` +
    ` ${formatCount(Math.round(summary.bytesPerResponse))} | ${formatCount(Math.round(summary.serverCpuUs))} µs |`
  );
}

function coldRow(name: string, values: readonly number[]): string {
  return `| ${name} | ${values.length} | ${ms(median(values))} | ${ms(Math.min(...values))} | ${ms(Math.max(...values))} |`;
}

function memoryRow(name: string, after: string, memory: ChildStats): string {
  return (
    `| ${name} | ${after} | ${formatMiB(memory.rssBytes)} | ${optionalMiB(memory.anonBytes)} |` +
    ` ${optionalMiB(memory.fileBytes)} | ${formatMiB(memory.maxRssBytes)} | ${formatMiB(memory.heapUsedBytes)} |`
  );
}

function optionalMiB(bytes: number | undefined): string {
  return bytes === undefined ? 'n/a' : formatMiB(bytes);
}

function ms(value: number): string {
  return `${value < 10 ? value.toFixed(2) : value.toFixed(1)} ms`;
}

function list(values: readonly number[]): string {
  return values.map((value) => value.toFixed(2)).join(', ');
}

function verdict(met: boolean): string {
  return met ? 'met' : '**NOT met**';
}
