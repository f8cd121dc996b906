import { MEMORY, openSqliteStore } from './sqlite/open-sqlite-store.js';
import type { MarketStore, SchemaReport } from './store.js';
import { StoreOpenError } from './store-open-error.js';

/**
 * The one place that picks an adapter from a store's location: `postgres://` or
 * `postgresql://` is PostgreSQL, `sqlite:` followed by a path (or any other text) a SQLite
 * file, `:memory:` an in-memory SQLite store for tests. Every command opens its store here.
 */

export interface OpenStoreOptions {
  /**
   * `read`: the command only reads (serve, export, keys list): opened read-only, so a store on
   * read-only media can be served; a write through it is refused, saying why. `write`: seed,
   * ingest, demo, keys create and revoke.
   */
  readonly access: 'read' | 'write';
  /** Whether a missing store may be created: only seed, ingest and demo make new stores. */
  readonly create?: boolean;
  /** The command, for messages ("for serving"). */
  readonly purpose?: string;
  /** Longest wait for another writer's lock, ms (default DEFAULT_LOCK_WAIT_MS: 30 s). */
  readonly lockWaitMs?: number;
  /**
   * SQLite only, for a store written on a thread that also serves requests (the demo's live feed):
   * WAL checkpoints run on a thread of their own, never inside a commit (sqlite/wal-checkpoint-thread.ts).
   */
  readonly backgroundCheckpoints?: boolean;
  /**
   * Told what opening for writing did to the schema: the versions it applied (none when it was
   * current) and the version it is at now (`gridquote migrate` says which).
   */
  readonly onSchema?: (report: SchemaReport) => void;
  /** PostgreSQL only: read connections at most (GRIDQUOTE_PG_POOL_MAX). */
  readonly poolMax?: number;
  /** PostgreSQL only: the server cancels a read statement after this, ms (GRIDQUOTE_PG_STATEMENT_TIMEOUT_MS). */
  readonly statementTimeoutMs?: number;
}

/** What the PostgreSQL adapter's entry module exports (src/store/postgres/open-postgres-store.ts). */
interface PostgresAdapterModule {
  openPostgresStore(url: string, options: OpenStoreOptions): Promise<MarketStore>;
}

/** Computed, so that the type-check does not require the adapter to be present. */
const POSTGRES_ADAPTER = ['.', 'postgres', 'open-postgres-store.js'].join('/');

export type StoreKind = 'sqlite' | 'postgres';

export function storeKind(location: string): StoreKind {
  return /^postgres(ql)?:\/\//i.test(location) ? 'postgres' : 'sqlite';
}

export async function openStore(location: string, options: OpenStoreOptions): Promise<MarketStore> {
  const kind = storeKind(location);
  // A URL of another scheme (a typo of postgres://, or another database) is not a file name;
  // only its scheme is repeated, since the rest may hold a password.
  const scheme = /^([a-z][a-z0-9+.-]*):\/\//i.exec(location)?.[1];
  if (kind === 'sqlite' && scheme !== undefined && scheme.toLowerCase() !== 'sqlite') {
    throw new StoreOpenError(
      `unknown store location scheme ${scheme}://: a store is a SQLite file path (or sqlite:PATH) or a postgres:// URL`,
    );
  }
  switch (kind) {
    case 'sqlite':
      return openSqliteStore(sqlitePath(location), {
        readonly: options.access === 'read',
        create: options.create === true,
        ...(options.purpose === undefined ? {} : { purpose: options.purpose }),
        ...(options.lockWaitMs === undefined ? {} : { lockWaitMs: options.lockWaitMs }),
        ...(options.backgroundCheckpoints === undefined
          ? {}
          : { backgroundCheckpoints: options.backgroundCheckpoints }),
        ...(options.onSchema === undefined ? {} : { onSchema: options.onSchema }),
      });
    case 'postgres': {
      const adapter = await loadPostgresAdapter();
      return adapter.openPostgresStore(location, options);
    }
    default: {
      const unknown: never = kind;
      throw new StoreOpenError(`unknown store kind ${String(unknown)}`);
    }
  }
}

/** `sqlite:data/x.db` and `sqlite:///abs/x.db` name files too; anything else is the path itself. */
export function sqlitePath(location: string): string {
  if (location === MEMORY || !location.startsWith('sqlite:')) return location;
  const rest = location.slice('sqlite:'.length);
  return rest.startsWith('//') ? rest.slice(2) : rest;
}

/**
 * A location as it may be printed: a PostgreSQL URL without its password, whether before the
 * host (up to the last `@` there, as URL parsers read it) or as a query parameter
 * (`?password=`, `&sslpassword=`, which node-postgres and libpq take too).
 */
export function describeLocation(location: string): string {
  if (storeKind(location) !== 'postgres') return location;
  return location
    .replace(/^(postgres(?:ql)?:\/\/[^:/@]*):[^/]*@/i, '$1:***@')
    .replace(/([?&][^=&#]*password=)[^&#]*/gi, '$1***');
}

async function loadPostgresAdapter(): Promise<PostgresAdapterModule> {
  try {
    return (await import(POSTGRES_ADAPTER)) as PostgresAdapterModule;
  } catch (error) {
    const code = error instanceof Error && 'code' in error ? error.code : undefined;
    if (code === 'ERR_MODULE_NOT_FOUND' && String(error).includes('open-postgres-store')) {
      throw new StoreOpenError('this build of gridquote has no PostgreSQL store; use a SQLite file path');
    }
    throw error;
  }
}
