import { execFile, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';

/**
 * Load generation for the HTTP benchmark: wrk (a C load generator) in a process of its own,
 * one thread, so that the generator is never what limits the measured server. A Lua script
 * sets the requests and prints wrk's summary as one JSON line: counts, bytes, errors and the
 * exact latency percentiles of wrk's histogram (microsecond resolution).
 */

export interface LoadTarget {
  /** http://host:port */
  readonly url: string;
  /** Request paths (with query); several are sent in turn by each connection. */
  readonly paths: readonly string[];
  readonly headers: Readonly<Record<string, string>>;
}

export interface LoadSettings {
  readonly connections: number;
  readonly seconds: number;
  /**
   * Pollers rather than a closed loop: each connection waits a random 0..2x this many ms before
   * each request (so on average it asks every pollMs). Without it every connection asks again
   * the moment its answer is in, which measures queueing alone (mean latency = connections / rate).
   */
  readonly pollMs?: number;
}

export interface LoadRun {
  /** Answers completed with a status below 400. */
  readonly requests: number;
  readonly seconds: number;
  readonly requestsPerSecond: number;
  readonly p50Ms: number;
  readonly p99Ms: number;
  /** Response bytes on the wire (headers included) per answer. */
  readonly bytesPerResponse: number;
  /** Socket errors and timeouts (answers of 400 and above throw instead: they mean a broken set-up). */
  readonly errors: number;
}

/** Makes sure wrk can run: installs the Debian package when root, else says how. */
export function ensureWrk(log: (line: string) => void): void {
  if (wrkRuns()) return;
  if (process.getuid?.() !== 0) {
    throw new Error(
      'the HTTP benchmark needs wrk (a C load generator): install it with `sudo apt-get install -y wrk` (Debian/Ubuntu) or from https://github.com/wg/wrk, then run the bench again',
    );
  }
  log('wrk is missing: apt-get install -y wrk');
  const installed = spawnSync('apt-get', ['install', '-y', 'wrk'], {
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  if (installed.status !== 0 || !wrkRuns()) {
    throw new Error('apt-get install -y wrk failed (try apt-get update first); the HTTP benchmark needs wrk');
  }
}

function wrkRuns(): boolean {
  // wrk has no --version: its usage text (exit 1) proves the binary runs.
  const probe = spawnSync('wrk', [], { encoding: 'utf8' });
  return probe.error === undefined && /Usage: wrk/.test(`${probe.stdout}${probe.stderr}`);
}

/** One wrk run against the target; throws if any answer was 400 or above. */
export async function runWrk(target: LoadTarget, settings: LoadSettings): Promise<LoadRun> {
  const directory = mkdtempSync(join(tmpdir(), 'gridquote-wrk-'));
  const script = join(directory, 'bench.lua');
  try {
    writeFileSync(script, luaScript(target, settings.pollMs));
    const { stdout } = await promisify(execFile)(
      'wrk',
      [
        '--threads',
        '1',
        '--connections',
        String(settings.connections),
        '--duration',
        `${settings.seconds}s`,
        '--timeout',
        '10s',
        '--script',
        script,
        `${target.url}${target.paths[0] ?? '/'}`,
      ],
      { maxBuffer: 1024 * 1024 },
    );
    const line = stdout.split('\n').find((text) => text.startsWith('{"requests"'));
    if (line === undefined) throw new Error(`wrk printed no summary:\n${stdout}`);
    const summary = JSON.parse(line) as WrkSummary;
    if (summary.status > 0) {
      throw new Error(`${target.url}${target.paths[0] ?? ''}: ${summary.status} answers were 400 or above`);
    }
    const seconds = summary.durationUs / 1e6;
    return {
      requests: summary.requests,
      seconds,
      requestsPerSecond: summary.requests / seconds,
      p50Ms: summary.p50Us / 1000,
      p99Ms: summary.p99Us / 1000,
      bytesPerResponse: summary.requests > 0 ? summary.bytes / summary.requests : 0,
      errors: summary.connect + summary.read + summary.write + summary.timeout,
    };
  } finally {
    rmSync(directory, { recursive: true, force: true });
  }
}

interface WrkSummary {
  readonly requests: number;
  readonly durationUs: number;
  readonly bytes: number;
  readonly connect: number;
  readonly read: number;
  readonly write: number;
  readonly status: number;
  readonly timeout: number;
  readonly p50Us: number;
  readonly p99Us: number;
}

/** The Lua of a run: headers, the paths in turn (prepared once), and the summary as JSON. */
function luaScript(target: LoadTarget, pollMs?: number): string {
  const quote = (text: string) => JSON.stringify(text);
  const headers = Object.entries(target.headers)
    .map(([name, value]) => `wrk.headers[${quote(name)}] = ${quote(value)}`)
    .join('\n');
  // One path: wrk's own static request (no Lua per request, the cheapest generator).
  const cycle =
    target.paths.length < 2
      ? ''
      : `local paths = { ${target.paths.map(quote).join(', ')} }
local prepared = {}
local turn = 0
function init(args)
  for i, path in ipairs(paths) do prepared[i] = wrk.format("GET", path) end
end
function request()
  turn = turn % #prepared + 1
  return prepared[turn]
end
`;
  const pacing =
    pollMs === undefined
      ? ''
      : `function delay()
  return math.random(0, ${2 * Math.round(pollMs)})
end
`;
  return `${headers}
${cycle}${pacing}function done(summary, latency, requests)
  local e = summary.errors
  io.write(string.format(
    '{"requests":%d,"durationUs":%d,"bytes":%d,"connect":%d,"read":%d,"write":%d,"status":%d,"timeout":%d,"p50Us":%d,"p99Us":%d}\\n',
    summary.requests - e.status, summary.duration, summary.bytes, e.connect, e.read, e.write, e.status, e.timeout,
    latency:percentile(50), latency:percentile(99)))
end
`;
}
