import { createHash, timingSafeEqual } from 'node:crypto';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Metrics } from './metrics.js';
import { sendProblem } from './reply.js';

export const METRICS_PATH = '/metrics';

/**
 * GET /metrics, the Prometheus exposition. Without a configured token only loopback clients
 * may scrape (a sidecar or a local agent), and not through a proxy: a reverse proxy on the same
 * host connects from loopback for any client, so a request naming a client it was forwarded for
 * (Forwarded, X-Forwarded-For, X-Real-IP) is refused too, and so is one for a Host that is not
 * loopback (DNS rebinding). With a token (GRIDQUOTE_METRICS_TOKEN),
 * any client that sends `Authorization: Bearer <token>`. API keys do not open it: metrics are
 * for operators.
 */
export function registerMetricsEndpoint(
  app: FastifyInstance,
  metrics: Metrics,
  token: string | undefined,
): string {
  const expected = token === undefined ? undefined : digest(token);
  // No CORS headers, whatever origins the API allows: a page of another origin must never read it.
  app.get(METRICS_PATH, { config: { cors: false } }, async (request, reply) => {
    reply.header('cache-control', 'no-store');
    if (expected !== undefined) {
      if (!bearerMatches(request, expected)) {
        return sendProblem(reply, {
          code: 'unauthorized',
          detail: 'send the metrics token as Authorization: Bearer <token>',
          headers: { 'www-authenticate': 'Bearer realm="gridquote-metrics"' },
        });
      }
    } else if (
      !isLoopback(request.socket.remoteAddress) ||
      wasForwarded(request) ||
      !isLoopbackHost(request.headers.host)
    ) {
      return sendProblem(reply, {
        code: 'forbidden',
        detail:
          'metrics are served to loopback clients asking for a loopback host only, not through a proxy, unless a metrics token is configured',
      });
    }
    const body = await metrics.exposition();
    return reply.header('content-type', metrics.contentType).send(body);
  });
  return METRICS_PATH;
}

function digest(text: string): Buffer {
  return createHash('sha256').update(text).digest();
}

/** Compares digests, so neither the length nor the content of the token leaks through timing. */
function bearerMatches(request: FastifyRequest, expected: Buffer): boolean {
  const header = request.headers.authorization ?? '';
  const space = header.indexOf(' ');
  if (space < 0 || header.slice(0, space).toLowerCase() !== 'bearer') return false;
  return timingSafeEqual(digest(header.slice(space + 1).trim()), expected);
}

/** Whether a proxy says it forwarded the request for a client (RFC 7239, or the de facto headers). */
function wasForwarded(request: FastifyRequest): boolean {
  const { headers } = request;
  return (
    headers.forwarded !== undefined ||
    headers['x-forwarded-for'] !== undefined ||
    headers['x-real-ip'] !== undefined
  );
}

/**
 * Whether the Host a loopback client asked for is this machine's: a page in a browser on the host
 * whose own name was re-pointed at 127.0.0.1 (DNS rebinding) connects from loopback too, but asks
 * for its own name.
 */
function isLoopbackHost(host: string | undefined): boolean {
  if (host === undefined) return true; // HTTP/1.0: no name was asked for
  const name = host.replace(/:\d*$/, '').toLowerCase();
  return name === 'localhost' || name === '[::1]' || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(name);
}

export function isLoopback(address: string | undefined): boolean {
  if (address === undefined) return false;
  return address === '::1' || address.startsWith('127.') || address.startsWith('::ffff:127.');
}
