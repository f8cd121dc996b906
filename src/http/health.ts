import type { FastifyInstance } from 'fastify';
import type { ChangeNotices, MarketReader } from '../store/store.js';
import { problemOf, sendProblem } from './reply.js';

export const HEALTH_PATHS = { live: '/healthz', ready: '/readyz' } as const;

const JSON_TYPE = 'application/json; charset=utf-8';
const LIVE_BODY = '{"status":"ok"}';
/** The store re-listens one second after losing its LISTEN connection (postgres-notices.ts). */
const NOTICES_RETRY_AFTER_SECONDS = '1';

/**
 * Probes for an orchestrator, without an API key. Liveness answers as long as the process
 * serves HTTP and touches nothing else: a store outage must not get a healthy process restarted.
 * Readiness asks the store (through the guarded reader: a throw is a 503) whether it holds data,
 * and, given `changeNotices`, whether commits of other processes reach this one: while they do
 * not (a PostgreSQL replica's LISTEN connection lost) its current-day answers may be stale, so
 * it is not ready until it listens again.
 */
export function registerHealth(
  app: FastifyInstance,
  reader: MarketReader,
  changeNotices?: () => ChangeNotices,
): string[] {
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
      const notices = changeNotices?.();
      if (notices === 'lost') {
        return sendProblem(reply, {
          code: 'store-unavailable',
          detail:
            "the store's change notices are lost (listening again): commits of other processes are not seen yet",
          headers: { 'retry-after': NOTICES_RETRY_AFTER_SECONDS },
        });
      }
      const version = await reader.version();
      const body = JSON.stringify({
        status: 'ready',
        latestDate,
        version,
        ...(notices === undefined ? {} : { notices }),
      });
      return reply.header('content-type', JSON_TYPE).send(body);
    } catch (error) {
      return sendProblem(reply, problemOf(request, error));
    }
  });
  return [HEALTH_PATHS.live, HEALTH_PATHS.ready];
}
