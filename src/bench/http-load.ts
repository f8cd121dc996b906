import { Agent, request } from 'node:http';

/** Single timed requests of the HTTP benchmark (the load itself is wrk's: wrk.ts), and medians. */

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
