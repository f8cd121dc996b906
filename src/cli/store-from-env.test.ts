import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { runGridquote } from '../../test/cli-in-process.js';
import { MIGRATIONS } from '../store/sqlite/migrations.js';
import { registerBackup } from './backup.js';
import { DEFAULT_DEMO_DB, demoStore } from './demo.js';
import { registerExport } from './export.js';
import { registerIngest } from './ingest.js';
import { registerKeys } from './keys.js';
import { registerMigrate } from './migrate.js';
import { registerSeed } from './seed.js';

/** Every command with --db takes GRIDQUOTE_DB without it; the flag wins (docs/operations.md). */

const directory = mkdtempSync(join(tmpdir(), 'gridquote-store-env-'));
const path = (name: string) => join(directory, name);
const SEED = ['--days', '1', '--until', '20250221', '--seed', '3'];

/** `gridquote ...args` with every command that takes --db, GRIDQUOTE_DB set to `db` (or unset). */
function gridquote(args: string[], db: string | undefined) {
  vi.stubEnv('GRIDQUOTE_DB', db);
  return runGridquote(args, {
    commands: [registerSeed, registerIngest, registerExport, registerKeys, registerMigrate, registerBackup],
    now: () => new Date('2025-02-24T08:00:00Z'),
  });
}

let exported: string;
beforeAll(async () => {
  expect((await gridquote(['seed', '--db', path('flag.db'), ...SEED], undefined)).code).toBe(0);
  exported = (await gridquote(['export', '--db', path('flag.db')], undefined)).stdout;
  expect(exported.length).toBeGreaterThan(0);
});
afterEach(() => {
  vi.unstubAllEnvs();
});
afterAll(() => rmSync(directory, { recursive: true, force: true }));

describe('GRIDQUOTE_DB', () => {
  it('names the store of seed, migrate, export, backup and keys when --db is not given', async () => {
    const db = path('env.db');
    expect(await gridquote(['seed', ...SEED], db)).toMatchObject({ code: 0 });
    expect(existsSync(db)).toBe(true);
    const migrated = await gridquote(['migrate'], db);
    expect(migrated).toMatchObject({
      code: 0,
      stderr: `${db}: schema up to date (version ${MIGRATIONS.length})\n`,
    });
    expect((await gridquote(['export'], db)).stdout).toBe(exported);
    expect(await gridquote(['backup', path('env-copy.db')], db)).toMatchObject({ code: 0 });
    expect((await gridquote(['export', '--db', path('env-copy.db')], undefined)).stdout).toBe(exported);
    const created = await gridquote(['keys', 'create', '--level', 'historical', '--name', 'from env'], db);
    expect(created.code).toBe(0);
    const id = created.stdout.slice(3, 15);
    const listing = await gridquote(['keys', 'list'], db);
    expect(listing.stdout).toContain(`${id}\thistorical\tactive`);
    expect(await gridquote(['keys', 'revoke', id], db)).toMatchObject({ code: 0 });
    expect((await gridquote(['keys', 'list'], db)).stdout).toContain(`${id}\thistorical\trevoked`);
    // The key went to the store GRIDQUOTE_DB named, not to any other.
    expect((await gridquote(['keys', 'list', '--db', path('flag.db')], undefined)).stdout).not.toContain(id);
  });

  it('loses to --db', async () => {
    const missing = path('missing.db');
    // GRIDQUOTE_DB names no store; the flag's store is used and nothing is made at the env's path.
    expect((await gridquote(['export', '--db', path('flag.db')], missing)).stdout).toBe(exported);
    expect((await gridquote(['keys', 'list', '--db', path('flag.db')], missing)).code).toBe(0);
    expect(existsSync(missing)).toBe(false);
    // And the other way round: a flag naming no store is refused although GRIDQUOTE_DB names one.
    const refused = await gridquote(['export', '--db', missing], path('flag.db'));
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/^gridquote: no store at .*missing\.db/);
    expect(refused.stdout).toBe('');
  });

  it('without either, a command says in one line how to name a store', async () => {
    for (const command of [['export'], ['keys', 'list'], ['ingest', '-'], ['migrate']]) {
      const result = await gridquote(command, undefined);
      expect(result.code).toBe(1);
      expect(result.stderr).toBe(
        `gridquote: ${command.slice(0, command[0] === 'keys' ? 2 : 1).join(' ')} needs a store: pass --db STORE or set GRIDQUOTE_DB\n`,
      );
    }
  });

  it('refuses an empty GRIDQUOTE_DB as a configuration problem', async () => {
    const result = await gridquote(['keys', 'list'], '');
    expect(result.code).toBe(1);
    expect(result.stderr).toBe(
      'gridquote: config: GRIDQUOTE_DB must be a file path or a postgres:// URL, got an empty value\n',
    );
  });

  it("names the demo's store unless --db does; without either the demo keeps its default", () => {
    vi.stubEnv('GRIDQUOTE_DB', 'postgres://demo@127.0.0.1/market');
    expect(demoStore(undefined)).toBe('postgres://demo@127.0.0.1/market');
    expect(demoStore('mine.db')).toBe('mine.db');
    vi.stubEnv('GRIDQUOTE_DB', undefined);
    expect(demoStore(undefined)).toBe(DEFAULT_DEMO_DB);
    expect(DEFAULT_DEMO_DB).toBe('./data/demo.db');
  });
});
