import { randomUUID } from 'node:crypto';
import { userInfo } from 'node:os';
import pg from 'pg';
import { parseIntoClientConfig } from 'pg-connection-string';
import { exchangeSlot } from '../exchange-slot.js';
import { isPrivilegeRefusal } from '../privilege-refusal.js';
import type { AppendNotice, MarketStore, SchemaReport } from '../store.js';
import { StoreBusyError, StoreOpenError } from '../store-open-error.js';
import { claimSchemaExchange } from './exchange-claim.js';
import { checkSchema, migrate, SCHEMA_VERSION, schemaVersion } from './migrations.js';
import { passwordFromEnvironment } from './password.js';
import { createPostgresEventLog } from './postgres-event-log.js';
import { createPostgresKeyStore } from './postgres-keys.js';
import { RemoteNotices } from './postgres-notices.js';
import { createPostgresReader } from './postgres-reader.js';
import { EXACT_TYPES } from './postgres-types.js';
import { createPostgresWriter } from './postgres-writer.js';

/** open-store.ts's OpenStoreOptions, and what only PostgreSQL has (all optional). */
export interface PostgresStoreOptions {
  /**
   * `write` (the default) applies pending migrations (seed, ingest, demo, keys create); `read`
   * (serve, export, keys list) changes nothing: the schema must be this program's, else opening
   * refuses with what to run, and writes through the store are refused.
   */
  readonly access?: 'read' | 'write';
  /** Whether an empty database (no gridquote schema yet) may be set up: seed, ingest, demo, migrate. */
  readonly create?: boolean;
  /** Why it is read-only, for the refusal of a write ("for serving"). */
  readonly purpose?: string;
  /** Longest wait for another writer (its transaction holds the version row), ms. */
  readonly lockWaitMs?: number;
  /** Set up or upgrade the schema whatever the access (tests, tools); implies create. */
  readonly migrate?: boolean;
  /** The PostgreSQL schema holding the store (created when migrating); the URL's search_path otherwise. */
  readonly schema?: string;
  /** Connections for reads at most (the writer has one more of its own). */
  readonly poolMax?: number;
  /** Every read statement is cancelled by the server after this. */
  readonly statementTimeoutMs?: number;
  /** Giving up on opening a connection after this. */
  readonly connectTimeoutMs?: number;
  /** How often the change notices' connection is probed, and how long a probe may take (postgres-notices.ts). */
  readonly noticeProbeMs?: number;
  /** Told what opening for writing did to the schema (open-store.ts). */
  readonly onSchema?: (report: SchemaReport) => void;
}

export const DEFAULT_POOL_MAX = 10;
export const DEFAULT_STATEMENT_TIMEOUT_MS = 5_000;
const DEFAULT_CONNECT_TIMEOUT_MS = 5_000;
const DEFAULT_LOCK_WAIT_MS = 30_000;
/** How long after the statement timeout a read with no answer at all is given up (query_timeout). */
const QUERY_TIMEOUT_MARGIN_MS = 1_000;

/** The server cannot be reached (at start): one line naming it, never its password. */
export class StoreUnreachableError extends StoreOpenError {}

/**
 * Opens a store in a PostgreSQL database: checks (or migrates) its schema, then hands out the
 * reader, writer, event log and keys over two bounded pools: reads under a statement timeout,
 * and the writer's connection without one (a bulk load may take minutes). Connections are
 * opened on demand, so a server lost while serving makes operations fail (the HTTP layer
 * answers 503) and they work again once it is back, without a restart.
 */
