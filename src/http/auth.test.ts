import * as crypto from 'node:crypto';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { ApiKeyRecord, KeyStore } from '../store/store.js';
import { createApiKey, hashSecret, parseApiKey, secretMatches } from './api-keys.js';
import { authenticate } from './auth.js';
import { HttpProblem } from './problems.js';

vi.mock('node:crypto', async (importOriginal) => {
  const original = await importOriginal<typeof import('node:crypto')>();
  return { ...original, timingSafeEqual: vi.fn(original.timingSafeEqual) };
});

function memoryKeys(records: ApiKeyRecord[] = []): KeyStore {
  const byId = new Map(records.map((record) => [record.id, record]));
  return {
    insertKey: async (record) => void byId.set(record.id, record),
    findKey: async (id) => byId.get(id),
    listKeys: async () => [...byId.values()],
    revokeKey: async (id, at) => {
      const record = byId.get(id);
      if (record) byId.set(id, { ...record, revokedAt: at });
      return record !== undefined;
    },
  };
}

// 2025-03-07 12:00 Sydney (AEDT).
const NOW = new Date('2025-03-07T01:00:00Z');
const clock = () => NOW;

async function refusal(
  action: () => Promise<unknown>,
): Promise<{ detail: string; challenge: string | undefined }> {
  try {
    await action();
  } catch (error) {
    if (error instanceof HttpProblem) {
      expect(error.problem.code).toBe('unauthorized');
      return { detail: error.problem.detail, challenge: error.problem.headers?.['www-authenticate'] };
    }
    throw error;
  }
  throw new Error('expected a 401 refusal');
}

afterEach(() => vi.mocked(crypto.timingSafeEqual).mockClear());

describe('API keys', () => {
  it('look like gq_<12 hex>_<43 base64url> and the record holds only the secret hash', async () => {
    const { key, record } = createApiKey({ level: 'historical', name: 'desk', now: NOW });
    expect(key).toMatch(/^gq_[0-9a-f]{12}_[A-Za-z0-9_-]{43}$/);
    const parsed = parseApiKey(key);
    expect(parsed?.id).toBe(record.id);
    expect(record.secretHash).toBe(hashSecret(parsed?.secret ?? ''));
    expect(record.secretHash).toMatch(/^[0-9a-f]{64}$/);
    const stored = JSON.stringify(record);
    expect(stored).not.toContain(key);
    expect(stored).not.toContain(parsed?.secret);
    expect(record).toMatchObject({ level: 'historical', name: 'desk', expiresOn: null, revokedAt: null });
  });

  it('differ every time', async () => {
    const keys = new Set(
      Array.from({ length: 50 }, () => createApiKey({ level: 'end_of_day', now: NOW }).key),
    );
    expect(keys.size).toBe(50);
  });

  it('compare secrets in constant time', async () => {
    const { key, record } = createApiKey({ level: 'historical', now: NOW });
    const secret = parseApiKey(key)?.secret ?? '';
    expect(secretMatches(secret, record.secretHash)).toBe(true);
    expect(secretMatches(`${secret.slice(0, -1)}A`, record.secretHash)).toBe(secret.endsWith('A'));
    expect(crypto.timingSafeEqual).toHaveBeenCalledTimes(2);
    expect(secretMatches(secret, 'abcd')).toBe(false);
  });
});

