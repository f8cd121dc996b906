import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PROCESS_TEST_TIMEOUT_MS, runCliToEnd, startServe } from './cli-process.js';
import { type PrivatePostgres, startPrivatePostgres, whyNoPrivatePostgres } from './private-postgres.js';
import { waitFor } from './wait-for.js';

/**
 * A PostgreSQL server that asks for a password (SCRAM), given the ways docs/operations.md
 * names: in the URL (percent-encoded), in PGPASSWORD, or in the password file (PGPASSFILE or
 * ~/.pgpass), which is where the docs say it belongs. Every command and every connection of
 * `serve` (reads, the change notices) finds it, with nothing else on stderr (node-postgres's own
 * reading of the file printed a deprecation notice); a missing or wrong password is one line
 * that says so and never shows it.
 */

const NO_SERVER = whyNoPrivatePostgres();
if (NO_SERVER !== undefined) console.log(`postgres-password.test.ts: skipped, ${NO_SERVER}`);

/** A password with every character a URL or the password file treats specially. */
const PASSWORD = 'p@ss:w/rd%x\\y';

describe.skipIf(NO_SERVER !== undefined)('PostgreSQL asking for a password', () => {
  let server: PrivatePostgres | undefined;
  // Made in beforeAll: a skipped suite's body still runs, but its afterAll does not.
  let directory = '';
  let passwordFile = '';
  let noFile = '';

  beforeAll(async () => {
    directory = mkdtempSync(join(tmpdir(), 'gridquote-pgpass-'));
    passwordFile = join(directory, 'pgpass');
    noFile = join(directory, 'none');
    server = await startPrivatePostgres({ password: PASSWORD });
    const port = new URL(server.url).port;
    // the file's format escapes ':' and '\' with a backslash
    writeFileSync(passwordFile, `127.0.0.1:${port}:*:root:${PASSWORD.replace(/([:\\])/g, '\\$1')}\n`);
    chmodSync(passwordFile, 0o600);
  }, PROCESS_TEST_TIMEOUT_MS);

  afterAll(async () => {
    await server?.close();
    rmSync(directory, { recursive: true, force: true });
  });

  it(
    'is found in the URL, in PGPASSWORD and in the password file, with nothing else said',
    async () => {
      if (server === undefined) throw new Error('not set up');
      const url = server.url;
      const inUrl = url.replace('root@', `root:${encodeURIComponent(PASSWORD)}@`);
      const seeded = await runCliToEnd(['seed', '--db', inUrl, '--days', '1', '--until', '20260302'], {
        PGPASSFILE: noFile,
      });
      expect(seeded.code, seeded.stderr).toBe(0);
      expect(seeded.stderr).toMatch(
        /^seeded postgres:\/\/root:\*\*\*@127\.0\.0\.1:\d+\/postgres: 1 trading days /m,
      );
      expect(seeded.stderr).not.toMatch(/Deprecation|Warning/);
      expect(seeded.stderr).not.toContain(encodeURIComponent(PASSWORD));
      expect(
        await runCliToEnd(['keys', 'list', '--db', url], { PGPASSWORD: PASSWORD, PGPASSFILE: noFile }),
      ).toEqual({
        code: 0,
        stderr: '',
      });
      expect(await runCliToEnd(['keys', 'list', '--db', url], { PGPASSFILE: passwordFile })).toEqual({
        code: 0,
        stderr: '',
      });

      // serve opens its pools and its notices connection with it
      const serve = await startServe(['--db', url, '--workers', '1'], { PGPASSFILE: passwordFile });
      try {
        const ready = await waitFor('serve to be ready', async () => {
          const response = await fetch(`${serve.base}/readyz`);
          return response.status === 200 && ((await response.json()) as { notices: string });
        });
        expect(ready.notices).toBe('listening');
        expect(serve.stderr()).not.toMatch(/Deprecation|Warning/);
      } finally {
        await serve.kill();
      }
    },
    PROCESS_TEST_TIMEOUT_MS,
  );

  it(
    'missing or wrong, is refused in one line that never shows it',
    async () => {
      if (server === undefined) throw new Error('not set up');
      const url = server.url;
      const missing = await runCliToEnd(['keys', 'list', '--db', url], { PGPASSFILE: noFile });
      expect(missing.code).toBe(1);
      expect(missing.stderr).toMatch(
        /^gridquote: cannot reach PostgreSQL at 127\.0\.0\.1:\d+\/postgres: the server asks for a password for the user root, and none was given: put it in ~\/\.pgpass \(or the file PGPASSFILE names\) or in PGPASSWORD\n$/,
      );
      const wrong = await runCliToEnd(['keys', 'list', '--db', url.replace('root@', 'root:not-it@')], {
        PGPASSWORD: PASSWORD,
      });
      expect(wrong.code).toBe(1);
      expect(wrong.stderr).toMatch(
        /^gridquote: cannot reach PostgreSQL at [^\n]+: password authentication failed[^\n]*\n$/,
      );
      expect(wrong.stderr).not.toContain('not-it');
      expect(wrong.stderr).not.toContain(PASSWORD);
    },
    PROCESS_TEST_TIMEOUT_MS,
  );
});