export async function openPostgresStore(
  url: string,
  options: PostgresStoreOptions = {},
): Promise<MarketStore> {
  const connectTimeoutMs = options.connectTimeoutMs ?? DEFAULT_CONNECT_TIMEOUT_MS;
  const fromUrl = clientConfig(url);
  const base: pg.ClientConfig = {
    // the URL's settings, as node-postgres reads a connectionString (TLS, options, ...)
    ...fromUrl,
    // as libpq: without a user in the URL or PGUSER, the system's name for this process's user
    user: fromUrl.user || process.env.PGUSER || process.env.USER || userInfo().username,
    password: fromUrl.password || passwordFromEnvironment,
    types: EXACT_TYPES,
    connectionTimeoutMillis: connectTimeoutMs,
    keepAlive: true,
    ...(options.schema === undefined ? {} : { options: `-c search_path=${options.schema}` }),
  };
  const schema = await prepareSchema(url, base, options);
  const statementTimeoutMs = options.statementTimeoutMs ?? DEFAULT_STATEMENT_TIMEOUT_MS;
  const readPool = new pg.Pool({
    ...base,
    max: options.poolMax ?? DEFAULT_POOL_MAX,
    onConnect: setting('statement_timeout', statementTimeoutMs),
    // The client gives up too, should the server not even answer (hung, or cut off without a
    // reset): a live server cancels the statement itself at the timeout, and says so at once.
    query_timeout: statementTimeoutMs + QUERY_TIMEOUT_MARGIN_MS,
    idleTimeoutMillis: 30_000,
  });
  const lockWaitMs = options.lockWaitMs ?? DEFAULT_LOCK_WAIT_MS;
  const writePool = new pg.Pool({
    ...base,
    max: 1,
    idleTimeoutMillis: 30_000,
    onConnect: setting('lock_timeout', lockWaitMs),
  });
  // An idle connection the server dropped is reported here; the next query reconnects.
  readPool.on('error', () => undefined);
  writePool.on('error', () => undefined);

  const channel = `gridquote ${schema}`;
  const origin = randomUUID();
  const listeners = new Set<(notice: AppendNotice) => void>();
  const emit = (notice: AppendNotice) => {
    for (const listener of listeners) listener(notice);
  };
  const reader = createPostgresReader(readPool);
  const remote = new RemoteNotices(
    base,
    channel,
    origin,
    reader,
    emit,
    await reader.version(),
    options.noticeProbeMs,
  );
  const writer = createPostgresWriter(
    writePool,
    (notice) => {
      remote.saw(notice.version);
      emit(notice);
    },
    channel,
    origin,
    { sideReads: readPool },
  );
  const keys = createPostgresKeyStore(readPool);
  const where = describe(url);
  const refuse = async (): Promise<never> => {
    throw new StoreOpenError(
      `the store at ${where} is open read-only${options.purpose ? ` ${options.purpose}` : ''}: it is not written`,
    );
  };
  const busy = <T>(work: Promise<T>): Promise<T> =>
    work.catch((error: unknown) => {
      throw isLockTimeout(error)
        ? new StoreBusyError(
            `another process is writing to the store at ${where} (waited ${Math.round(lockWaitMs / 1000)} s); try again when it is done`,
          )
        : error;
    });
  const readOnly = options.access === 'read' && options.migrate !== true;
  const exchange = exchangeSlot(() => claimSchemaExchange(base));

  return {
    reader,
    writer: readOnly
      ? { append: refuse, begin: refuse }
      : {
          append: (events) => busy(writer.append(events)),
          async begin() {
            const batch = await busy(writer.begin());
            return { ...batch, append: (events) => busy(batch.append(events)) };
          },
        },
    events: createPostgresEventLog(readPool),
    keys: readOnly ? { ...keys, insertKey: refuse, revokeKey: refuse } : keys,
    onAppend(listener) {
      listeners.add(listener);
      remote.start();
      return () => {
        listeners.delete(listener);
        if (listeners.size === 0) void remote.stop();
      };
    },
    // Commits of other processes arrive by LISTEN as they happen.
    lookForCommits() {},
    changeNotices: () => remote.state(),
    replicationLagSeconds: () => remote.replicationLagSeconds(),
    claimExchange: exchange.claim,
    async close() {
      await exchange.release();
      listeners.clear();
      await remote.stop();
      // the pool's end() waits for every connection in use: an open batch's first
      await writer.rollbackOpenBatch();
      await Promise.all([readPool.end(), writePool.end()]);
    },
  };
}

