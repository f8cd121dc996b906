import { describe, expect, it } from 'vitest';
import { negotiate } from './negotiation.js';

describe('content negotiation', () => {
  it.each([
    [undefined, 'json'],
    ['', 'json'],
    ['*/*', 'json'],
    ['application/json', 'json'],
    ['application/*', 'json'],
    ['text/csv', 'csv'],
    ['text/csv; charset=utf-8', 'csv'],
    ['text/*', 'csv'],
    ['TEXT/CSV', 'csv'],
    ['text/csv;q=0.9, application/json;q=0.1', 'csv'],
    ['application/json;q=0.5, text/csv;q=0.9', 'csv'],
    ['text/csv;q=0.5, application/json', 'json'],
    ['text/csv, application/json', 'json'],
    ['text/csv, */*;q=0.1', 'csv'],
    ['text/html, */*;q=0.8', 'json'],
    ['text/html, text/csv;q=0.2', 'csv'],
    ['*/*, application/json;q=0', 'csv'],
    ['text/csv;q=abc', 'csv'],
  ] as const)('Accept %j -> %s', (accept, expected) => {
    expect(negotiate(accept)).toBe(expected);
  });

  it.each(['application/xml', 'text/html', 'application/problem+json', 'text/csv;q=0', 'garbage', 'image/*'])(
    'accepts neither: %s',
    (accept) => {
      expect(negotiate(accept)).toBeUndefined();
    },
  );
});
