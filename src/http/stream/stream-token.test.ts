import { describe, expect, it } from 'vitest';
import { createApiKey } from '../api-keys.js';
import { createStreamTokens } from './stream-token.js';

const NOW = Date.parse('2025-02-28T05:00:00Z');
const key = createApiKey({ level: 'historical', now: new Date(NOW) }).record;
const BASE64URL = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';

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

  it('is refused in any spelling but the one issued, and with any character of its MAC changed', () => {
    const tokens = createStreamTokens('a secret of at least sixteen', 600);
    const { token } = tokens.issue(key, NOW);
    const body = token.slice(0, -1);
    const last = token.at(-1) ?? '';
    // 22 base64url characters hold 132 bits for the MAC's 128: the last one's low 4 bits are
    // padding, so these 15 others decode to the same bytes.
    const value = BASE64URL.indexOf(last);
    const sameBits = [...BASE64URL].filter((char, index) => char !== last && index >> 4 === value >> 4);
    expect(sameBits).toHaveLength(15);
    for (const char of sameBits) {
      expect(Buffer.from((body + char).slice(-22), 'base64url')).toEqual(
        Buffer.from(token.slice(-22), 'base64url'),
      );
      expect(tokens.matches(body + char, key), char).toBe(false);
    }
    for (let at = token.length - 22; at < token.length; at += 1) {
      const changed = token.slice(0, at) + (token[at] === 'A' ? 'B' : 'A') + token.slice(at + 1);
      expect(tokens.matches(changed, key), changed).toBe(false);
    }
    expect(tokens.matches(token, key)).toBe(true);
  });

  it('shares nothing between processes without a configured secret', () => {
    const { token } = createStreamTokens(undefined, 600).issue(key, NOW);
    expect(createStreamTokens(undefined, 600).matches(token, key)).toBe(false);
  });
});
