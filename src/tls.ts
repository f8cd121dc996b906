import { readFileSync } from 'node:fs';
import type { ConnectionOptions } from 'node:tls';

/**
 * What the Redis and NATS connections share about TLS: PEM files read into Node's options, and
 * how a server's refusal of the handshake is read and told.
 */

/** Node's TLS options from PEM files (config checked them readable); none given: the system's CAs. */
export function readPemFiles(files: {
  readonly ca?: string | undefined;
  readonly cert?: string | undefined;
  readonly key?: string | undefined;
}): ConnectionOptions {
  return {
    ...(files.ca === undefined ? {} : { ca: readFileSync(files.ca) }),
    ...(files.cert === undefined ? {} : { cert: readFileSync(files.cert) }),
    ...(files.key === undefined ? {} : { key: readFileSync(files.key) }),
  };
}

/**
 * The alert a TLS peer ended the handshake with, from OpenSSL's error text, such as
 * `...:ssl3_read_bytes:tlsv13 alert certificate required:../deps/openssl/...` (certificate
 * required); undefined for any other error. Servers that want a client certificate (Redis's
 * tls-auth-clients, NATS's `verify`) refuse a missing or unknown one so.
 */
export function tlsAlertOf(message: string): string | undefined {
  return /\b(?:tlsv1\d?|sslv3) alert ([a-z ]+?)(?::|\s*$)/i.exec(message.replace(/\s+/g, ' '))?.[1];
}

/** The words every log line and error uses for such a refusal (docs/operations.md quotes them). */
export function handshakeRefusal(alert: string): string {
  return `the server ended the TLS handshake with the alert "${alert}"`;
}
