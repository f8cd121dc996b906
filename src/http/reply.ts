import type { FastifyReply, FastifyRequest } from 'fastify';
import { QueryError } from '../query/errors.js';
import {
  HttpProblem,
  PROBLEM_CONTENT_TYPE,
  type Problem,
  problemBody,
  problemStatus,
  StoreUnavailableError,
} from './problems.js';

export const STORE_RETRY_AFTER_SECONDS = '5';

export function sendProblem(reply: FastifyReply, problem: Problem): FastifyReply {
  if (problem.headers) reply.headers(problem.headers);
  return reply
    .code(problemStatus(problem.code))
    .header('content-type', PROBLEM_CONTENT_TYPE)
    .send(problemBody(problem));
}

/** The answer to anything a handler throws: a refusal as its problem, a failure logged. */
export function problemOf(request: FastifyRequest, error: unknown): Problem {
  if (error instanceof QueryError) {
    return { code: error.code, detail: error.detail, issues: error.issues, extensions: error.extensions };
  }
  if (error instanceof HttpProblem) return error.problem;
  if (error instanceof StoreUnavailableError) {
    // An outage fails every request: its cause is logged once a second, with how many were not.
    const failuresNotLogged = request.server.storeFailures.take();
    if (failuresNotLogged !== undefined)
      request.log.error({ err: error.cause ?? error, failuresNotLogged }, 'store unavailable');
    return {
      code: 'store-unavailable',
      detail: 'the market data store is unavailable; retry shortly',
      // SQLite waits 5 s for a lock before failing: a retry sooner would likely meet it again.
      headers: { 'retry-after': STORE_RETRY_AFTER_SECONDS },
    };
  }
  request.log.error({ err: error }, 'unexpected failure');
  return { code: 'internal-error', detail: `unexpected failure; quote request id ${request.id}` };
}
