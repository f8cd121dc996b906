import type { IncomingMessage } from 'node:http';
import { describe, expect, it } from 'vitest';
import { expectationProblem, hostProblem } from './request-head.js';

function request(rawHeaders: string[], httpVersion = '1.1'): IncomingMessage {
  const headers: Record<string, string> = {};
  for (let at = 0; at < rawHeaders.length; at += 2) {
    const name = (rawHeaders[at] as string).toLowerCase();
    // Node keeps the first of repeated Host lines.
    headers[name] ??= rawHeaders[at + 1] as string;
  }
  return { headers, rawHeaders, httpVersion } as unknown as IncomingMessage;
}

describe('hostProblem', () => {
  it.each([
    'example.com',
    'example.com:8080',
    '127.0.0.1:80',
    '[::1]:8080',
    '[fe80::1%25eth0]',
    'xn--bcher-kva.example',
    '',
  ])('takes %j', (host) => {
    expect(hostProblem(request(['Host', host, 'Accept', '*/*']))).toBeUndefined();
  });

  it.each(['example.com/evil', 'user@example.com', 'a b', 'example.com:80a', '[::1', 'exa"mple'])(
    'refuses %j',
    (host) => {
      expect(hostProblem(request(['Host', host]))).toMatch(/^the Host header must be a host name/);
    },
  );

  it('refuses two Host lines, whatever their case and even when they agree', () => {
    expect(hostProblem(request(['Host', 'a.example', 'hOST', 'a.example']))).toBe(
      'a request must carry one Host header, not 2 (RFC 9112, section 3.2)',
    );
  });

  it('requires Host of HTTP/1.1 only', () => {
    expect(hostProblem(request([]))).toMatch(/must carry a Host header/);
    expect(hostProblem(request([], '1.0'))).toBeUndefined();
    expect(hostProblem(request(['Host', 'a', 'Host', 'b'], '1.0'))).toMatch(/not 2/);
  });
});

describe('expectationProblem', () => {
  it('leaves 100-continue to Node, which meets it, and any expectation of HTTP/1.0 alone', () => {
    for (const value of ['100-continue', '100-Continue', ' 100-continue ']) {
      expect(expectationProblem(request(['Expect', value]))).toBeUndefined();
    }
    expect(expectationProblem(request(['Expect', 'fly'], '1.0'))).toBeUndefined();
    expect(expectationProblem(request(['Host', 'a']))).toBeUndefined();
  });

  it('refuses any other expectation', () => {
    expect(expectationProblem(request(['Expect', '200-ok']))).toBe(
      'the only expectation this server meets is Expect: 100-continue',
    );
  });
});
