import { type ExchangeClock, exchangeNow } from '../domain/exchange-clock.js';
import type { ApiKeyRecord, KeyStore } from '../store/store.js';
import { keyMatches, parseApiKey } from './api-keys.js';
import { HttpProblem } from './problems.js';

const REALM = 'Bearer realm="gridquote"';

export function refuse(detail: string, error?: 'invalid_request' | 'invalid_token'): HttpProblem {
  // RFC 6750 3: no error attribute when the request carried no credentials at all.
  const challenge = error ? `${REALM}, error="${error}", error_description="${detail}"` : REALM;
  return new HttpProblem({ code: 'unauthorized', detail, headers: { 'www-authenticate': challenge } });
}

/**
 * Resolves `Authorization: Bearer <key>` to its key record, or throws a 401 problem. The detail
 * never repeats the key; the record's id is public and safe to log.
 */
export async function authenticate(
  keys: KeyStore,
  header: string | undefined,
  clock: ExchangeClock,
): Promise<ApiKeyRecord> {
  if (header === undefined || header === '') {
    throw refuse('send the API key as Authorization: Bearer <key>');
  }
  const space = header.indexOf(' ');
  if (space < 0 || header.slice(0, space).toLowerCase() !== 'bearer') {
    throw refuse('the Authorization header must use the Bearer scheme', 'invalid_request');
  }
  const parsed = parseApiKey(header.slice(space + 1).trim());
  if (!parsed) throw refuse('the API key is malformed', 'invalid_token');
  const record = await keys.findKey(parsed.id);
  if (!record || !keyMatches(parsed.secret, record)) {
    throw refuse('the API key is not valid', 'invalid_token');
  }
  return usable(record, clock);
}

/** A found key that is still in force: not revoked, not past its last day (also for stream tokens). */
export function usable(record: ApiKeyRecord, clock: ExchangeClock): ApiKeyRecord {
  if (record.revokedAt !== null) throw refuse('the API key has been revoked', 'invalid_token');
  if (record.expiresOn !== null && record.expiresOn < exchangeNow(clock).date) {
    throw refuse(`the API key expired after ${record.expiresOn}`, 'invalid_token');
  }
  return record;
}
