import { describe, expect, it } from 'vitest';
import { createApiKey } from '../api-keys.js';
import { createStreamTokens } from './stream-token.js';

const NOW = Date.parse('2025-02-28T05:00:00Z');
const key = createApiKey({ level: 'historical', now: new Date(NOW) }).record;

describe('stream tokens', () => {
  it('names its key until it expires, and fits the 64-character parameter bound', () => {
    const tokens = createStreamTokens('a secret of at least sixteen', 600);
    const { token, expiresAt } = tokens.issue(key, NOW);
    expect(token.length).toBeLessThanOrEqual(64);
    expect(expiresAt).toBe(NOW / 1000 + 600);
    expect(tokens.read(token, NOW)).toEqual({ keyId: key.id });
    expect(tokens.read(token, NOW + 599_000)).toEqual({ keyId: key.id });
    expect(tokens.read(token, NOW + 600_000)).toBeUndefined();
    expect(tokens.matches(token, key)).toBe(true);
  });

  it('is refused for another key, a replaced secret, another signing secret or a changed expiry', () => {
    const tokens = createStreamTokens('a secret of at least sixteen', 600);
    const { token } = tokens.issue(key, NOW);
    const other = createApiKey({ level: 'historical', now: new Date(NOW) }).record;
    expect(tokens.matches(token, other)).toBe(false);
    expect(tokens.matches(token, { ...key, secretHash: other.secretHash })).toBe(false);
    expect(createStreamTokens('another secret, sixteen+', 600).matches(token, key)).toBe(false);
    const later = token.replace(/_(\d{10})_/, (_, expiry: string) => `_${String(Number(expiry) + 3600)}_`);
    expect(tokens.matches(later, key)).toBe(false);
  });

  it('shares nothing between processes without a configured secret', () => {
    const { token } = createStreamTokens(undefined, 600).issue(key, NOW);
    expect(createStreamTokens(undefined, 600).matches(token, key)).toBe(false);
  });
});