describe('authenticate', () => {
  const live = createApiKey({ level: 'end_of_day', now: NOW });
  const revoked = createApiKey({ level: 'historical', now: NOW });
  const expired = createApiKey({ level: 'historical', now: NOW, expiresOn: '20250306' });
  const lastDay = createApiKey({ level: 'historical', now: NOW, expiresOn: '20250307' });
  const keys = memoryKeys([
    live.record,
    { ...revoked.record, revokedAt: '2025-03-01T00:00:00.000Z' },
    expired.record,
    lastDay.record,
  ]);

  it('returns the record of a valid key, through its last valid day', async () => {
    expect((await authenticate(keys, `Bearer ${live.key}`, clock)).level).toBe('end_of_day');
    expect((await authenticate(keys, `bearer   ${lastDay.key}`, clock)).id).toBe(lastDay.record.id);
    expect(crypto.timingSafeEqual).toHaveBeenCalled();
  });

  it('refuses a missing header with a bare Bearer challenge', async () => {
    expect((await refusal(() => authenticate(keys, undefined, clock))).challenge).toBe(
      'Bearer realm="gridquote"',
    );
  });

  it.each([
    ['another scheme', `Basic ${Buffer.from('a:b').toString('base64')}`, 'invalid_request'],
    ['a malformed key', 'Bearer not-a-key', 'invalid_token'],
    ['an unknown id', `Bearer ${createApiKey({ level: 'historical', now: NOW }).key}`, 'invalid_token'],
    ['a wrong secret', `Bearer ${live.key.slice(0, 16)}${'A'.repeat(43)}`, 'invalid_token'],
    ['a revoked key', `Bearer ${revoked.key}`, 'invalid_token'],
    ['an expired key', `Bearer ${expired.key}`, 'invalid_token'],
  ])('refuses %s', async (_name, header, error) => {
    const { detail, challenge } = await refusal(() => authenticate(keys, header, clock));
    expect(challenge).toContain(`error="${error}"`);
    expect(detail).not.toContain(header.slice(7));
  });
});

describe('authenticate, once a key has been verified (api-keys.ts keyMatches)', () => {
  it('compares later requests with the verified secret in constant time, without hashing again', async () => {
    const key = createApiKey({ level: 'historical', now: NOW });
    const keys = memoryKeys([key.record]);
    const digest = vi.spyOn(crypto, 'hash');
    await authenticate(keys, `Bearer ${key.key}`, clock);
    const hashed = digest.mock.calls.length;
    expect(hashed).toBeGreaterThan(0);
    vi.mocked(crypto.timingSafeEqual).mockClear();
    for (let i = 0; i < 3; i++)
      expect((await authenticate(keys, `Bearer ${key.key}`, clock)).id).toBe(key.record.id);
    expect(digest.mock.calls.length).toBe(hashed);
    expect(crypto.timingSafeEqual).toHaveBeenCalledTimes(3);
    digest.mockRestore();
  });

  it('still refuses a wrong secret for that key id', async () => {
    const key = createApiKey({ level: 'historical', now: NOW });
    const keys = memoryKeys([key.record]);
    await authenticate(keys, `Bearer ${key.key}`, clock);
    const wrong = `${key.key.slice(0, -1)}${key.key.endsWith('A') ? 'B' : 'A'}`;
    expect((await refusal(() => authenticate(keys, `Bearer ${wrong}`, clock))).detail).toBe(
      'the API key is not valid',
    );
    expect((await authenticate(keys, `Bearer ${key.key}`, clock)).id).toBe(key.record.id);
  });

  it('stops a revoked key at its next request', async () => {
    const key = createApiKey({ level: 'historical', now: NOW });
    const keys = memoryKeys([key.record]);
    await authenticate(keys, `Bearer ${key.key}`, clock);
    await keys.revokeKey(key.record.id, '2025-03-07T01:00:00.000Z');
    expect((await refusal(() => authenticate(keys, `Bearer ${key.key}`, clock))).detail).toBe(
      'the API key has been revoked',
    );
  });

  it('stops a key the day after its last day, though it was verified before', async () => {
    const key = createApiKey({ level: 'historical', now: NOW, expiresOn: '20250307' });
    const keys = memoryKeys([key.record]);
    await authenticate(keys, `Bearer ${key.key}`, clock);
    // 2025-03-08 12:00 Sydney: the same record object, now past its last day.
    const nextDay = () => new Date('2025-03-08T01:00:00Z');
    expect((await refusal(() => authenticate(keys, `Bearer ${key.key}`, nextDay))).detail).toBe(
      'the API key expired after 20250307',
    );
  });
});
