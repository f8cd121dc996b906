import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { runGridquote } from '../../test/cli-in-process.js';
import { reportSkipped, TEST_PG_URL, testSchemas } from '../store/postgres/test-schemas.js';
import { registerExport } from './export.js';
import { registerKeys } from './keys.js';
import { registerMigrate } from './migrate.js';
import { registerSeed } from './seed.js';

reportSkipped('gridquote commands on PostgreSQL');
const schemas = testSchemas();

const directory = mkdtempSync(join(tmpdir(), 'gridquote-pg-cli-'));

afterAll(async () => {
  rmSync(directory, { recursive: true, force: true });
  if (TEST_PG_URL !== undefined) await schemas.dropAll();
});

/** `gridquote ...args` with the commands that take a PostgreSQL store, on Mon 24 Feb 2025. */
function gridquote(args: string[]) {
  return runGridquote(args, {
    commands: [registerSeed, registerExport, registerKeys, registerMigrate],
    now: () => new Date('2025-02-24T08:00:00Z'),
  });
}

const SEED = ['--days', '2', '--until', '20250221', '--seed', '3'];

describe('gridquote commands without a PostgreSQL server', () => {
  it('say in one line that the server cannot be reached, and exit non-zero', async () => {
    for (const command of [['export'], ['keys', 'list'], ['migrate']]) {
      const result = await gridquote([...command, '--db', 'postgres://gq:secret@127.0.0.1:1/market']);
      expect(result.code).toBe(1);
      expect(result.stderr).toMatch(
        /^gridquote: cannot reach PostgreSQL at 127\.0\.0\.1:1\/market: [^\n]+\n$/,
      );
      expect(result.stderr).not.toContain('secret');
    }
  });

  it('say in one line what is wrong with a URL they cannot use, without its password', async () => {
    const refused: [url: string, said: RegExp][] = [
      [
        'postgres://gq:secret@db1:5432,db2:5432/market?target_session_attrs=read-write',
        /^gridquote: the URL names several hosts \(db1:5432,db2:5432\), libpq's failover, which gridquote's driver does not do: /,
      ],
      [
        'postgres://gq:secret@db:port/market',
        /^gridquote: not a PostgreSQL URL gridquote can read \(Invalid URL\): /,
      ],
    ];
    for (const [url, said] of refused) {
      const result = await gridquote(['keys', 'list', '--db', url]);
      expect(result.code).toBe(1);
      expect(result.stderr).toMatch(/^gridquote: [^\n]+\n$/);
      expect(result.stderr).toMatch(said);
      expect(result.stderr).not.toContain('secret');
    }
  });
});

describe.skipIf(TEST_PG_URL === undefined)('gridquote commands on PostgreSQL', () => {
  it('migrate creates the schema once; read-only commands refuse an empty database', async () => {
    const url = await schemas.url();
    const refused = await gridquote(['keys', 'list', '--db', url]);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(
      /^gridquote: no store in schema gq_\w+ at [^\n]+; create one with gridquote seed, ingest or migrate\n$/,
    );
    // it says what it did: created the schema, then nothing to do
    for (const said of [/: schema created \(version \d+\)\n$/, /: schema up to date \(version \d+\)\n$/]) {
      const migrated = await gridquote(['migrate', '--db', url]);
      expect(migrated.code, migrated.stderr).toBe(0);
      expect(migrated.stderr).toMatch(said);
    }
    const listed = await gridquote(['keys', 'list', '--db', url]);
    expect(listed.code, listed.stderr).toBe(0);
  });

  it('never prints a password given in the URL', async () => {
    const withPassword = new URL(await schemas.url());
    withPassword.password = 's3cret-pw';
    const url = withPassword.href;
    const said: string[] = [];
    for (const command of [
      ['seed', ...SEED],
      ['migrate'],
      ['keys', 'create', '--level', 'historical'],
      ['keys', 'list'],
      ['export', '--date', '20250221'],
    ]) {
      const result = await gridquote([...command, '--db', url]);
      expect(result.code, result.stderr).toBe(0);
      said.push(result.stdout, result.stderr);
    }
    expect(said.join('\n')).toContain('***@');
    expect(said.join('\n')).not.toContain('s3cret-pw');
  });

  it('says which store a role that may only read it may not write, and what to do', async () => {
    const url = await schemas.url();
    expect((await gridquote(['migrate', '--db', url])).code).toBe(0);
    const schema = new URL(url).searchParams.get('options')?.replace('-c search_path=', '') ?? '';
    const role = `${schema}_reader`;
    const admin = new pg.Client({ connectionString: TEST_PG_URL });
    await admin.connect();
    await admin.query(`CREATE ROLE ${role} LOGIN`);
    try {
      await admin.query(`GRANT USAGE ON SCHEMA ${schema} TO ${role}`);
      await admin.query(`GRANT SELECT ON ALL TABLES IN SCHEMA ${schema} TO ${role}`);
      const asReader = new URL(url);
      asReader.username = role;
      expect((await gridquote(['keys', 'list', '--db', asReader.href])).code).toBe(0);
      const refused = await gridquote(['keys', 'create', '--level', 'historical', '--db', asReader.href]);
      expect(refused.code).toBe(1);
      expect(refused.stderr).toMatch(
        new RegExp(
          `^gridquote: permission denied for table api_keys at postgres://${role}@\\S+: the URL's role may not write this store; run this command as its owner\n$`,
        ),
      );
    } finally {
      await admin.query(`DROP OWNED BY ${role}`);
      await admin.query(`DROP ROLE ${role}`);
      await admin.end();
    }
  });

  it('seeds the same history as SQLite: export is equal line for line, also one date', async () => {
    const url = await schemas.url();
    const file = join(directory, 'same.db');
    for (const db of [url, file]) {
      const seeded = await gridquote(['seed', '--db', db, ...SEED]);
      expect(seeded.code, seeded.stderr).toBe(0);
    }
    for (const only of [[], ['--date', '20250220']]) {
      const fromPostgres = await gridquote(['export', '--db', url, ...only]);
      const fromSqlite = await gridquote(['export', '--db', file, ...only]);
      expect(fromPostgres.code, fromPostgres.stderr).toBe(0);
      expect(fromPostgres.stdout.split('\n').length).toBeGreaterThan(1000);
      expect(fromPostgres.stdout).toBe(fromSqlite.stdout);
    }
  });
});
