import { fastifyCors } from '@fastify/cors';
import type { FastifyInstance } from 'fastify';

/**
 * Cross-origin access (CORS) for browser pages served from other origins: a dashboard or a
 * notebook calling the API with a key. Off unless origins are configured (config.ts
 * `corsOrigins`): without it a browser refuses every cross-origin answer. Keys travel in the
 * Authorization header, never in cookies, so no credentials mode is needed, and `*` may be
 * configured to open the API to every origin.
 */

/** Response headers a page may read: rate-limit state, validators, request ids, CSV file names. */
export const CORS_EXPOSED_HEADERS = [
  'RateLimit',
  'RateLimit-Policy',
  'Retry-After',
  'ETag',
  'Ignored-Parameters',
  'X-Request-Id',
  'API-Version',
  'Content-Disposition',
] as const;

/** Request headers a page may send beyond the CORS-safelisted ones (Last-Event-ID: resuming a stream). */
export const CORS_ALLOWED_HEADERS = ['Authorization', 'If-None-Match', 'Last-Event-ID'] as const;

/** How long a browser may reuse a preflight answer, in seconds. */
export const CORS_MAX_AGE_SECONDS = 600;

export const ANY_ORIGIN = '*';

/**
 * Answers preflights (OPTIONS with Access-Control-Request-Method) from an allowed origin with
 * 204 and the allowed methods and headers, and adds Access-Control-Allow-Origin and the
 * exposed headers to every answer to an allowed origin, errors included (a page must be able
 * to read a 401 or a 429). A request from any other origin gets no CORS header.
 */
export function registerCors(app: FastifyInstance, origins: readonly string[]): void {
  if (origins.length === 0) return;
  const allowed = new Set(origins);
  app.register(fastifyCors, {
    origin: allowed.has(ANY_ORIGIN)
      ? ANY_ORIGIN
      : (origin, callback) => callback(null, origin !== undefined && allowed.has(origin)),
    methods: ['GET', 'HEAD'],
    allowedHeaders: [...CORS_ALLOWED_HEADERS],
    exposedHeaders: [...CORS_EXPOSED_HEADERS],
    maxAge: CORS_MAX_AGE_SECONDS,
    // Its text/plain 400 for an OPTIONS without Origin is not ours: app.ts answers plain OPTIONS.
    strictPreflight: false,
  });
}