/**
 * A pool's session setting, made by each new connection before it is handed out (pg-pool's
 * onConnect; a connection whose SET fails is closed, and its checkout fails). Not a startup
 * parameter: a pooler such as PgBouncer refuses those it does not know ("unsupported startup
 * parameter: statement_timeout"), so the store could not even open behind one.
 */
function setting(
  name: 'statement_timeout' | 'lock_timeout',
  ms: number,
): (client: pg.ClientBase) => Promise<void> {
  if (!Number.isSafeInteger(ms) || ms < 0)
    throw new RangeError(`${name}: not a number of milliseconds: ${ms}`);
  return async (client) => {
    await client.query(`SET ${name} = ${ms}`);
  };
}

/** Checks or migrates the schema on one connection; returns the schema's name. */
async function prepareSchema(
  url: string,
  config: pg.ClientConfig,
  options: PostgresStoreOptions,
): Promise<string> {
  const client = new pg.Client(config);
  client.on('error', () => undefined);
  try {
    await client.connect();
  } catch (error) {
    // A connection refused during authentication stays open until the server times it out
    // (a minute), keeping the command from exiting.
    await client.end().catch(() => undefined);
    throw new StoreUnreachableError(`cannot reach PostgreSQL at ${describe(url)}: ${reason(error)}`);
  }
  try {
    return await prepareOn(client, url, options);
  } catch (error) {
    throw (await privilegeRefusal(client, url, error)) ?? error;
  } finally {
    await client.end().catch(() => undefined);
  }
}

/** prepareSchema's work on its connection. */
async function prepareOn(client: pg.Client, url: string, options: PostgresStoreOptions): Promise<string> {
  if (options.access !== 'read' || options.migrate === true) await requireWritable(client, url);
  const current = await schemaVersion(client);
  const create = options.create === true || options.migrate === true;
  if (current === 0 && !create) throw await noStore(client, url);
  if (options.migrate === true || (options.access !== 'read' && current < SCHEMA_VERSION)) {
    if (options.schema !== undefined) {
      await client.query(`CREATE SCHEMA IF NOT EXISTS ${pg.escapeIdentifier(options.schema)}`);
    } else {
      await requireSchema(client, url);
    }
    const applied = await migrate(client);
    options.onSchema?.({ applied, version: SCHEMA_VERSION });
  } else {
    await checkSchema(client);
    options.onSchema?.({ applied: [], version: SCHEMA_VERSION });
  }
  const result = await client.query<{ schema: string }>('SELECT current_schema() AS schema');
  return result.rows[0]?.schema ?? 'public';
}

/**
 * PostgreSQL's "permission denied for table gridquote_schema" names neither the role nor the
 * store: say both, and what to grant (docs/operations.md, the read-only role).
 */
async function privilegeRefusal(
  client: pg.Client,
  url: string,
  error: unknown,
): Promise<StoreOpenError | undefined> {
  if (!isPrivilegeRefusal(error)) return undefined;
  const row = await searchPathOf(client).catch(() => undefined);
  return new StoreOpenError(
    `role ${row?.role ?? '(unknown)'} lacks a privilege on the store in schema ${row?.schema ?? '(none)'} at ${describe(url)} ` +
      `(${reason(error)}): a role that serves needs USAGE on the schema and SELECT on its tables; migrate, seed, ingest and keys need the store's owner`,
  );
}

/**
 * A store opened to write must be on a primary: a hot standby (a streaming replica) refuses every
 * write with "cannot execute INSERT in a read-only transaction", which does not say what to do.
 */
async function requireWritable(client: pg.Client, url: string): Promise<void> {
  const result = await client.query<{ standby: boolean }>('SELECT pg_is_in_recovery() AS standby');
  if (result.rows[0]?.standby !== true) return;
  throw new StoreOpenError(
    `PostgreSQL at ${describe(url)} is a standby (a read replica), which takes no writes: give this command the primary's URL`,
  );
}

