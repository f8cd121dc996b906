import { accessSync, constants, statSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { DEFAULT_HTTP_LIMITS } from './http/limits.js';
import { REDIS_UNAVAILABLE_POLICIES, type RedisUnavailablePolicy } from './http/rate-limit.js';
import { parseRedisLocation } from './http/redis-location.js';
import { parseReplaySchedule, type ReplaySchedule } from './ingest/replay-schedule.js';

/**
 * Every setting of the server, from the environment and command-line flags: the only module
 * that touches process.env. Each setting is one entry of SETTINGS (its env var, its flag, its
 * default, its parser); `serve` registers a flag per entry and docs/operations.md has a row per
 * entry (a test checks both), so adding a setting is adding an entry. Values are parsed and
 * validated at start, every problem is reported at once, and the result is frozen.
 */

/** A parser's verdict on one text; a problem reads after the source, e.g. `must be ..., got "x"`. */
export type Parsed<T> = { readonly value: T } | { readonly problem: string };

export interface Setting<T> {
  /** The environment variable. */
  readonly env: string;
  /** `<placeholder>` of the flag in --help. */
  readonly placeholder: string;
  readonly description: string;
  /** Used when neither the flag nor the env var is given. */
  readonly fallback: T;
  readonly parse: (text: string) => Parsed<T>;
}

export const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

export const DEFAULT_PORT = 8080;
export const DEFAULT_HOST = '127.0.0.1';
export const DEFAULT_SHUTDOWN_GRACE_MS = 10_000;

/** More workers than this is a typo, not a machine. */
const MAX_WORKERS = 256;
const MINUTE_MS = 60_000;
const HOUR_MS = 60 * MINUTE_MS;

export const SETTINGS = {
  db: {
    env: 'GRIDQUOTE_DB',
    placeholder: 'location',
    description: 'the store to serve, a SQLite file or a postgres:// URL (must exist)',
    fallback: undefined as string | undefined,
    parse: nonEmpty('a file path or a postgres:// URL'),
  },
  port: {
    env: 'PORT',
    placeholder: 'n',
    description: 'TCP port; 0 picks a free one',
    fallback: DEFAULT_PORT,
    parse: (text) => wholeNumber(text, 0, 65_535, 'a port number'),
  },
  host: {
    env: 'HOST',
    placeholder: 'h',
    description: 'interface to bind; loopback by default, so exposing the API is a deliberate choice',
    fallback: DEFAULT_HOST,
    parse: nonEmpty('a host name or address'),
  },
  logLevel: {
    env: 'LOG_LEVEL',
    placeholder: 'level',
    description: `level of the server's JSON log on stdout (a line per request at info, a 5xx and its cause at error, warnings such as a lost Redis at warn): ${LOG_LEVELS.join(', ')}`,
    fallback: 'info' as LogLevel,
    parse: (text) =>
      (LOG_LEVELS as readonly string[]).includes(text)
        ? { value: text as LogLevel }
        : { problem: `must be one of ${LOG_LEVELS.join(', ')}, got ${JSON.stringify(text)}` },
  },
  requestTimeoutMs: {
    env: 'GRIDQUOTE_REQUEST_TIMEOUT_MS',
    placeholder: 'ms',
    description:
      'a client must send its whole request (headers) within this, else 408 and the connection is cut',
    fallback: DEFAULT_HTTP_LIMITS.requestTimeoutMs,
    parse: (text) => wholeNumber(text, 100, HOUR_MS, 'milliseconds'),
  },
  idleTimeoutMs: {
    env: 'GRIDQUOTE_IDLE_TIMEOUT_MS',
    placeholder: 'ms',
    description: 'a connection with no traffic either way for this long is closed',
    fallback: DEFAULT_HTTP_LIMITS.idleTimeoutMs,
    parse: (text) => wholeNumber(text, 100, HOUR_MS, 'milliseconds'),
  },
  keepAliveTimeoutMs: {
    env: 'GRIDQUOTE_KEEP_ALIVE_TIMEOUT_MS',
    placeholder: 'ms',
    description: 'an idle keep-alive connection is closed after this',
    fallback: DEFAULT_HTTP_LIMITS.keepAliveTimeoutMs,
    parse: (text) => wholeNumber(text, 100, HOUR_MS, 'milliseconds'),
  },
  maxUrlBytes: {
    env: 'GRIDQUOTE_MAX_URL_BYTES',
    placeholder: 'bytes',
    description: 'longest request target (path and query) accepted; longer is 414',
    fallback: DEFAULT_HTTP_LIMITS.maxUrlBytes,
    parse: (text) => wholeNumber(text, 256, 1_048_576, 'a size in bytes'),
  },
  maxHeaderBytes: {
    env: 'GRIDQUOTE_MAX_HEADER_BYTES',
    placeholder: 'bytes',
    description: 'largest request line plus headers accepted; larger is 431',
    fallback: DEFAULT_HTTP_LIMITS.maxHeaderBytes,
    parse: (text) => wholeNumber(text, 1_024, 1_048_576, 'a size in bytes'),
  },
  shutdownGraceMs: {
    env: 'GRIDQUOTE_SHUTDOWN_GRACE_MS',
    placeholder: 'ms',
    description: 'on SIGTERM/SIGINT, requests in flight get this long to finish before connections are cut',
    fallback: DEFAULT_SHUTDOWN_GRACE_MS,
    parse: (text) => wholeNumber(text, 0, 10 * MINUTE_MS, 'milliseconds'),
  },
  workers: {
    env: 'GRIDQUOTE_WORKERS',
    placeholder: 'n',
    description:
      'server processes sharing the port (node:cluster), each reading the store; 1 = one process; default: the number of cores',
    fallback: availableParallelism(),
    parse: (text) => wholeNumber(text, 1, MAX_WORKERS, 'a number of processes'),
  },
  metricsToken: {
    env: 'GRIDQUOTE_METRICS_TOKEN',
    placeholder: 'token',
    description:
      'bearer token that opens GET /metrics to any client; unset, only loopback clients may scrape ' +
      '(prefer the env var: a flag shows in process listings)',
    fallback: undefined as string | undefined,
    parse: secretToken,
  },
  redis: {
    env: 'GRIDQUOTE_REDIS_URL',
    placeholder: 'url',
    description:
      'redis:// or rediss:// URL (or redis+sentinel://host:port,.../master, rediss+sentinel:// for TLS): rate-limit counters shared by every server process given the same Redis and key prefix; ' +
      'unset, counted by this serve alone (its primary counts for all its --workers)',
    fallback: undefined as string | undefined,
    parse: (text): Parsed<string> => {
      const location = parseRedisLocation(text);
      return 'problem' in location ? location : { value: text };
    },
  },
  redisKeyPrefix: {
    env: 'GRIDQUOTE_REDIS_KEY_PREFIX',
    placeholder: 'prefix',
    description: 'prefix of the rate-limit keys in Redis: one per deployment sharing a Redis',
    fallback: 'gridquote',
    parse: (text): Parsed<string> =>
      /^[A-Za-z0-9_.:-]{1,64}$/.test(text)
        ? { value: text }
        : { problem: `must be 1..64 letters, digits, '_', '.', ':' or '-', got ${JSON.stringify(text)}` },
  },
  redisUnavailable: {
    env: 'GRIDQUOTE_REDIS_UNAVAILABLE',
    placeholder: 'policy',
    description:
      'while Redis is unreachable: allow (each server process, each worker, counts alone; metric ' +
      'gridquote_rate_limit_fallback_total) or refuse (503 with Retry-After)',
    fallback: 'allow' as RedisUnavailablePolicy,
    parse: (text): Parsed<RedisUnavailablePolicy> =>
      (REDIS_UNAVAILABLE_POLICIES as readonly string[]).includes(text)
        ? { value: text as RedisUnavailablePolicy }
        : { problem: `must be one of ${REDIS_UNAVAILABLE_POLICIES.join(', ')}, got ${JSON.stringify(text)}` },
  },
  redisSentinelPassword: {
    env: 'GRIDQUOTE_REDIS_SENTINEL_PASSWORD',
    placeholder: 'password',
    description:
      "password of the sentinels themselves (Sentinel's own requirepass), for a redis+sentinel:// location; " +
      "the master's password goes in the location (prefer the env var: a flag shows in process listings)",
    fallback: undefined as string | undefined,
    parse: redisPassword,
  },
  redisTlsCa: {
    env: 'GRIDQUOTE_REDIS_TLS_CA',
    placeholder: 'file',
    description:
      "the CA certificate (a PEM file) that signed the Redis servers' certificates (and the sentinels'), for a " +
      "rediss:// or rediss+sentinel:// location; unset, they are checked against the system's CAs",
    fallback: undefined as string | undefined,
    parse: readableFile,
  },
  redisTlsCert: {
    env: 'GRIDQUOTE_REDIS_TLS_CERT',
    placeholder: 'file',
    description:
      'a client certificate (a PEM file), with GRIDQUOTE_REDIS_TLS_KEY, for Redis servers that ask for one ' +
      "(Redis's tls-auth-clients, on by default when TLS is)",
    fallback: undefined as string | undefined,
    parse: readableFile,
  },
  redisTlsKey: {
    env: 'GRIDQUOTE_REDIS_TLS_KEY',
    placeholder: 'file',
    description:
      "the client certificate's private key (a PEM file without a passphrase), with GRIDQUOTE_REDIS_TLS_CERT",
    fallback: undefined as string | undefined,
    parse: readableFile,
  },
  corsOrigins: {
    env: 'GRIDQUOTE_CORS_ORIGINS',
    placeholder: 'origins',
    description:
      'comma-separated origins whose browser pages may call the API (CORS), e.g. ' +
      'https://dash.example.com,http://localhost:8888, or * for any; none when unset',
    fallback: undefined as readonly string[] | undefined,
    parse: originList,
  },
  streamsPerKey: {
    env: 'GRIDQUOTE_STREAMS_PER_KEY',
    placeholder: 'n',
    description:
      'event streams (GET /api/stream) one API key may hold open at once on one server process (each of ' +
      '--workers counts its own); one more is a 429',
    fallback: 5,
    parse: (text) => wholeNumber(text, 1, 10_000, 'a number of streams'),
  },
  streamQueueBytes: {
    env: 'GRIDQUOTE_STREAM_QUEUE_BYTES',
    placeholder: 'bytes',
    description:
      'unread bytes a stream client may leave queued; beyond it the stream ends with a slow-consumer error',
    fallback: 1_048_576,
    parse: (text) => wholeNumber(text, 16_384, 1_073_741_824, 'a size in bytes'),
  },
  streamTokenSecret: {
    env: 'GRIDQUOTE_STREAM_TOKEN_SECRET',
    placeholder: 'secret',
    description:
      'HMAC secret of stream tokens (GET /api/stream/token); separate serves behind one address must share it; ' +
      'unset, each serve draws its own at start, which its --workers share (prefer the env var: a flag shows in process listings)',
    fallback: undefined as string | undefined,
    parse: secretToken,
  },
  replayClock: {
    env: 'GRIDQUOTE_REPLAY_CLOCK',
    placeholder: 'day,instant,speed',
    description:
      'answer on a simulated exchange clock shared with a simulated feed (feed publish --replay-clock): ' +
      'trading day <yyyyMMdd> replayed from 09:59 at the UTC <instant>, at <speed>x, then the next days; unset, the wall clock',
    fallback: undefined as ReplaySchedule | undefined,
    parse: (text): Parsed<ReplaySchedule> => {
      const parsed = parseReplaySchedule(text);
      return typeof parsed === 'string' ? { problem: parsed } : { value: parsed };
    },
  },
  pgPoolMax: {
    env: 'GRIDQUOTE_PG_POOL_MAX',
    placeholder: 'n',
    description:
      'PostgreSQL store: read connections at most, per server process (each of --workers has its own pool); requests beyond wait for one',
    fallback: 10,
    parse: (text) => wholeNumber(text, 1, 1_000, 'a number of connections'),
  },
  pgStatementTimeoutMs: {
    env: 'GRIDQUOTE_PG_STATEMENT_TIMEOUT_MS',
    placeholder: 'ms',
    description: 'PostgreSQL store: the server cancels any read taking longer (the request gets 503)',
    fallback: 5_000,
    parse: (text) => wholeNumber(text, 100, 10 * MINUTE_MS, 'milliseconds'),
  },
} satisfies Readonly<Record<string, Setting<unknown>>>;

export type SettingName = keyof typeof SETTINGS;

/** The validated, frozen settings: one field per entry of SETTINGS. */
export type Config = {
  readonly [K in SettingName]: ValueOf<(typeof SETTINGS)[K]>;
};

type ValueOf<S> = S extends { fallback: infer F; parse: (text: string) => Parsed<infer T> } ? F | T : never;

/** One problem per line, each naming its source (env var or flag) and the value it got. */
export class ConfigError extends Error {
  override readonly name = 'ConfigError';

  constructor(
    readonly problems: readonly string[],
    /** The settings that did parse, so a caller can still check its own (serve: the store file). */
    readonly valid: Readonly<Partial<Config>> = {},
  ) {
    super(problems.join('\n'));
  }
}

/** `requestTimeoutMs` -> `--request-timeout-ms`, so commander's attribute name is the setting's. */
export function flagOf(name: SettingName): string {
  return `--${name.replace(/[A-Z]/g, (letter) => `-${letter.toLowerCase()}`)}`;
}

/**
 * Parses every setting: a flag overrides its env var, which overrides the default. Throws a
 * ConfigError listing every problem (not just the first), so one restart fixes them all.
 */
export function loadConfig(
  env: Readonly<Record<string, string | undefined>> = process.env,
  flags: Readonly<Partial<Record<SettingName, string>>> = {},
): Config {
  const problems: string[] = [];
  const config: Record<string, unknown> = {};
  for (const [name, setting] of Object.entries(SETTINGS) as [SettingName, Setting<unknown>][]) {
    const [text, source] = givenText(name, env, flags[name]);
    if (text === undefined) {
      config[name] = setting.fallback;
      continue;
    }
    const parsed = setting.parse(text);
    if ('problem' in parsed) problems.push(`${source} ${parsed.problem}`);
    else config[name] = parsed.value;
  }
  const typed = config as Config;
  if (problems.length === 0 && typed.maxUrlBytes > typed.maxHeaderBytes) {
    problems.push(
      `the URL limit (${typed.maxUrlBytes} bytes) must not exceed the header limit (${typed.maxHeaderBytes} bytes): the request line counts towards the headers`,
    );
  }
  if (problems.length === 0) problems.push(...redisTlsProblems(typed));
  if (problems.length > 0) throw new ConfigError(problems, { ...typed });
  return Object.freeze(typed);
}

/** The Redis TLS files go together with a location reached over TLS, a certificate with its key. */
function redisTlsProblems(config: Config): string[] {
  const { redisTlsCa, redisTlsCert, redisTlsKey } = config;
  if (redisTlsCa === undefined && redisTlsCert === undefined && redisTlsKey === undefined) return [];
  const problems: string[] = [];
  if ((redisTlsCert === undefined) !== (redisTlsKey === undefined)) {
    problems.push(
      `${SETTINGS.redisTlsCert.env} and ${SETTINGS.redisTlsKey.env} go together: a client certificate and its key`,
    );
  }
  const location = config.redis === undefined ? undefined : parseRedisLocation(config.redis);
  if (location === undefined || 'problem' in location || !location.tls) {
    problems.push(
      `the Redis TLS files (${SETTINGS.redisTlsCa.env}, ${SETTINGS.redisTlsCert.env}, ${SETTINGS.redisTlsKey.env}) ` +
        `need a rediss:// or rediss+sentinel:// location in ${SETTINGS.redis.env}: they are never ignored`,
    );
  }
  return problems;
}

/** The flag's text if given, else the env var's, with the name of where it came from. */
function givenText(
  name: SettingName,
  env: Readonly<Record<string, string | undefined>>,
  flag: string | undefined,
): [text: string | undefined, source: string] {
  return flag !== undefined ? [flag, flagOf(name)] : [env[SETTINGS[name].env], SETTINGS[name].env];
}

/**
 * The store a command works on: its --db flag, else GRIDQUOTE_DB; undefined when neither is
 * given. Every command that takes --db resolves it so (serve through loadConfig), and reads no
 * other setting: a bad PORT must not stop `keys list`. Throws a ConfigError on an empty value.
 */
export function storeLocation(
  flag: string | undefined,
  env: Readonly<Record<string, string | undefined>> = process.env,
): string | undefined {
  const [text, source] = givenText('db', env, flag);
  if (text === undefined) return undefined;
  const parsed = SETTINGS.db.parse(text);
  if ('problem' in parsed) throw new ConfigError([`${source} ${parsed.problem}`]);
  return parsed.value;
}

/** A TCP port 0..65535 (0 = any free port); throws a ConfigError naming the source. */
export function parsePort(text: string, source: string): number {
  const parsed = SETTINGS.port.parse(text);
  if ('problem' in parsed) throw new ConfigError([`${source} ${parsed.problem}`]);
  return parsed.value;
}

function wholeNumber(text: string, min: number, max: number, what: string): Parsed<number> {
  const value = Number(text);
  // Digits only: Number() would also take '0x1F', '1e3', ' 8 ' and ''.
  if (!/^\d{1,10}$/.test(text) || value < min || value > max) {
    return { problem: `must be ${what} ${min}..${max}, got ${JSON.stringify(text)}` };
  }
  return { value };
}

/** A secret: long enough not to be guessed, and never echoed in a problem. */
function secretToken(text: string): Parsed<string> {
  return /^[\x21-\x7e]{16,}$/.test(text)
    ? { value: text }
    : { problem: 'must be at least 16 printable ASCII characters without spaces (the value is not shown)' };
}

/** A file the process can read now: a wrong path is named at start, not as a failed connection later. */
function readableFile(text: string): Parsed<string> {
  if (text.trim() === '') return { problem: 'must be the path of a readable file, got an empty value' };
  try {
    accessSync(text, constants.R_OK);
    return statSync(text).isFile()
      ? { value: text }
      : { problem: `must be the path of a readable file, got ${JSON.stringify(text)} (not a file)` };
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? 'unreadable';
    return { problem: `must be the path of a readable file, got ${JSON.stringify(text)} (${code})` };
  }
}

/** A Redis password as redis.conf takes it on one line: printable ASCII, no spaces. */
function redisPassword(text: string): Parsed<string> {
  return /^[\x21-\x7e]{1,512}$/.test(text)
    ? { value: text }
    : { problem: 'must be 1..512 printable ASCII characters without spaces (the value is not shown)' };
}

/**
 * Origins as browsers send them in `Origin`: scheme, host and port, nothing more
 * (`https://dash.example.com:8443`, no path, no trailing slash), or `*` alone.
 */
function originList(text: string): Parsed<readonly string[]> {
  const origins = text
    .split(',')
    .map((part) => part.trim())
    .filter((part) => part !== '');
  if (origins.length === 0) return { problem: 'must list at least one origin, got an empty value' };
  if (origins.includes('*') && origins.length > 1) return { problem: 'must be * alone or a list of origins' };
  const bad = origins.filter((origin) => origin !== '*' && !isOrigin(origin));
  if (bad.length > 0) {
    return {
      problem: `must be origins such as https://dash.example.com (scheme, host, optional port; no path), got ${bad
        .map((origin) => JSON.stringify(origin))
        .join(', ')}`,
    };
  }
  return { value: Object.freeze(origins) };
}

function isOrigin(text: string): boolean {
  try {
    const url = new URL(text);
    return (url.protocol === 'http:' || url.protocol === 'https:') && url.origin === text;
  } catch {
    return false;
  }
}

function nonEmpty(what: string): (text: string) => Parsed<string> {
  return (text) =>
    text.trim() === '' ? { problem: `must be ${what}, got an empty value` } : { value: text };
}

/** Where `gridquote get` finds the API and its key when no flag gives them. */
export const CLIENT_SETTINGS = {
  url: { env: 'GRIDQUOTE_URL', flag: '--base' },
  key: { env: 'GRIDQUOTE_KEY', flag: '--key' },
} as const;

export interface ClientSettings {
  readonly url: string | undefined;
  readonly key: string | undefined;
}

/**
 * The API client's settings (`gridquote get`): a flag overrides its env var. Empty values count
 * as unset. The key is never part of a problem message.
 */
export function loadClientSettings(
  flags: { readonly base?: string; readonly key?: string },
  env: Readonly<Record<string, string | undefined>> = process.env,
): ClientSettings {
  const pick = (flag: string | undefined, name: string) => {
    const value = flag ?? env[name];
    return value === undefined || value.trim() === '' ? undefined : value.trim();
  };
  return Object.freeze({
    url: pick(flags.base, CLIENT_SETTINGS.url.env),
    key: pick(flags.key, CLIENT_SETTINGS.key.env),
  });
}

/**
 * The PostgreSQL server tests may use (GRIDQUOTE_TEST_PG_URL); undefined skips those tests.
 * Read here because this module is the only reader of the environment.
 */
export function testPostgresUrl(): string | undefined {
  const url = process.env.GRIDQUOTE_TEST_PG_URL;
  return url === undefined || url === '' ? undefined : url;
}

/** The NATS server tests may use (GRIDQUOTE_TEST_NATS_URL); undefined skips those tests. */
export function testNatsUrl(): string | undefined {
  const url = process.env.GRIDQUOTE_TEST_NATS_URL;
  return url === undefined || url === '' ? undefined : url;
}

/** The Redis server tests may use (GRIDQUOTE_TEST_REDIS_URL); undefined skips those tests. */
export function testRedisUrl(): string | undefined {
  const url = process.env.GRIDQUOTE_TEST_REDIS_URL;
  return url === undefined || url === '' ? undefined : url;
}

/**
 * Which store the HTTP and invariant suites run over (GRIDQUOTE_TEST_STORE: `sqlite`, the
 * default, or `postgres`); vitest.config.ts runs them once per store.
 */
export function testStoreKind(): 'sqlite' | 'postgres' {
  return process.env.GRIDQUOTE_TEST_STORE === 'postgres' ? 'postgres' : 'sqlite';
}
