/**
 * The alert a TLS peer ended the handshake with, from OpenSSL's error text, such as
 * `...:ssl3_read_bytes:tlsv13 alert certificate required:../deps/openssl/...` (certificate
 * required); undefined for any other error. Servers that want a client certificate (Redis's
 * tls-auth-clients, NATS's `verify`) refuse a missing or unknown one so.
 */
export function tlsAlertOf(message: string): string | undefined {
  return /\b(?:tlsv1\d?|sslv3) alert ([a-z ]+?)(?::|\s*$)/i.exec(message.replace(/\s+/g, ' '))?.[1];
}
