import { hash, randomBytes, timingSafeEqual } from 'node:crypto';
import type { AccessLevel } from '../query/context.js';
import type { ApiKeyRecord } from '../store/store.js';

/**
 * API keys: `gq_<id>_<secret>`. The id (12 lowercase hex) is public and names the record; the
 * secret (32 random bytes, base64url) is shown once at creation and stored only as its SHA-256.
 * A plain hash suffices because the secret has 256 bits of entropy: there is nothing to guess.
 */

const KEY = /^gq_([0-9a-f]{12})_([A-Za-z0-9_-]{43})$/;

export interface ParsedKey {
  readonly id: string;
  readonly secret: string;
}

export function parseApiKey(text: string): ParsedKey | undefined {
  const match = KEY.exec(text);
  if (!match) return undefined;
  return { id: match[1] ?? '', secret: match[2] ?? '' };
}

export function hashSecret(secret: string): string {
  return hash('sha256', secret, 'hex');
}

/** Constant-time comparison of the presented secret's hash with the stored one. */
export function secretMatches(secret: string, storedHash: string): boolean {
  // crypto.hash: one call, no Hash object; this runs on every authenticated request.
  const presented = hash('sha256', secret, 'buffer');
  const stored = Buffer.from(storedHash, 'hex');
  // Lengths are public (always 32 bytes unless the record is corrupt); only contents are compared.
  return stored.length === presented.length && timingSafeEqual(presented, stored);
}

/**
 * Secrets already found to match a key record, by record: a key store hands out the same record
 * object while the key is unchanged (and a new one, or none, once it is revoked or replaced), so
 * a key's later requests compare the presented secret with the verified one, still in constant
 * time, instead of hashing it again (SHA-256 was about 4 µs of every request: docs/benchmarks.md).
 * Held in memory only, like the request that carried it; never stored, logged or shown.
 */
const verified = new WeakMap<ApiKeyRecord, Buffer>();

/** Whether the secret is the record's: hashed and compared once per record, then compared with the verified bytes. */
export function keyMatches(secret: string, record: ApiKeyRecord): boolean {
  const known = verified.get(record);
  if (known !== undefined) {
    // Always 43 base64url characters (parseApiKey): one byte each.
    const presented = Buffer.from(secret, 'latin1');
    return presented.length === known.length && timingSafeEqual(presented, known);
  }
  if (!secretMatches(secret, record.secretHash)) return false;
  // Unpooled: a small pooled slice would pin a shared 8 KiB slab for as long as the key is used.
  const copy = Buffer.allocUnsafeSlow(Buffer.byteLength(secret, 'latin1'));
  copy.write(secret, 'latin1');
  verified.set(record, copy);
  return true;
}

export interface NewKey {
  /** The full key, to show once. */
  readonly key: string;
  readonly record: ApiKeyRecord;
}

export function createApiKey(input: {
  readonly level: AccessLevel;
  readonly name?: string;
  /** yyyyMMdd, last valid day (Sydney). */
  readonly expiresOn?: string;
  /** Requests per second / minute; absent = the level's default; 0 = unlimited. */
  readonly perSecond?: number;
  readonly perMinute?: number;
  readonly now: Date;
}): NewKey {
  const id = randomBytes(6).toString('hex');
  const secret = randomBytes(32).toString('base64url');
  return {
    key: `gq_${id}_${secret}`,
    record: {
      id,
      name: input.name ?? '',
      level: input.level,
      secretHash: hashSecret(secret),
      createdAt: input.now.toISOString(),
      expiresOn: input.expiresOn ?? null,
      revokedAt: null,
      perSecond: input.perSecond ?? null,
      perMinute: input.perMinute ?? null,
    },
  };
}
