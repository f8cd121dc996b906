import { Agent, request } from 'node:http';
import autocannon from 'autocannon';

/**
 * Load generation for the HTTP benchmark: autocannon driven programmatically in this process
 * (the servers run in children). Latency percentiles are computed here from every response's
 * own time (autocannon's histogram keeps whole milliseconds, too coarse for sub-millisecond
 * answers); throughput and bytes are autocannon's counts.
 */

export interface LoadTarget {
  /** http://host:port */
  readonly url: string;
  /** Request paths (with query), cycled in order by each connection. */
  readonly paths: readonly string[];
  readonly headers: Readonly<Record<string, string>>;
}

export interface LoadSettings {
  readonly connections: number;
  readonly seconds: number;
}

export interface LoadRun {
  /** 2xx answers completed. */
  readonly requests: number;
  readonly seconds: number;
  readonly requestsPerSecond: number;
  readonly p50Ms: number;
  readonly p99Ms: number;
  /** Response bytes on the wire (headers included), per second. */
  readonly bytesPerSecond: number;
  readonly bytesPerResponse: number;
  /** Socket errors and timeouts (non-2xx answers throw instead: they mean a broken setup). */
  readonly errors: number;
}

export async function runLoad(target: LoadTarget, settings: LoadSettings): Promise<LoadRun> {
  const latencies: number[] = [];
  const result = await new Promise<autocannon.Result>((resolve, reject) => {
    const instance = autocannon(
      {
        url: target.url,
        connections: settings.connections,
        duration: settings.seconds,
        pipelining: 1,
        headers: { ...target.headers },
        requests: target.paths.map((path) => ({ method: 'GET', path })),
        timeout: 30,
      },
      (error: unknown, done: autocannon.Result) => (error ? reject(error) : resolve(done)),
    );
    instance.on('response', (_client, statusCode, _bytes, responseTime) => {
      if (statusCode >= 200 && statusCode < 300) latencies.push(responseTime);
    });
  });
  if (result.non2xx > 0) {
    const codes = JSON.stringify(result.statusCodeStats);
    throw new Error(
      `${target.url}${target.paths[0] ?? ''}: ${result.non2xx} answers were not 2xx (${codes})`,
    );
  }
  const requests = result['2xx'];
  const seconds = result.duration;
  latencies.sort((a, b) => a - b);
  return {
    requests,
    seconds,
    requestsPerSecond: requests / seconds,
    p50Ms: percentile(latencies, 0.5),
    p99Ms: percentile(latencies, 0.99),
    bytesPerSecond: result.throughput.total / seconds,
    bytesPerResponse: requests > 0 ? result.throughput.total / requests : 0,
    errors: result.errors + result.timeouts,
  };
}

/** Nearest-rank percentile of ascending values. */
export function percentile(sorted: readonly number[], fraction: number): number {
  if (sorted.length === 0) return Number.NaN;
  const rank = Math.min(sorted.length, Math.max(1, Math.ceil(fraction * sorted.length)));
  return sorted[rank - 1] ?? Number.NaN;
}

export function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  if (sorted.length === 0) return Number.NaN;
  const middle = Math.floor(sorted.length / 2);
  const upper = sorted[middle] ?? Number.NaN;
  return sorted.length % 2 === 1 ? upper : ((sorted[middle - 1] ?? upper) + upper) / 2;
}

export interface Fetched {
  readonly status: number;
  /** Node's rawHeaders: names and values alternating, as received. */
  readonly rawHeaders: readonly string[];
  readonly body: Buffer;
  /** From sending the request to the last body byte. */
  readonly ms: number;
}

// One kept-alive connection for single requests, so a timing holds no TCP handshake.
const agent = new Agent({ keepAlive: true, maxSockets: 1 });

/** One GET, timed from the request to its last byte. */
export function fetchOnce(url: string, headers: Readonly<Record<string, string>>): Promise<Fetched> {
  return new Promise((resolve, reject) => {
    const start = performance.now();
    const outgoing = request(url, { method: 'GET', headers: { ...headers }, agent }, (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('error', reject);
      response.on('end', () =>
        resolve({
          status: response.statusCode ?? 0,
          rawHeaders: response.rawHeaders,
          body: Buffer.concat(chunks),
          ms: performance.now() - start,
        }),
      );
    });
    outgoing.on('error', reject);
    outgoing.end();
  });
}

/** Closes the kept-alive connection of fetchOnce (a server about to stop would wait for it). */
export function closeFetchConnections(): void {
  agent.destroy();
}
