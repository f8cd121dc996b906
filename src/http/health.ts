import type { FastifyInstance } from 'fastify';
import type { MarketReader } from '../store/store.js';
import { problemOf, sendProblem } from './reply.js';

export const HEALTH_PATHS = { live: '/healthz', ready: '/readyz' } as const;

const JSON_TYPE = 'application/json; charset=utf-8';
const LIVE_BODY = '{"status":"ok"}';

/**
 * Probes for an orchestrator, without an API key. Liveness answers as long as the process
 * serves HTTP and touches nothing else: a store outage must not get a healthy process restarted.
 * Readiness asks the store (through the guarded reader: a throw is a 503) whether it holds data.
 */
export function registerHealth(app: FastifyInstance, reader: MarketReader): string[] {
  app.get(HEALTH_PATHS.live, (_request, reply) =>
    reply.header('cache-control', 'no-store').header('content-type', JSON_TYPE).send(LIVE_BODY),
  );
  app.get(HEALTH_PATHS.ready, async (request, reply) => {
    reply.header('cache-control', 'no-store');
    try {
      const latestDate = await reader.latestDate();
      if (latestDate === undefined) {
        return sendProblem(reply, {
          code: 'store-unavailable',
          detail: 'the market data store holds no data yet',
        });
      }
      const body = JSON.stringify({ status: 'ready', latestDate, version: await reader.version() });
      return reply.header('content-type', JSON_TYPE).send(body);
    } catch (error) {
      return sendProblem(reply, problemOf(request, error));
    }
  });
  return [HEALTH_PATHS.live, HEALTH_PATHS.ready];
}
