import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, describe, expect, it } from 'vitest';
import { runGridquote } from '../../test/cli-in-process.js';
import { MIGRATIONS } from '../store/sqlite/migrations.js';
import { registerMigrate } from './migrate.js';

const directory = mkdtempSync(join(tmpdir(), 'gridquote-migrate-'));
afterAll(() => rmSync(directory, { recursive: true, force: true }));

const migrate = (db: string) => runGridquote(['migrate', '--db', db], { commands: [registerMigrate] });

describe('gridquote migrate', () => {
  it('says what it did to the schema: created, upgraded from an older version, or nothing to do', async () => {
    const latest = MIGRATIONS.length;
    const created = join(directory, 'new.db');
    expect(await migrate(created)).toMatchObject({
      code: 0,
      stderr: `${created}: schema created (version ${latest})\n`,
    });
    expect(await migrate(created)).toMatchObject({
      code: 0,
      stderr: `${created}: schema up to date (version ${latest})\n`,
    });

    // a store an older gridquote made: its first migration only
    const older = join(directory, 'older.db');
    const db = new Database(older);
    db.exec(MIGRATIONS[0] ?? '');
    db.pragma('user_version = 1');
    db.close();
    expect(await migrate(older)).toMatchObject({
      code: 0,
      stderr: `${older}: schema upgraded from version 1 to ${latest}\n`,
    });
  });
});
