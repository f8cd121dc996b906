import { createHash } from 'node:crypto';

/** Entity tags (RFC 9110 8.8.3) and If-None-Match (13.1.2). */

/** A short digest of the bytes: 96 bits, plenty to tell two answers of one URL apart. */
export function digestOf(body: Buffer): string {
  return createHash('sha1').update(body).digest('base64url').slice(0, 16);
}

const TAG = /(?:W\/)?"([^"]*)"/g;

/**
 * Whether If-None-Match names the current representation: `*`, or a list holding its tag.
 * Weak comparison (13.1.2 for GET and HEAD): a `W/` prefix on either side is disregarded.
 */
export function noneMatchHits(header: string | undefined, etag: string): boolean {
  if (header === undefined || header === '') return false;
  if (header.trim() === '*') return true;
  const opaque = etag.startsWith('W/') ? etag.slice(2) : etag;
  // The usual case: the client echoes the one tag it was given.
  if (header === opaque) return true;
  for (const match of header.matchAll(TAG)) {
    if (`"${match[1]}"` === opaque) return true;
  }
  return false;
}
