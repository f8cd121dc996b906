import { userInfo } from 'node:os';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { describe as describeServer } from '../src/store/postgres/open-postgres-store.js';
import { PROCESS_TEST_TIMEOUT_MS, runCliToEnd } from './cli-process.js';
import { type PrivatePostgres, startPrivatePostgres, whyNoPrivatePostgres } from './private-postgres.js';

/**
 * PostgreSQL on the same machine, reached by its Unix socket as psql reaches it
 * (docs/operations.md, "Running on PostgreSQL"): the socket's directory as the URL's host
 * (`?host=/dir` or percent-encoded before the path), and, as libpq does, the system's name
 * for the user when the URL names none (a service's environment often has no USER).
 * Messages name the socket's directory.
 */

const NO_SERVER = whyNoPrivatePostgres();
if (NO_SERVER !== undefined) console.log(`postgres-socket.test.ts: skipped, ${NO_SERVER}`);

it('names the server of a URL by host, port and database, a socket by its directory', () => {
  expect(describeServer('postgres://gq:secret@db.example:6432/market?sslmode=verify-full')).toBe(
    'db.example:6432/market',
  );
  expect(describeServer('postgres://gq@db.example/market')).toBe('db.example:5432/market');
  expect(describeServer('postgres:///market?host=/run/postgresql')).toBe('/run/postgresql:5432/market');
  expect(describeServer('postgresql://%2Frun%2Fpostgresql:5433/market')).toBe('/run/postgresql:5433/market');
});

describe.skipIf(NO_SERVER !== undefined)('PostgreSQL by its Unix socket', () => {
  let server: PrivatePostgres | undefined;

  beforeAll(async () => {
    server = await startPrivatePostgres();
    // the server's only role is root: the user running the tests gets one of its name
    const name = userInfo().username;
    if (name !== 'root') {
      const admin = new pg.Client({ connectionString: server.url });
      await admin.connect();
      await admin.query(`CREATE ROLE ${pg.escapeIdentifier(name)} LOGIN SUPERUSER`);
      await admin.end();
    }
  }, PROCESS_TEST_TIMEOUT_MS);

  afterAll(async () => {
    await server?.close();
  });

  it(
    'is reached with the socket directory as host and no user in the URL',
    async () => {
      if (server === undefined) throw new Error('not set up');
      const { socketDir: dir, port } = server;
      const byParameter = `postgres:///postgres?host=${dir}&port=${port}`;
      // the commands run with PATH alone in their environment: no USER, no PGUSER
      const migrated = await runCliToEnd(['migrate', '--db', byParameter]);
      expect(migrated).toEqual({ code: 0, stderr: `${byParameter}: schema created (version 1)\n` });
      const byHost = `postgresql://${encodeURIComponent(dir)}:${port}/postgres`;
      expect(await runCliToEnd(['keys', 'list', '--db', byHost])).toEqual({ code: 0, stderr: '' });

      const missing = await runCliToEnd([
        'keys',
        'list',
        '--db',
        `postgres:///nodb?host=${dir}&port=${port}`,
      ]);
      expect(missing).toEqual({
        code: 1,
        stderr: `gridquote: cannot reach PostgreSQL at ${dir}:${port}/nodb: database "nodb" does not exist\n`,
      });
    },
    PROCESS_TEST_TIMEOUT_MS,
  );
});
