import type { IncomingMessage } from 'node:http';

/**
 * The request-head rules Node's server leaves to the application, answered as problems.
 *
 * RFC 9112, section 3.2: a server answers 400 to an HTTP/1.1 request without Host, and to any
 * request with more than one Host line or a Host that is not a host and port. Node keeps only the
 * first of repeated Host lines in `headers` (the others in rawHeaders) and takes any value, so a
 * request naming two hosts would be answered for whichever a proxy before us did not read.
 */

/** uri-host [ ":" port ] (RFC 3986): an IP literal in brackets, or a registered name or IPv4 address. */
const HOST_AND_PORT = /^(?:\[[0-9A-Za-z:.!$&'()*+,;=_~%-]+\]|[0-9A-Za-z.!$&'()*+,;=_~%-]*)(?::[0-9]*)?$/;

/** Why the request's Host is refused, or undefined when it is acceptable. */
export function hostProblem(request: IncomingMessage): string | undefined {
  const host = request.headers.host;
  if (host === undefined) {
    return request.httpVersion === '1.1'
      ? 'an HTTP/1.1 request must carry a Host header (RFC 9112, section 3.2)'
      : undefined;
  }
  const raw = request.rawHeaders;
  let lines = 0;
  for (let at = 0; at < raw.length; at += 2) {
    const name = raw[at] as string;
    if (name.length === 4 && name.toLowerCase() === 'host') lines += 1;
  }
  if (lines > 1) return `a request must carry one Host header, not ${lines} (RFC 9112, section 3.2)`;
  if (!HOST_AND_PORT.test(host)) {
    return 'the Host header must be a host name or address and an optional port (RFC 9112, section 3.2)';
  }
  return undefined;
}

/** Node's own test of an expectation it meets (lib/_http_server.js): it sends 100 Continue itself. */
const CONTINUE = /(?:^|\W)100-continue(?:$|\W)/i;

/**
 * Why the request's Expect cannot be met (RFC 9110, section 10.1.1: 417), or undefined. Node
 * meets 100-continue of an HTTP/1.1 request and would answer any other expectation with a bare
 * 417 of its own; http-server.ts hands those requests on instead, to be answered here.
 */
export function expectationProblem(request: IncomingMessage): string | undefined {
  const expectation = request.headers.expect;
  if (expectation === undefined || request.httpVersion !== '1.1' || CONTINUE.test(expectation)) {
    return undefined;
  }
  return 'the only expectation this server meets is Expect: 100-continue';
}
