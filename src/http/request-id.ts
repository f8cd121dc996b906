import { randomFillSync } from 'node:crypto';

/**
 * The id of each answered request (X-Request-Id, the request line's reqId): 22 random base64url
 * characters (132 random bits). Random bytes for 256 ids are drawn and encoded at once, and each
 * id is cut from that text: one encoding call per 256 requests instead of one per request
 * (about 0.4 µs of a busy server's CPU per request, docs/benchmarks.md).
 * randomUUID builds each id from 16 table lookups and as many string joins, about 600 bytes of
 * garbage per request. Random, not a counter: ids stay unique across workers and restarts, and
 * tell no client how busy the server is.
 */
const ID_CHARS = 22;
const HALF = ID_CHARS / 2;
const IDS_PER_DRAW = 256;
// 3 bytes make 4 characters: 256 ids of 22 characters are 4,224 bytes, with no padding.
const pool = Buffer.alloc((ID_CHARS * IDS_PER_DRAW * 3) / 4);
let text = '';
let offset = 0;

export function newRequestId(): string {
  if (offset === text.length) {
    text = randomFillSync(pool).toString('base64url');
    offset = 0;
  }
  // Two halves, each under V8's 13 characters for a slice that shares its parent's memory: an id
  // kept for long (a stream's request) must not keep the text of 256 ids alive with it.
  const id = text.slice(offset, offset + HALF) + text.slice(offset + HALF, offset + ID_CHARS);
  offset += ID_CHARS;
  return id;
}
