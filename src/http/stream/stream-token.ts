import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import type { ApiKeyRecord } from '../../store/store.js';

/**
 * Stream tokens: a browser's EventSource cannot send an Authorization header, and an API key
 * must never be put in a URL (URLs end up in logs and browser history). So a client that holds
 * the key asks GET /api/stream/token (with the header) for a short-lived token and opens the
 * stream with `?token=`. The token is `gqs_<key id>_<expiry, Unix seconds>_<MAC>`: an HMAC-SHA256
 * (its first 128 bits) over the id, the expiry and the key's stored secret hash, so it names its key, expires on its
 * own, and dies with the key (a revoked or replaced key's tokens fail). Replicas share the
 * signing secret (config.ts streamTokenSecret); without one each process draws its own. The
 * request log redacts it (observability.ts: a parameter named token).
 */

const TOKEN = /^gqs_([0-9a-f]{12})_(\d{10})_([A-Za-z0-9_-]{22})$/;
/** 128 bits of the MAC: plenty against forgery, and the token stays under the 64-character parameter bound. */
const MAC_BYTES = 16;

export interface StreamTokens {
  issue(key: ApiKeyRecord, nowMs: number): { readonly token: string; readonly expiresAt: number };
  /** The key id a well-formed, unexpired token names; its MAC is checked by `matches`. */
  read(token: string, nowMs: number): { readonly keyId: string } | undefined;
  /** Whether the token was issued for this key record (constant-time). */
  matches(token: string, key: ApiKeyRecord): boolean;
  readonly ttlSeconds: number;
}

export function createStreamTokens(secret: string | undefined, ttlSeconds: number): StreamTokens {
  const signingKey = secret ?? randomBytes(32).toString('base64url');
  /** The MAC as it is spelled in a token (base64url). */
  const mac = (id: string, expires: string, secretHash: string) =>
    createHmac('sha256', signingKey)
      .update(`${id}.${expires}.${secretHash}`)
      .digest()
      .subarray(0, MAC_BYTES)
      .toString('base64url');
  return {
    ttlSeconds,
    issue(key, nowMs) {
      const expiresAt = Math.floor(nowMs / 1000) + ttlSeconds;
      const expires = String(expiresAt).padStart(10, '0');
      const signature = mac(key.id, expires, key.secretHash);
      return { token: `gqs_${key.id}_${expires}_${signature}`, expiresAt };
    },
    read(token, nowMs) {
      const match = TOKEN.exec(token);
      if (!match) return undefined;
      if (Number(match[2]) <= Math.floor(nowMs / 1000)) return undefined;
      return { keyId: match[1] ?? '' };
    },
    matches(token, key) {
      const match = TOKEN.exec(token);
      if (!match || match[1] !== key.id) return false;
      // The MAC's text is compared, not its decoded bytes: base64url's last character carries only
      // 2 of the 128 bits, so decoding would accept 16 spellings of one token (any of A-P where A
      // was issued). A token has exactly the spelling it was issued with.
      const presented = Buffer.from(match[3] ?? '', 'latin1');
      const expected = Buffer.from(mac(key.id, match[2] ?? '', key.secretHash), 'latin1');
      return presented.length === expected.length && timingSafeEqual(presented, expected);
    },
  };
}
