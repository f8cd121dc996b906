import { existsSync } from 'node:fs';
import { type Command, Option } from 'commander';
import type { FastifyInstance } from 'fastify';
import { ConfigError, loadConfig, parsePort } from '../config.js';
import { buildApp } from '../http/app.js';
import { openSqliteStore } from '../store/sqlite/open-sqlite-store.js';
import type { MarketStore } from '../store/store.js';
import { CliError, type CliIo, PROCESS_IO } from './cli-io.js';

export interface ServerOptions {
  readonly db: string;
  readonly port: number;
  readonly host: string;
  /** Pino level; false for no request log. */
  readonly logLevel?: string | false;
  /** The exchange clock (the demo may pin one). */
  readonly clock?: () => Date;
}

export interface RunningServer {
  readonly app: FastifyInstance;
  readonly store: MarketStore;
  /** http://host:port actually bound (port 0 picks a free one). */
  readonly url: string;
  close(): Promise<void>;
}

/** Opens the store, builds the app and listens. Reusable by the demo command. */
export async function startServer(options: ServerOptions): Promise<RunningServer> {
  const store = openSqliteStore(options.db);
  const logLevel = options.logLevel ?? 'info';
  const app = buildApp({
    reader: store.reader,
    keys: store.keys,
    ...(options.clock ? { clock: options.clock } : {}),
    logger: logLevel === false ? false : { level: logLevel },
  });
  try {
    const url = await app.listen({ port: options.port, host: options.host });
    return {
      app,
      store,
      url,
      async close() {
        await app.close();
        store.close();
      },
    };
  } catch (error) {
    await app.close();
    store.close();
    throw error;
  }
}

/** `gridquote serve --db FILE [--port N] [--host H]`; flags override GRIDQUOTE_DB, PORT, HOST. */
export function registerServe(program: Command, io: CliIo = PROCESS_IO): Command {
  return program
    .command('serve')
    .description('serve the query API over a SQLite market data store')
    .addOption(new Option('--db <file>', 'SQLite store to serve (default: $GRIDQUOTE_DB)'))
    .addOption(new Option('--port <n>', 'TCP port (default: $PORT or 8080)'))
    .addOption(new Option('--host <h>', 'interface to bind (default: $HOST or 127.0.0.1)'))
    .action(async (flags: { db?: string; port?: string; host?: string }) => {
      const options = serverOptions(flags);
      const server = await startServer(options);
      io.stderr.write(`serving ${options.db} at ${server.url}\n`);
      const stop = () => {
        server.close().then(
          () => process.exit(0),
          () => process.exit(1),
        );
      };
      process.once('SIGINT', stop);
      process.once('SIGTERM', stop);
    });
}

function serverOptions(flags: { db?: string; port?: string; host?: string }): ServerOptions {
  try {
    const config = loadConfig();
    const db = flags.db ?? config.db;
    if (db === undefined) throw new CliError('serve needs a store: pass --db FILE or set GRIDQUOTE_DB');
    // Opening a missing file would create an empty store: refuse a likely typo instead.
    if (!existsSync(db)) throw new CliError(`no store at ${db}; create one with gridquote seed or ingest`);
    return {
      db,
      port: flags.port === undefined ? config.port : parsePort(flags.port, '--port'),
      host: flags.host ?? config.host,
    };
  } catch (error) {
    if (error instanceof ConfigError) throw new CliError(error.message);
    throw error;
  }
}
