import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import {
  ConfigError,
  flagOf,
  loadClientSettings,
  loadConfig,
  SETTINGS,
  type SettingName,
  storeLocation,
} from './config.js';
import { DEFAULT_HTTP_LIMITS } from './http/limits.js';

function problemsOf(
  env: Record<string, string | undefined>,
  flags: Partial<Record<SettingName, string>> = {},
): string[] {
  try {
    loadConfig(env, flags);
  } catch (error) {
    if (error instanceof ConfigError) return [...error.problems];
    throw error;
  }
  return [];
}

describe('config', () => {
  it('has defaults and is frozen', () => {
    const config = loadConfig({});
    // toMatchObject: a setting added later brings its own test.
    expect(config).toMatchObject({
      db: undefined,
      port: 8080,
      host: '127.0.0.1',
      logLevel: 'info',
      ...DEFAULT_HTTP_LIMITS,
      shutdownGraceMs: 10_000,
    });
    expect(Object.isFrozen(config)).toBe(true);
  });

  it('reads the shared rate-limit settings; a bad Redis URL is refused without echoing it (it may hold a password)', () => {
    expect(loadConfig({})).toMatchObject({
      redis: undefined,
      redisKeyPrefix: 'gridquote',
      redisUnavailable: 'allow',
    });
    expect(
      loadConfig(
        { GRIDQUOTE_REDIS_URL: 'redis://:pw@cache:6379/2', GRIDQUOTE_REDIS_UNAVAILABLE: 'refuse' },
        { redisKeyPrefix: 'prod-au' },
      ),
    ).toMatchObject({
      redis: 'redis://:pw@cache:6379/2',
      redisKeyPrefix: 'prod-au',
      redisUnavailable: 'refuse',
    });
    const problems = problemsOf({
      GRIDQUOTE_REDIS_URL: 'http://user:secret@cache',
      GRIDQUOTE_REDIS_UNAVAILABLE: 'maybe',
      GRIDQUOTE_REDIS_KEY_PREFIX: 'a b',
    });
    expect(problems).toHaveLength(3);
    expect(problems.join('\n')).not.toContain('secret');
    expect(problems[0]).toMatch(/^GRIDQUOTE_REDIS_URL must be a redis:\/\/ or rediss:\/\/ URL/);
  });

  it("reads the sentinels' own password apart from the location, and refuses a bad one without echoing it", () => {
    expect(loadConfig({}).redisSentinelPassword).toBeUndefined();
    expect(loadConfig({ GRIDQUOTE_REDIS_SENTINEL_PASSWORD: 'S3ntinel!pw' }).redisSentinelPassword).toBe(
      'S3ntinel!pw',
    );
    const [problem, ...others] = problemsOf({ GRIDQUOTE_REDIS_SENTINEL_PASSWORD: 'has a secret space' });
    expect(others).toEqual([]);
    expect(problem).toBe(
      'GRIDQUOTE_REDIS_SENTINEL_PASSWORD must be 1..512 printable ASCII characters without spaces (the value is not shown)',
    );
  });

  it('reads every setting from its env var', () => {
    expect(
      loadConfig({
        GRIDQUOTE_DB: 'a.db',
        PORT: '9000',
        HOST: '0.0.0.0',
        LOG_LEVEL: 'warn',
        GRIDQUOTE_REQUEST_TIMEOUT_MS: '5000',
        GRIDQUOTE_IDLE_TIMEOUT_MS: '30000',
        GRIDQUOTE_KEEP_ALIVE_TIMEOUT_MS: '5000',
        GRIDQUOTE_MAX_URL_BYTES: '2048',
        GRIDQUOTE_MAX_HEADER_BYTES: '8192',
        GRIDQUOTE_SHUTDOWN_GRACE_MS: '0',
      }),
    ).toMatchObject({
      db: 'a.db',
      port: 9000,
      host: '0.0.0.0',
      logLevel: 'warn',
      requestTimeoutMs: 5000,
      idleTimeoutMs: 30000,
      keepAliveTimeoutMs: 5000,
      maxUrlBytes: 2048,
      maxHeaderBytes: 8192,
      shutdownGraceMs: 0,
    });
  });

  it('lets a flag override its env var, and checks only the value in effect', () => {
    const config = loadConfig({ PORT: 'http', HOST: 'a' }, { port: '81', host: 'b' });
    expect(config.port).toBe(81);
    expect(config.host).toBe('b');
  });

  it('names the source and the value of a problem, as one line', () => {
    expect(problemsOf({ PORT: 'http' })).toEqual(['PORT must be a port number 0..65535, got "http"']);
    expect(problemsOf({}, { port: '70000' })).toEqual(['--port must be a port number 0..65535, got "70000"']);
  });

  it('reports every problem at once', () => {
    const problems = problemsOf({
      PORT: '-1',
      HOST: ' ',
      LOG_LEVEL: 'loud',
      GRIDQUOTE_REQUEST_TIMEOUT_MS: '10s',
      GRIDQUOTE_MAX_HEADER_BYTES: '1e6',
    });
    expect(problems).toEqual([
      'PORT must be a port number 0..65535, got "-1"',
      'HOST must be a host name or address, got an empty value',
      'LOG_LEVEL must be one of fatal, error, warn, info, debug, trace, silent, got "loud"',
      'GRIDQUOTE_REQUEST_TIMEOUT_MS must be milliseconds 100..3600000, got "10s"',
      'GRIDQUOTE_MAX_HEADER_BYTES must be a size in bytes 1024..1048576, got "1e6"',
    ]);
    for (const problem of problems) expect(problem).not.toContain('\n');
  });

  it.each([
    { PORT: 'eighty' },
    { PORT: '70000' },
    { PORT: '' },
    { PORT: ' 80' },
    { PORT: '0x50' },
    { GRIDQUOTE_DB: ' ' },
    { HOST: '' },
    { GRIDQUOTE_REQUEST_TIMEOUT_MS: '0' },
    { GRIDQUOTE_IDLE_TIMEOUT_MS: '99' },
    { GRIDQUOTE_KEEP_ALIVE_TIMEOUT_MS: '-5' },
    { GRIDQUOTE_MAX_URL_BYTES: '100' },
    { GRIDQUOTE_SHUTDOWN_GRACE_MS: '600001' },
    { GRIDQUOTE_SHUTDOWN_GRACE_MS: '1.5' },
  ])('refuses %j', (env) => {
    expect(problemsOf(env)).toHaveLength(1);
  });

  it('refuses a URL limit above the header limit (the request line is part of the headers)', () => {
    expect(problemsOf({ GRIDQUOTE_MAX_URL_BYTES: '20000' })).toEqual([
      expect.stringMatching(/URL limit \(20000 bytes\) must not exceed the header limit \(16384 bytes\)/),
    ]);
  });

  it('derives each flag from its setting name', () => {
    expect(flagOf('requestTimeoutMs')).toBe('--request-timeout-ms');
    expect(flagOf('db')).toBe('--db');
  });

  it('has every setting documented for operators', () => {
    const doc = readFileSync(new URL('../docs/operations.md', import.meta.url), 'utf8');
    for (const [name, setting] of Object.entries(SETTINGS)) {
      expect(doc, setting.env).toContain(`\`${setting.env}\``);
      expect(doc, name).toContain(`\`${flagOf(name as SettingName)}\``);
    }
  });
});

