import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runGridquote } from '../../test/cli-in-process.js';
import { createApiKey } from '../http/api-keys.js';
import { authenticate } from '../http/auth.js';
import { openSqliteStore } from '../store/sqlite/open-sqlite-store.js';
import { registerKeys } from './keys.js';

const NOW = new Date('2025-03-07T01:00:00Z');
let dir: string;
let db: string;

/** `gridquote keys ...` at NOW. */
function gridquote(...args: string[]) {
  return runGridquote(args, { commands: [registerKeys], now: () => NOW });
}

beforeEach(async () => {
  dir = mkdtempSync(join(tmpdir(), 'gridquote-keys-'));
  db = join(dir, 'keys.db');
  // keys commands never create a store (a typo must not make an empty one): make it here.
  await openSqliteStore(db).close();
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

describe('gridquote keys', () => {
  it('create prints the key alone on stdout and stores only its hash', async () => {
    const result = await gridquote(
      'keys',
      'create',
      '--db',
      db,
      '--level',
      'end_of_day',
      '--name',
      'vendor A',
      '--expires',
      '20251231',
    );
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/^gq_[0-9a-f]{12}_[A-Za-z0-9_-]{43}\n$/);
    const key = result.stdout.trimEnd();
    expect(result.stderr).toContain('end_of_day');
    expect(result.stderr).not.toContain(key.slice(16));
    const store = openSqliteStore(db);
    try {
      const [record] = await store.keys.listKeys();
      expect(record).toMatchObject({
        level: 'end_of_day',
        name: 'vendor A',
        expiresOn: '20251231',
        revokedAt: null,
      });
      expect(JSON.stringify(record)).not.toContain(key.slice(16));
      expect((await authenticate(store.keys, `Bearer ${key}`, () => NOW)).id).toBe(record?.id);
    } finally {
      await store.close();
    }
  });

  it('list shows ids and status, never secrets; revoke stops the key', async () => {
    const key = (await gridquote('keys', 'create', '--db', db, '--level', 'historical')).stdout.trimEnd();
    const id = key.slice(3, 15);
    const listing = await gridquote('keys', 'list', '--db', db);
    expect(listing.stdout).toMatch(
      new RegExp(`^id\\tlevel\\tstatus.*\\n${id}\\thistorical\\tactive\\t-\\t`, 's'),
    );
    expect(listing.stdout).not.toContain(key.slice(16));
    const revoked = await gridquote('keys', 'revoke', '--db', db, id);
    expect(revoked).toMatchObject({ code: 0, stdout: '', stderr: `revoked key ${id}\n` });
    expect((await gridquote('keys', 'list', '--db', db)).stdout).toContain(`${id}\thistorical\trevoked`);
  });

  it('refuses a name that is not printable or too long, and lists a stored one that is not escaped', async () => {
    for (const name of ['a\tb', 'evil\nffffffffffff\thistorical', '\u001b[31mred', 'x'.repeat(101)]) {
      const refused = await gridquote('keys', 'create', '--db', db, '--level', 'historical', '--name', name);
      expect(refused.code, JSON.stringify(name)).toBe(1);
      expect(refused.stderr).toMatch(/--name.*expected (printable characters only|at most 100 characters)/);
    }
    expect((await gridquote('keys', 'list', '--db', db)).stdout.split('\n')).toHaveLength(2);
    const kept = await gridquote(
      'keys',
      'create',
      '--db',
      db,
      '--level',
      'historical',
      '--name',
      'désk Ä 東京',
    );
    expect(kept.code).toBe(0);
    // Stored by something else (an older version, SQL): shown escaped, one line.
    const store = openSqliteStore(db);
    const created = createApiKey({ level: 'end_of_day', now: NOW, name: 'evil\nforged\tline\u001b[0m' });
    await store.keys.insertKey(created.record);
    await store.close();
    const listing = (await gridquote('keys', 'list', '--db', db)).stdout.split('\n');
    expect(listing).toHaveLength(4);
    expect(listing.some((line) => line.endsWith('\tdésk Ä 東京'))).toBe(true);
    expect(listing.some((line) => line.endsWith('\tevil\\u000aforged\\u0009line\\u001b[0m'))).toBe(true);
  });

  it('create stores per-key rate limits (0 = unlimited) and list shows them', async () => {
    const limited = await gridquote(
      'keys',
      'create',
      '--db',
      db,
      '--level',
      'historical',
      '--per-second',
      '5',
      '--per-minute',
      '0',
    );
    expect(limited.code).toBe(0);
    expect(limited.stderr).toContain('5 per second, unlimited per minute');
    await gridquote('keys', 'create', '--db', db, '--level', 'end_of_day');
    const id = limited.stdout.slice(3, 15);
    const store = openSqliteStore(db);
    try {
      expect(await store.keys.findKey(id)).toMatchObject({ perSecond: 5, perMinute: 0 });
      expect((await store.keys.listKeys()).find((record) => record.id !== id)).toMatchObject({
        perSecond: null,
        perMinute: null,
      });
    } finally {
      await store.close();
    }
    const listing = (await gridquote('keys', 'list', '--db', db)).stdout.split('\n');
    expect(listing[0]).toBe('id\tlevel\tstatus\texpires\tper-second\tper-minute\tcreated\tname');
    expect(listing).toContainEqual(
      expect.stringMatching(new RegExp(`^${id}\thistorical\tactive\t-\t5\tunlimited\t`)),
    );
    expect(listing).toContainEqual(expect.stringMatching(/\tend_of_day\tactive\t-\tdefault\tdefault\t/));
  });

  it.each([
    [['keys', 'create', '--level', 'historical'], /--db/],
    [['keys', 'create', '--db', 'x.db', '--level', 'historical', '--per-second', '-1'], /whole number/],
    [['keys', 'create', '--db', 'x.db', '--level', 'historical', '--per-minute', '2.5'], /whole number/],
    [['keys', 'create', '--db', 'x.db', '--level', 'admin'], /Allowed choices/],
    [['keys', 'create', '--db', 'x.db', '--level', 'historical', '--expires', '20251301'], /yyyyMMdd/],
    [['keys', 'create', '--db', 'x.db', '--level', 'historical', '--expires', '20250101'], /in the past/],
    [['keys', 'revoke', '--db', 'missing.db', 'abc'], /no store/],
    [['keys', 'list', '--db', 'missing.db'], /no store/],
    [['keys', 'create', '--db', 'typo.db', '--level', 'historical'], /no store at .*typo\.db/],
  ])('fails with one line on %j', async (args, message) => {
    const result = await gridquote(...args.map((arg) => (arg.endsWith('.db') ? join(dir, arg) : arg)));
    expect(result.code).not.toBe(0);
    expect(result.stderr).toMatch(/^gridquote: [^\n]+\n$/);
    expect(result.stderr).toMatch(message);
    expect(result.stdout).toBe('');
    expect(existsSync(join(dir, 'typo.db'))).toBe(false);
  });

  it('revoke of an unknown id fails', async () => {
    await gridquote('keys', 'create', '--db', db, '--level', 'historical');
    const result = await gridquote('keys', 'revoke', '--db', db, '000000000000');
    expect(result.code).toBe(1);
    expect(result.stderr).toBe('gridquote: no key with id 000000000000\n');
  });
});