interface SearchPath {
  /** The schema tables go to; null when the search_path names none that exists and the role may use. */
  readonly schema: string | null;
  readonly path: string;
  readonly role: string;
  /** Schemas of the search_path that exist but the role may not use (no USAGE), comma-separated. */
  readonly unusable: string | null;
}

async function searchPathOf(client: pg.Client): Promise<SearchPath | undefined> {
  const result = await client.query<SearchPath>(
    `SELECT current_schema() AS schema, current_setting('search_path') AS path, current_user AS role,
       (SELECT string_agg(nspname, ', ') FROM pg_namespace
         WHERE nspname = ANY (string_to_array(replace(current_setting('search_path'), ' ', ''), ','))
           AND NOT has_schema_privilege(oid, 'USAGE')) AS unusable`,
  );
  return result.rows[0];
}

/** Where the store was looked for, so that a wrong or missing schema is named, not just the database. */
async function noStore(client: pg.Client, url: string): Promise<StoreOpenError> {
  const row = await searchPathOf(client);
  if (row?.schema === null && row.unusable !== null) {
    return new StoreOpenError(
      `no store at ${describe(url)} that role ${row.role} may use: it may not use schema ${row.unusable} of its search_path; grant it USAGE on the schema and SELECT on its tables, or use the store owner's URL`,
    );
  }
  if (row !== undefined && row.schema === null) {
    return new StoreOpenError(
      `no store at ${describe(url)}: its search_path (${row.path}) names no schema that exists; create the schema (CREATE SCHEMA name), then the store with gridquote seed, ingest or migrate`,
    );
  }
  return new StoreOpenError(
    `no store in schema ${row?.schema ?? 'public'} at ${describe(url)}; create one with gridquote seed, ingest or migrate`,
  );
}

/**
 * A schema to create the tables in: the URL's search_path (`?options=-c search_path=name`) may
 * name only schemas that do not exist, and PostgreSQL's own refusal ("no schema has been
 * selected to create in") does not say what to do.
 */
async function requireSchema(client: pg.Client, url: string): Promise<void> {
  const row = await searchPathOf(client);
  if (row === undefined || row.schema !== null) return;
  if (row.unusable !== null) {
    throw new StoreOpenError(
      `role ${row.role} may not use schema ${row.unusable} of the search_path at ${describe(url)} to create the store in: run this command as the schema's owner`,
    );
  }
  throw new StoreOpenError(
    `no schema at ${describe(url)} to create the store in: its search_path (${row.path}) names none that exists; create it first (CREATE SCHEMA name)`,
  );
}

/**
 * The URL's settings as node-postgres reads a connection string, or one line saying why it
 * cannot be used (never the URL itself: it may hold a password).
 */
function clientConfig(url: string): pg.ClientConfig {
  const hosts = /^[a-z]+:\/\/(?:[^@/]*@)?([^/?#]*)/i.exec(url)?.[1] ?? '';
  if (hosts.includes(',')) {
    throw new StoreOpenError(
      `the URL names several hosts (${hosts}), libpq's failover, which gridquote's driver does not do: give the one address that always leads to the primary (a virtual address, a pooler, or the cluster manager's endpoint)`,
    );
  }
  try {
    return parseIntoClientConfig(url);
  } catch (error) {
    throw new StoreOpenError(
      `not a PostgreSQL URL gridquote can read (${reason(error)}): postgres://user@host:port/database?parameters, with a password's special characters percent-encoded`,
    );
  }
}

/** host:port/database of a URL (the host may be a socket's directory), without user or password. */
export function describe(url: string): string {
  try {
    const config = parseIntoClientConfig(url);
    return `${config.host || 'localhost'}:${config.port ?? 5432}/${config.database ?? ''}`;
  } catch {
    return 'the given URL';
  }
}

/** PostgreSQL's lock_not_available: lock_timeout ran out waiting for another writer. */
function isLockTimeout(error: unknown): boolean {
  return error instanceof Error && 'code' in error && error.code === '55P03';
}

function reason(error: unknown): string {
  if (error instanceof AggregateError && error.errors.length > 0) return reason(error.errors[0]);
  return error instanceof Error ? error.message : String(error);
}
