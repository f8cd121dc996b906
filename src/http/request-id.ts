import { randomFillSync } from 'node:crypto';

/**
 * The id of each answered request (X-Request-Id, the request line's reqId): 128 random bits as 22
 * characters of base64url, drawn from a pool of random bytes refilled 256 ids at a time.
 * randomUUID builds each id from 16 table lookups and as many string joins, about 600 bytes of
 * garbage per request on a busy server (5 % of all a cached answer allocates, and so of the
 * young-generation collections that pause it); here an id is one string. Random, not a counter:
 * ids stay unique across workers and restarts, and tell no client how busy the server is.
 */
const ID_BYTES = 16;
const pool = Buffer.alloc(ID_BYTES * 256);
let offset = pool.length;

export function newRequestId(): string {
  if (offset === pool.length) {
    randomFillSync(pool);
    offset = 0;
  }
  const id = pool.toString('base64url', offset, offset + ID_BYTES);
  offset += ID_BYTES;
  return id;
}
