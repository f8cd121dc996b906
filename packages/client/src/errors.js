/**
 * A request the API refused or could not answer: the HTTP status and, when the server sent one,
 * its problem details (RFC 9457): `problem.type` ends in the stable error code, `problem.errors`
 * names every bad parameter, `problem.nearestDate` the nearest day with data of a 404.
 */
export class GridquoteError extends Error {
    status;
    problem;
    requestId;
    name = 'GridquoteError';
    constructor(status, message, problem, 
    /** The server's X-Request-Id: quote it when reporting a problem. */
    requestId) {
        super(message);
        this.status = status;
        this.problem = problem;
        this.requestId = requestId;
    }
    /** The problem's code (`no-data`, `rate-limited`, ...), from the tag URI of its type. */
    get code() {
        return this.problem?.type.split('/').pop();
    }
}
/** Builds the error of a non-2xx answer from its body (problem+json when the server sent one). */
export async function errorOf(response) {
    const requestId = response.headers.get('x-request-id') ?? undefined;
    const text = await response.text().catch(() => '');
    let problem;
    if ((response.headers.get('content-type') ?? '').startsWith('application/problem+json')) {
        try {
            problem = JSON.parse(text);
        }
        catch {
            problem = undefined;
        }
    }
    const detail = problem?.detail ?? (text.slice(0, 200) || response.statusText);
    return new GridquoteError(response.status, `HTTP ${response.status}: ${detail}`, problem, requestId);
}
//# sourceMappingURL=errors.js.map