describe('the metrics token', () => {
  it('is read from GRIDQUOTE_METRICS_TOKEN or --metrics-token, and unset by default', () => {
    expect(loadConfig({}).metricsToken).toBeUndefined();
    expect(loadConfig({ GRIDQUOTE_METRICS_TOKEN: 'a-long-enough-token' }).metricsToken).toBe(
      'a-long-enough-token',
    );
    expect(loadConfig({}, { metricsToken: 'another-long-token' }).metricsToken).toBe('another-long-token');
  });

  it('refuses a guessable token without repeating it', () => {
    const [problem] = problemsOf({ GRIDQUOTE_METRICS_TOKEN: 'short secret' });
    expect(problem).toMatch(/^GRIDQUOTE_METRICS_TOKEN must be at least 16/);
    expect(problem).not.toContain('short secret');
  });
});

describe('storeLocation (every command with --db)', () => {
  it('takes the flag over GRIDQUOTE_DB, GRIDQUOTE_DB without the flag, nothing without either', () => {
    expect(storeLocation('flag.db', { GRIDQUOTE_DB: 'env.db' })).toBe('flag.db');
    expect(storeLocation(undefined, { GRIDQUOTE_DB: 'postgres://u@h/db' })).toBe('postgres://u@h/db');
    expect(storeLocation(undefined, {})).toBeUndefined();
  });

  it('reads no other setting: a bad PORT does not stop a command that only needs the store', () => {
    expect(storeLocation(undefined, { GRIDQUOTE_DB: 'env.db', PORT: 'http' })).toBe('env.db');
  });

  it('refuses an empty value, naming where it came from', () => {
    expect(() => storeLocation(' ', {})).toThrow('--db must be a file path or a postgres:// URL');
    expect(() => storeLocation(undefined, { GRIDQUOTE_DB: '' })).toThrow(
      new ConfigError(['GRIDQUOTE_DB must be a file path or a postgres:// URL, got an empty value']),
    );
  });
});

describe('the CORS origins', () => {
  it('are read from GRIDQUOTE_CORS_ORIGINS or --cors-origins, and none by default', () => {
    expect(loadConfig({}).corsOrigins).toBeUndefined();
    expect(
      loadConfig({ GRIDQUOTE_CORS_ORIGINS: 'https://dash.example.com, http://localhost:8888' }).corsOrigins,
    ).toEqual(['https://dash.example.com', 'http://localhost:8888']);
    expect(loadConfig({}, { corsOrigins: '*' }).corsOrigins).toEqual(['*']);
  });

  it('refuses what a browser never sends as an origin, naming it', () => {
    for (const text of [
      'https://dash.example.com/',
      'dash.example.com',
      'ftp://x.example',
      '*,https://a.example',
      ' , ',
    ]) {
      const [problem] = problemsOf({ GRIDQUOTE_CORS_ORIGINS: text });
      expect(problem, text).toMatch(/^GRIDQUOTE_CORS_ORIGINS must /);
    }
    expect(problemsOf({ GRIDQUOTE_CORS_ORIGINS: 'https://ok.example,http://x.example/path' })[0]).toContain(
      '"http://x.example/path"',
    );
  });
});

describe('client settings (gridquote get)', () => {
  it('reads GRIDQUOTE_URL and GRIDQUOTE_KEY, a flag overriding each; empty is unset', () => {
    const env = { GRIDQUOTE_URL: 'http://a.example', GRIDQUOTE_KEY: 'gq_000000000000_env' };
    expect(loadClientSettings({}, env)).toEqual({ url: 'http://a.example', key: 'gq_000000000000_env' });
    expect(loadClientSettings({ base: 'http://b.example', key: 'gq_000000000000_flag' }, env)).toEqual({
      url: 'http://b.example',
      key: 'gq_000000000000_flag',
    });
    expect(loadClientSettings({}, { GRIDQUOTE_URL: ' ', GRIDQUOTE_KEY: '' })).toEqual({
      url: undefined,
      key: undefined,
    });
    expect(Object.isFrozen(loadClientSettings({}, env))).toBe(true);
  });
});
