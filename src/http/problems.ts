import type { ParamIssue, QueryErrorCode } from '../query/errors.js';

/**
 * The one error catalogue: every refusal the API gives, with its status and title
 * (RFC 9457 problem details). Adding a code means adding it here; nothing else maps statuses.
 */
export type ProblemCode =
  | QueryErrorCode
  | 'unauthorized'
  | 'forbidden'
  | 'not-found'
  | 'method-not-allowed'
  | 'request-timeout'
  | 'not-acceptable'
  | 'bad-request'
  | 'uri-too-long'
  | 'payload-too-large'
  | 'unsupported-media-type'
  | 'expectation-failed'
  | 'header-fields-too-large'
  | 'rate-limited'
  | 'store-unavailable'
  | 'rate-limiter-unavailable'
  | 'internal-error'
  | 'event-id-unavailable'
  | 'slow-consumer';

export interface ProblemKind {
  readonly status: number;
  readonly title: string;
}

export const PROBLEMS: Readonly<Record<ProblemCode, ProblemKind>> = {
  'invalid-parameters': { status: 400, title: 'Invalid parameters' },
  'bad-request': { status: 400, title: 'Bad request' },
  unauthorized: { status: 401, title: 'Missing or invalid API key' },
  forbidden: { status: 403, title: 'Forbidden' },
  'unknown-contract': { status: 404, title: 'No such contract' },
  'no-data': { status: 404, title: 'No data for this date' },
  'not-found': { status: 404, title: 'Not found' },
  'method-not-allowed': { status: 405, title: 'Method not allowed' },
  'not-acceptable': { status: 406, title: 'Not acceptable' },
  'request-timeout': { status: 408, title: 'Request timeout' },
  'payload-too-large': { status: 413, title: 'Request body too large' },
  'uri-too-long': { status: 414, title: 'URI too long' },
  'unsupported-media-type': { status: 415, title: 'Unsupported media type' },
  'expectation-failed': { status: 417, title: 'Expectation failed' },
  // The two stream codes travel in an `event: error` of a started stream (http/stream/): the
  // status is the problem's kind, not the response's (which was already 200).
  'event-id-unavailable': { status: 410, title: 'Event id not available' },
  'rate-limited': { status: 429, title: 'Too many requests' },
  'header-fields-too-large': { status: 431, title: 'Request header fields too large' },
  'internal-error': { status: 500, title: 'Internal error' },
  'store-unavailable': { status: 503, title: 'Market data store unavailable' },
  'rate-limiter-unavailable': { status: 503, title: 'Rate limiting unavailable' },
  'slow-consumer': { status: 503, title: 'Stream closed: the client read too slowly' },
};

/** Problem types are tag URIs (RFC 9457 3.1.1): stable identifiers, documented in docs/api.md. */
export const PROBLEM_TYPE_BASE = 'tag:gridquote,2025:problems/';

export const PROBLEM_CONTENT_TYPE = 'application/problem+json; charset=utf-8';

export interface Problem {
  readonly code: ProblemCode;
  readonly detail: string;
  readonly issues?: readonly ParamIssue[];
  readonly extensions?: Readonly<Record<string, string>>;
  /** Response headers the refusal needs (WWW-Authenticate, Allow, Retry-After). */
  readonly headers?: Readonly<Record<string, string>>;
}

/** A refusal decided in http/ (authentication, negotiation); query refusals are QueryErrors. */
export class HttpProblem extends Error {
  override readonly name = 'HttpProblem';

  constructor(readonly problem: Problem) {
    super(problem.detail);
  }
}

/** The store threw: the answer is 503, never a 500 (the request itself was fine). */
export class StoreUnavailableError extends Error {
  override readonly name = 'StoreUnavailableError';
}

export function problemStatus(code: ProblemCode): number {
  return PROBLEMS[code].status;
}

/** The body: type, title, status, detail, then errors and extension members. */
export function problemBody(problem: Problem): string {
  const kind = PROBLEMS[problem.code];
  const body: Record<string, unknown> = {
    type: `${PROBLEM_TYPE_BASE}${problem.code}`,
    title: kind.title,
    status: kind.status,
    detail: problem.detail,
  };
  if (problem.issues && problem.issues.length > 0) body.errors = problem.issues;
  Object.assign(body, problem.extensions);
  return JSON.stringify(body);
}
