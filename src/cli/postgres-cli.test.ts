import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough, Writable } from 'node:stream';
import { afterAll, describe, expect, it } from 'vitest';
import { openStore } from '../store/open-store.js';
import { reportSkipped, TEST_PG_URL, testSchemas } from '../store/postgres/test-schemas.js';
import type { CliIo } from './cli-io.js';
import { registerExport } from './export.js';
import { registerKeys } from './keys.js';
import { registerMigrate } from './migrate.js';
import { createProgram, runCli } from './run-cli.js';
import { registerSeed } from './seed.js';

reportSkipped('gridquote commands on PostgreSQL');
const schemas = testSchemas();

const directory = mkdtempSync(join(tmpdir(), 'gridquote-pg-cli-'));

afterAll(async () => {
  rmSync(directory, { recursive: true, force: true });
  if (TEST_PG_URL !== undefined) await schemas.dropAll();
});

class Capture extends Writable {
  text = '';
  override _write(chunk: Buffer, _encoding: BufferEncoding, done: () => void): void {
    this.text += chunk.toString();
    done();
  }
}

/** Runs `gridquote ...args` in process, as main.ts does, capturing its output. */
async function gridquote(args: string[]) {
  const stdout = new Capture();
  const stderr = new Capture();
  const io: CliIo = {
    stdout,
    stderr,
    stdin: new PassThrough().end(),
    now: () => new Date('2025-02-24T08:00:00Z'),
    openStore,
  };
  const program = createProgram({ stdout, stderr });
  registerSeed(program, io);
  registerExport(program, io);
  registerKeys(program, io);
  registerMigrate(program, io);
  const code = await runCli(program, ['node', 'gridquote', ...args], stderr);
  return { code, stdout: stdout.text, stderr: stderr.text };
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
});

describe.skipIf(TEST_PG_URL === undefined)('gridquote commands on PostgreSQL', () => {
  it('migrate creates the schema once; read-only commands refuse an empty database', async () => {
    const url = await schemas.url();
    const refused = await gridquote(['keys', 'list', '--db', url]);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(
      /^gridquote: no store at [^\n]+; create one with gridquote seed, ingest or migrate\n$/,
    );
    for (let run = 0; run < 2; run += 1) {
      const migrated = await gridquote(['migrate', '--db', url]);
      expect(migrated.code, migrated.stderr).toBe(0);
      expect(migrated.stderr).toMatch(/schema up to date\n$/);
    }
    const listed = await gridquote(['keys', 'list', '--db', url]);
    expect(listed.code, listed.stderr).toBe(0);
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
