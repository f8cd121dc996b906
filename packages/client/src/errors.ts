import type { Problem } from './openapi-types.js';

/**
 * A request the API refused or could not answer: the HTTP status and, when the server sent one,
 * its problem details (RFC 9457): `problem.type` ends in the stable error code, `problem.errors`
 * names every bad parameter, `problem.nearestDate` the nearest day with data of a 404.
 */
export class GridquoteError extends Error {
  override readonly name = 'GridquoteError';

  constructor(
    readonly status: number,
    message: string,
    readonly problem?: Problem,
    /** The server's X-Request-Id: quote it when reporting a problem. */
    readonly requestId?: string,
  ) {
    super(message);
  }

  /** The problem's code (`no-data`, `rate-limited`, ...), from the tag URI of its type. */
  get code(): string | undefined {
    return this.problem?.type.split('/').pop();
  }
}

/** Builds the error of a non-2xx answer from its body (problem+json when the server sent one). */
export async function errorOf(response: Response): Promise<GridquoteError> {
  const requestId = response.headers.get('x-request-id') ?? undefined;
  const text = await response.text().catch(() => '');
  let problem: Problem | undefined;
  if ((response.headers.get('content-type') ?? '').startsWith('application/problem+json')) {
    try {
      problem = JSON.parse(text) as Problem;
    } catch {
      problem = undefined;
    }
  }
  const detail = problem?.detail ?? (text.slice(0, 200) || response.statusText);
  return new GridquoteError(response.status, `HTTP ${response.status}: ${detail}`, problem, requestId);
}
