import { Redis, type RedisOptions } from 'ioredis';
import { RateLimiterRedis } from 'rate-limiter-flexible';
import { handshakeRefusal, readPemFiles, tlsAlertOf } from '../tls.js';
import { HttpProblem } from './problems.js';
import {
  memoryRateLimitStore,
  type RateLimitStore,
  type RateLimitStoreFactory,
  type RedisUnavailablePolicy,
  type WindowCount,
} from './rate-limit.js';
import { parseRedisLocation } from './redis-location.js';

/**
 * Rate-limit counters shared in Redis (docs/operations.md, "Deployment: beyond one machine"):
 * every server process given the same Redis and key prefix counts a key's requests in the same
 * fixed windows, so a burst spread over replicas is held to the key's limit as on one process.
 */

export interface RedisRateLimitOptions {
  /** redis://, rediss://, redis+sentinel:// or rediss+sentinel:// location (redis-location.ts; it may hold a password: never logged). */
  readonly url: string;
  /** Prefix of every counter key: one per deployment sharing a Redis. */
  readonly keyPrefix: string;
  /**
   * `allow`: count in this process alone (each replica then holds a key to its limit by itself)
   * and report the fallback; `refuse`: answer 503 with Retry-After until Redis is back.
   */
  readonly unavailable: RedisUnavailablePolicy;
  /** The sentinels' own password (Sentinel's requirepass), for a redis+sentinel:// location; never logged. */
  readonly sentinelPassword?: string;
  /**
   * PEM files for a location reached over TLS (rediss://, rediss+sentinel://): the CA that signed
   * the servers' certificates (else the system's CAs), and a client certificate with its key. Read
   * once, at start.
   */
  readonly tlsFiles?: { readonly ca?: string; readonly cert?: string; readonly key?: string };
  /** One line when Redis is lost and one when it is back (not per request). */
  readonly log: (line: string) => void;
}

export interface RedisRateLimitStore {
  readonly factory: RateLimitStoreFactory;
  close(): Promise<void>;
}

/** A command Redis does not answer within this fails, so a hung Redis never holds a request. */
const COMMAND_TIMEOUT_MS = 250;
/** Retry-After of a refusal: ioredis reconnects within about this. */
const RETRY_AFTER_SECONDS = 1;
/** While Redis does not answer, it is asked again (one request's command) this often. */
const PROBE_EVERY_MS = 1000;
const SKIPPED = new Error('skipped while Redis does not answer');

/**
 * A failure as one log line. A Redis server that wants a client certificate and gets none (or
 * one its CA did not sign) ends the handshake with an alert, or just drops the connection once
 * it is encrypted, so that the client sees only a reset: either way the line says what it
 * usually means.
 */
function explained(message: string, tls: boolean): string {
  const line = message.replace(/\s+/g, ' ').trim();
  if (!tls) return line;
  const alert = tlsAlertOf(line);
  if (alert !== undefined) {
    return `${handshakeRefusal(alert)}${/certificate|unknown ca/i.test(alert) ? CLIENT_CERTIFICATE_HINT : ''}`;
  }
  return /ECONNRESET|socket disconnected/.test(line) ? `${line}${CLIENT_CERTIFICATE_HINT}` : line;
}

const CLIENT_CERTIFICATE_HINT =
  '; over TLS, the server most likely refused the client certificate or got none: GRIDQUOTE_REDIS_TLS_CERT, GRIDQUOTE_REDIS_TLS_KEY';

