import { RateLimiterCluster, RateLimiterClusterMaster } from 'rate-limiter-flexible';
import type { RateLimitStoreFactory } from './rate-limit.js';

/**
 * Rate-limit counters shared by the workers of one `gridquote serve --workers N`: every worker
 * asks the primary process (node:cluster IPC), which keeps the only counters, so a key gets its
 * limit once across the workers, not once per worker. The primary calls
 * `startClusterRateLimitCounters` before forking; each worker passes `clusterRateLimitStore`.
 */

/** The primary's side: answers the workers' counting requests. Idempotent. */
export function startClusterRateLimitCounters(): void {
  new RateLimiterClusterMaster();
}

/** How long a worker waits for the primary's count before the request fails. */
const PRIMARY_TIMEOUT_MS = 5_000;

/** The workers' side; unbounded points, as memoryRateLimitStore (the limiter compares itself). */
export const clusterRateLimitStore: RateLimitStoreFactory = (window) =>
  new RateLimiterCluster({
    points: Number.MAX_SAFE_INTEGER,
    duration: window.seconds,
    keyPrefix: `gq-rl-${window.name}`,
    timeoutMs: PRIMARY_TIMEOUT_MS,
  });
