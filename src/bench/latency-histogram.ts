/**
 * Latencies of the live benchmarks (commit to answer, commit to stream receipt), counted in
 * 10 µs buckets so that many processes' samples merge exactly: a client process sends its
 * buckets, the bench adds them up and reads percentiles of the whole.
 */

const BUCKET_MS = 0.01;

export type Buckets = Record<string, number>;

export class LatencyHistogram {
  readonly #counts = new Map<number, number>();
  #total = 0;

  /** One sample of `ms`, or `times` equal ones. */
  add(ms: number, times = 1): void {
    const bucket = Math.max(0, Math.round(ms / BUCKET_MS));
    this.#counts.set(bucket, (this.#counts.get(bucket) ?? 0) + times);
    this.#total += times;
  }

  merge(buckets: Buckets): void {
    for (const [bucket, count] of Object.entries(buckets)) {
      this.#counts.set(Number(bucket), (this.#counts.get(Number(bucket)) ?? 0) + count);
      this.#total += count;
    }
  }

  get count(): number {
    return this.#total;
  }

  /** The smallest latency at or below which `percent` of the samples lie; NaN without samples. */
  percentile(percent: number): number {
    if (this.#total === 0) return Number.NaN;
    const wanted = Math.ceil((percent / 100) * this.#total);
    let seen = 0;
    for (const bucket of [...this.#counts.keys()].sort((a, b) => a - b)) {
      seen += this.#counts.get(bucket) ?? 0;
      if (seen >= wanted) return bucket * BUCKET_MS;
    }
    return Number.NaN;
  }

  get max(): number {
    return this.#total === 0 ? Number.NaN : Math.max(...this.#counts.keys()) * BUCKET_MS;
  }

  toJSON(): Buckets {
    return Object.fromEntries(this.#counts);
  }
}

/** Nanoseconds on process.hrtime's monotonic clock, the one every process of the machine shares. */
export function nowNs(): bigint {
  return process.hrtime.bigint();
}

export function nsToMs(ns: bigint): number {
  return Number(ns) / 1e6;
}

/** Commit to the serving thread's notice of it, over the given commits: where the ingest thread's message waits. */
export function noticeLatency(
  commits: readonly { readonly atNs: string; readonly noticedNs: string }[],
): LatencyHistogram {
  const histogram = new LatencyHistogram();
  for (const commit of commits) histogram.add(nsToMs(BigInt(commit.noticedNs) - BigInt(commit.atNs)));
  return histogram;
}
