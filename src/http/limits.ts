import type { Problem } from './problems.js';

/**
 * What one client may cost the server: the size of a request and how long it may take to
 * arrive. Sizes and timeouts are enforced by Node's HTTP server (http-server.ts) before a
 * request reaches Fastify (431, 408); the URL limit by the app's first onRequest hook (414).
 */
export interface HttpLimits {
  /** Longest request target (path + query) in bytes; longer is 414. */
  readonly maxUrlBytes: number;
  /** Node's maxHeaderSize: request line + headers, in bytes; larger is 431. */
  readonly maxHeaderBytes: number;
  /** The whole request (for GET: the headers) must arrive within this; else 408 and close. */
  readonly requestTimeoutMs: number;
  /** A socket with no traffic either way for this long is destroyed. */
  readonly idleTimeoutMs: number;
  /** An idle keep-alive connection is closed after this. */
  readonly keepAliveTimeoutMs: number;
}

export const DEFAULT_HTTP_LIMITS: HttpLimits = Object.freeze({
  // The longest legal query is a few hundred bytes; 4 KiB leaves room for proxies' additions.
  maxUrlBytes: 4_096,
  // Node's own default: an API key and the usual proxy headers fit many times over.
  maxHeaderBytes: 16_384,
  // Node's default (300 s) lets a slow-loris client hold a socket for minutes.
  requestTimeoutMs: 10_000,
  idleTimeoutMs: 60_000,
  // Longer than the common load balancer idle timeout (60 s), so the balancer closes first and
  // never sends a request on a connection the server is closing.
  keepAliveTimeoutMs: 72_000,
});

/**
 * 414 for a request target over the limit, checked first of all (app.ts's first onRequest hook),
 * before authentication or routing work. Node hands the target over as one char per byte
 * (latin1), so its length is its size in bytes.
 */
export function urlTooLong(url: string, maxUrlBytes: number): Problem | undefined {
  if (url.length <= maxUrlBytes) return undefined;
  return {
    code: 'uri-too-long',
    detail: `the request target is ${url.length} bytes; the limit is ${maxUrlBytes}`,
  };
}
