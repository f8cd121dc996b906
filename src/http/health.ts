import type { FastifyInstance } from 'fastify';
import type { ChangeNotices, MarketReader } from '../store/store.js';
import type { Problem } from './problems.js';
import { problemOf, STORE_RETRY_AFTER_SECONDS, sendProblem } from './reply.js';

export const HEALTH_PATHS = { live: '/healthz', ready: '/readyz' } as const;

const JSON_TYPE = 'application/json; charset=utf-8';
const LIVE_BODY = '{"status":"ok"}';
/** The store re-listens one second after losing its LISTEN connection (postgres-notices.ts). */
const NOTICES_RETRY_AFTER_SECONDS = '1';
/**
 * A store that has not answered readiness in this long is not ready. A healthy one answers in
 * milliseconds; a hung one (a frozen server, a network that drops its packets) held the probe
 * until the read timeout, 6 s on PostgreSQL, past a load balancer's check timeout.
 */
const READY_DEADLINE_MS = 1_000;

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
  // Probes are for the operator's tools, not pages of other origins: no CORS headers.
  app.get(HEALTH_PATHS.live, { config: { cors: false } }, (_request, reply) =>
    reply.header('cache-control', 'no-store').header('content-type', JSON_TYPE).send(LIVE_BODY),
  );
  app.get(HEALTH_PATHS.ready, { config: { cors: false } }, async (request, reply) => {
    reply.header('cache-control', 'no-store');
    try {
      const state = await beforeDeadline(readiness(reader, changeNotices), READY_DEADLINE_MS);
      if (state === undefined) {
        return sendProblem(reply, {
          code: 'store-unavailable',
          detail: `the market data store did not answer within ${READY_DEADLINE_MS} ms`,
          headers: { 'retry-after': STORE_RETRY_AFTER_SECONDS },
        });
      }
      if ('problem' in state) return sendProblem(reply, state.problem);
      return reply.header('content-type', JSON_TYPE).send(JSON.stringify(state.ready));
    } catch (error) {
      return sendProblem(reply, problemOf(request, error));
    }
  });
  return [HEALTH_PATHS.live, HEALTH_PATHS.ready];
}

type Readiness =
  | { readonly ready: { status: 'ready'; latestDate: string; version: number; notices?: ChangeNotices } }
  | { readonly problem: Problem };

/** Whether the store holds data and, given `changeNotices`, hears other processes' commits. */
async function readiness(reader: MarketReader, changeNotices?: () => ChangeNotices): Promise<Readiness> {
  const latestDate = await reader.latestDate();
  if (latestDate === undefined) {
    return { problem: { code: 'store-unavailable', detail: 'the market data store holds no data yet' } };
  }
  const notices = changeNotices?.();
  if (notices === 'lost') {
    return {
      problem: {
        code: 'store-unavailable',
        detail:
          "the store's change notices are lost (listening again): commits of other processes are not seen yet",
        headers: { 'retry-after': NOTICES_RETRY_AFTER_SECONDS },
      },
    };
  }
  const version = await reader.version();
  return { ready: { status: 'ready', latestDate, version, ...(notices === undefined ? {} : { notices }) } };
}

/**
 * What `work` gives within `ms`, else undefined. Work that answers later is left to finish (the
 * store's own timeouts bound it); its failure then is not reported (the probe has been answered).
 */
async function beforeDeadline<T>(work: Promise<T>, ms: number): Promise<T | undefined> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const deadline = new Promise<undefined>((resolve) => {
    timer = setTimeout(() => resolve(undefined), ms);
  });
  work.catch(() => undefined);
  try {
    return await Promise.race([work, deadline]);
  } finally {
    clearTimeout(timer);
  }
}
