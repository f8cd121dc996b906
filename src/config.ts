/**
 * The process environment, read once: the only module that touches process.env. Values are
 * parsed and validated here, and the result is frozen.
 */
export interface Config {
  /** GRIDQUOTE_DB: the SQLite file to serve, if set. */
  readonly db: string | undefined;
  /** PORT, default 8080. */
  readonly port: number;
  /** HOST, default 127.0.0.1 (loopback: exposing the API is a deliberate choice). */
  readonly host: string;
}

export const DEFAULT_PORT = 8080;
export const DEFAULT_HOST = '127.0.0.1';

export class ConfigError extends Error {
  override readonly name = 'ConfigError';
}

export function loadConfig(env: Readonly<Record<string, string | undefined>> = process.env): Config {
  const db = env.GRIDQUOTE_DB;
  if (db !== undefined && db.trim() === '') throw new ConfigError('GRIDQUOTE_DB is set but empty');
  const host = env.HOST ?? DEFAULT_HOST;
  if (host.trim() === '') throw new ConfigError('HOST is set but empty');
  return Object.freeze({
    db,
    port: env.PORT === undefined ? DEFAULT_PORT : parsePort(env.PORT, 'PORT'),
    host,
  });
}

/** A TCP port 0..65535 (0 = any free port). */
export function parsePort(text: string, source: string): number {
  if (!/^\d{1,5}$/.test(text) || Number(text) > 65535) {
    throw new ConfigError(`${source} must be a port number 0-65535, got ${JSON.stringify(text)}`);
  }
  return Number(text);
}