export function createRedisRateLimitStore(options: RedisRateLimitOptions): RedisRateLimitStore {
  const location = parseRedisLocation(options.url);
  if ('problem' in location) throw new Error(`rate limits: the Redis location ${location.problem}`);
  const settings: RedisOptions = {
    // Fail at once while disconnected instead of queueing requests behind a reconnect.
    enableOfflineQueue: false,
    maxRetriesPerRequest: 0,
    commandTimeout: COMMAND_TIMEOUT_MS,
    connectTimeout: 1000,
    retryStrategy: (attempt) => Math.min(attempt * 100, 1000),
  };
  const tls = location.tls ? readPemFiles(options.tlsFiles ?? {}) : undefined;
  if (tls === undefined && options.tlsFiles !== undefined && Object.values(options.tlsFiles).some(Boolean)) {
    throw new Error('rate limits: Redis TLS files given for a location not reached over TLS (rediss://)');
  }
  const client =
    location.kind === 'url'
      ? new Redis(location.url, tls === undefined ? settings : { ...settings, tls })
      : new Redis({
          ...settings,
          // The sentinels and the servers they name alike: one deployment, one CA.
          ...(tls === undefined ? {} : { tls, sentinelTLS: tls, enableTLSForSentinelMode: true }),
          sentinels: [...location.sentinels],
          name: location.name,
          ...(location.username === undefined ? {} : { username: location.username }),
          ...(location.password === undefined ? {} : { password: location.password }),
          ...(options.sentinelPassword === undefined ? {} : { sentinelPassword: options.sentinelPassword }),
          // Sentinel announces a failover (+switch-master): the client moves to the new master at
          // once instead of at its next failed command.
          failoverDetector: true,
          sentinelRetryStrategy: (attempt) => Math.min(attempt * 100, 1000),
        });
  let lost = false;
  let lastFailure = 0;
  const reportLost = (reason: string) => {
    lastFailure = performance.now();
    if (lost) return;
    lost = true;
    options.log(
      `rate limits: Redis unreachable (${reason}); ${options.unavailable === 'allow' ? 'counting in this process alone' : 'refusing limited requests with 503'} until it is back`,
    );
  };
  // Back when the connection is (re)made, or when a command answers again: a Redis that only
  // stopped answering keeps its connection, so no 'ready' follows it.
  const reportBack = () => {
    if (!lost) return;
    lost = false;
    options.log('rate limits: Redis reachable again, counters shared');
  };
  client.on('error', (error: Error) => reportLost(explained(error.message, location.tls)));
  client.on('ready', reportBack);
  const stopConnecting = keepConnecting(client);
  /**
   * A Redis that stopped answering holds each command for the whole timeout. Once one has timed
   * out, the others skip it for PROBE_EVERY_MS: a request pays the timeout at most once in that
   * time (one probe), not once per window on every request.
   */
  const skipRedis = () => lost && performance.now() - lastFailure < PROBE_EVERY_MS;

  const factory: RateLimitStoreFactory = (window) => {
    const shared = new RateLimiterRedis({
      storeClient: client,
      rejectIfRedisNotReady: true,
      // Never refuses by itself: rate-limit.ts compares the count with the key's own limit.
      points: Number.MAX_SAFE_INTEGER,
      duration: window.seconds,
      keyPrefix: `${options.keyPrefix}:rl:${window.name}`,
    });
    const local = memoryRateLimitStore(window);
    return {
      async consume(key): Promise<WindowCount> {
        try {
          if (skipRedis()) throw SKIPPED;
          const result = await shared.consume(key);
          reportBack();
          return { consumedPoints: result.consumedPoints, msBeforeNext: result.msBeforeNext };
        } catch (error) {
          // A skipped command is not a new failure: the next probe is still due on time.
          if (error !== SKIPPED) reportLost(error instanceof Error ? error.message : 'not connected');
          if (options.unavailable === 'allow') {
            const count = await local.consume(key);
            return { consumedPoints: count.consumedPoints, msBeforeNext: count.msBeforeNext, fallback: true };
          }
          throw new HttpProblem({
            code: 'rate-limiter-unavailable',
            detail: `rate limits cannot be checked now; retry after ${RETRY_AFTER_SECONDS} s`,
            headers: { 'retry-after': String(RETRY_AFTER_SECONDS) },
          });
        }
      },
    } satisfies RateLimitStore;
  };

  return {
    factory,
    async close() {
      stopConnecting();
      client.disconnect();
    },
  };
}

/** Wait before starting a client that gave up again: about ioredis's own reconnection delay. */
const RESTART_MS = 500;

/**
 * Starts the client again whenever it gives up for good ('end'), until the returned function
 * is called. Its retry strategy never gives up, yet ioredis 6 does when Sentinel announces a
 * failover while the client is still asking the sentinels where the master is: the announcement
 * closes the connector under that question, and the client ends (seen in the failover tests,
 * about one run in five under load). Without this, rate limits would stay on the fallback until
 * the server restarts.
 */
export function keepConnecting(client: Redis): () => void {
  let stopped = false;
  const restart = () => {
    if (stopped) return;
    setTimeout(() => {
      if (!stopped && client.status === 'end') client.connect().catch(() => undefined);
    }, RESTART_MS).unref();
  };
  client.on('end', restart);
  return () => {
    stopped = true;
    client.off('end', restart);
  };
}
