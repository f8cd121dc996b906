import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectOneLineError, runGridquote } from '../../test/cli-in-process.js';
import { registerBackup } from './backup.js';
import { registerExport } from './export.js';
import { registerIngest } from './ingest.js';
import { registerSeed } from './seed.js';

const directory = mkdtempSync(join(tmpdir(), 'gridquote-backup-'));
const path = (name: string) => join(directory, name);

function gridquote(args: string[]) {
  return runGridquote(args, { commands: [registerSeed, registerIngest, registerExport, registerBackup] });
}

const exported = async (db: string) => (await gridquote(['export', '--db', db])).stdout;

let original: string;
beforeAll(async () => {
  expect(
    (await gridquote(['seed', '--db', path('market.db'), '--days', '2', '--until', '20250220'])).code,
  ).toBe(0);
  original = await exported(path('market.db'));
});
afterAll(() => rmSync(directory, { recursive: true, force: true }));

describe('gridquote backup', () => {
  it('copies a store to a new file that answers the same, ready for read-only media', async () => {
    const result = await gridquote(['backup', '--db', path('market.db'), path('copy.db')]);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr).toMatch(
      /^backed up .*market\.db to .*copy\.db: version \d+, trading days up to 20250220, [\d.]+ MiB in \d+ ms\n$/,
    );
    expect(await exported(path('copy.db'))).toBe(original);
    const copy = new Database(path('copy.db'), { readonly: true });
    try {
      expect(copy.pragma('journal_mode', { simple: true })).toBe('delete');
    } finally {
      copy.close();
    }
  });

  it('copies the store as it was before an ingest still writing it, never half of it', async () => {
    // The next day, ingested into the store while the backup is taken.
    await gridquote(['seed', '--db', path('longer.db'), '--days', '3', '--until', '20250221']);
    const longer = await exported(path('longer.db'));
    writeFileSync(path('longer.ndjson'), longer);
    const [ingested, backedUp] = await Promise.all([
      gridquote(['ingest', '--db', path('market.db'), path('longer.ndjson')]),
      new Promise((resolve) => setTimeout(resolve, 5)).then(() =>
        gridquote(['backup', '--db', path('market.db'), path('during.db')]),
      ),
    ]);
    expect(ingested.code, ingested.stderr).toBe(0);
    expect(backedUp.code, backedUp.stderr).toBe(0);
    // Taken while the ingest's one transaction was open (it ends hundreds of ms later): the store before it.
    expect(await exported(path('during.db'))).toBe(original);
    expect(await exported(path('market.db'))).toBe(longer);
  });

  it('removes the part copy a backup killed on its way left beside the file it was making', async () => {
    const ended = spawnSync(process.execPath, ['-e', '']).pid;
    const left = path(`.again.db.backup-${ended}-abcdef01`);
    writeFileSync(left, 'part of a copy');
    const lastHour = new Date(Date.now() - 3_600_000);
    utimesSync(left, lastHour, lastHour);
    const result = await gridquote(['backup', '--db', path('market.db'), path('again.db')]);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr).toMatch(
      new RegExp(
        `^removed .*\\.again\\.db\\.backup-${ended}-abcdef01, a store an earlier backup \\(process ${ended}, ended\\) did not finish\nbacked up `,
      ),
    );
    expect(existsSync(left)).toBe(false);
  });

  it('refuses to write over a file, into a missing folder, or to copy PostgreSQL, leaving nothing behind', async () => {
    writeFileSync(path('taken.db'), 'mine');
    expectOneLineError(
      await gridquote(['backup', '--db', path('market.db'), path('taken.db')]),
      /^gridquote: .*taken\.db exists: backup writes a new file, never over another\n$/,
    );
    expectOneLineError(
      await gridquote(['backup', '--db', path('market.db'), path('nowhere/copy.db')]),
      /^gridquote: no folder .*nowhere for .*copy\.db; create the folder first\n$/,
    );
    expectOneLineError(
      await gridquote(['backup', '--db', 'postgres://root@127.0.0.1:5432/test', path('pg.db')]),
      /^gridquote: backup copies a SQLite store; back up a PostgreSQL store with pg_dump/,
    );
    expect((await gridquote(['backup', '--db', path('missing.db'), path('copy-of-missing.db')])).code).toBe(
      1,
    );
    expect(existsSync(path('copy-of-missing.db'))).toBe(false);
    expect(readdirSync(directory).filter((name) => name.includes('.backup-'))).toEqual([]);
  });
});
