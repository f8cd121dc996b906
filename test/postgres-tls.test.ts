import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { registerExport } from '../src/cli/export.js';
import { registerKeys } from '../src/cli/keys.js';
import { registerSeed } from '../src/cli/seed.js';
import type { FeedEvent } from '../src/feed/events.js';
import { createSimulator } from '../src/feed/simulator/simulator.js';
import { createApiKey } from '../src/http/api-keys.js';
import { ingestEvents } from '../src/ingest/ingest-events.js';
import { openPostgresStore } from '../src/store/postgres/open-postgres-store.js';
import type { MarketStore } from '../src/store/store.js';
import { hasOpenssl } from './certificates.js';
import { expectOneLineError, runGridquote } from './cli-in-process.js';
import { PROCESS_TEST_TIMEOUT_MS, type ServeProcess, startServe } from './cli-process.js';
import {
  type PrivatePostgres,
  type PrivateTls,
  startPrivatePostgres,
  whyNoPrivatePostgres,
} from './private-postgres.js';
import { expectSameAnswers, referenceServer } from './replica-answers.js';
import { waitFor } from './wait-for.js';

/**
 * PostgreSQL over TLS, as docs/operations.md ("Encrypted connections") says to connect: the
 * URL's sslmode, sslrootcert, sslcert and sslkey reach every connection the store opens (its
 * reads, its writer, the change notices). A private server that takes only encrypted
 * connections with a client certificate its CA signed: `seed`, `keys create`, `export` and
 * `serve` work over verified connections, and a commit's notice arrives over one; a
 * connection that is not encrypted, not verified or without a certificate is refused in one
 * line that never shows the password.
 */

const NO_SERVER = whyNoPrivatePostgres() ?? (hasOpenssl() ? undefined : 'no openssl to make certificates');
if (NO_SERVER !== undefined) console.log(`postgres-tls.test.ts: skipped, ${NO_SERVER}`);

const commands = [registerSeed, registerKeys, registerExport];

/** The server's URL with these parameters. */
const withParams = (url: string, params: Record<string, string>) => {
  const parsed = new URL(url);
  for (const [name, value] of Object.entries(params)) parsed.searchParams.set(name, value);
  return parsed.href;
};

/** Verified TLS with the client certificate: what the docs recommend. */
const verified = (url: string, tls: PrivateTls) =>
  withParams(url, { sslmode: 'verify-full', sslrootcert: tls.ca, sslcert: tls.cert, sslkey: tls.key });

describe.skipIf(NO_SERVER !== undefined)('PostgreSQL over TLS with client certificates', () => {
  let server: PrivatePostgres | undefined;
  let tls: PrivateTls | undefined;

  beforeAll(async () => {
    server = await startPrivatePostgres({ tls: true });
    tls = server.tls;
  }, PROCESS_TEST_TIMEOUT_MS);

  afterAll(async () => {
    await server?.close();
  });

  it(
    'seeds, makes keys, exports and serves over verified connections; notices arrive over one',
    async () => {
      if (server === undefined || tls === undefined) throw new Error('not set up');
      const url = verified(server.url, tls);
      const seeded = await runGridquote(['seed', '--db', url, '--days', '1', '--until', '20260302'], {
        commands,
      });
      expect(seeded.code, seeded.stderr).toBe(0);
      const created = await runGridquote(['keys', 'create', '--db', url, '--level', 'historical'], {
        commands,
      });
      expect(created.code, created.stderr).toBe(0);
      const exported = await runGridquote(['export', '--db', url], { commands });
      expect(exported.code, exported.stderr).toBe(0);
      const lines = exported.stdout.split('\n').filter((line) => line !== '');
      expect(lines.length).toBeGreaterThan(1000);

      // serve, in a process of its own: its reads and its notices connection over TLS too
      const key = createApiKey({ level: 'historical', now: new Date(), perSecond: 0, perMinute: 0 });
      const simulator = createSimulator({ seed: 4 });
      const next: FeedEvent[] = simulator.simulateDay('20260303');
      let store: MarketStore | undefined;
      let serve: ServeProcess | undefined;
      const admin = new pg.Client({ connectionString: url });
      try {
        store = await openPostgresStore(url, { connectTimeoutMs: 5000 });
        await store.keys.insertKey(key.record);
        serve = await startServe(['--db', url, '--workers', '1']);
        const base = serve.base;
        const readiness = async () => {
          const response = await fetch(`${base}/readyz`);
          if (response.status !== 200) return undefined;
          return (await response.json()) as { notices: string; latestDate: string };
        };
        expect((await waitFor('serve to be ready', readiness)).notices).toBe('listening');
        await ingestEvents(store.writer, next);
        await waitFor(
          'the commit to reach the server',
          async () => (await readiness())?.latestDate === '20260303',
        );

        const stored = (await runGridquote(['export', '--db', url], { commands })).stdout;
        const events = stored
          .split('\n')
          .filter((line) => line !== '')
          .map((line) => JSON.parse(line) as FeedEvent);
        const reference = await referenceServer(events, [key.record]);
        try {
          const requests = [
            '/api/epi',
            '/api/trades?market=au_electricity',
            '/api/ticker?futures=au_electricity',
          ];
          expect(await expectSameAnswers([base], reference, requests, key.key)).toEqual([200, 200, 200]);
        } finally {
          await reference.close();
        }

        // every session of the server and the store is encrypted and presented the client certificate
        await admin.connect();
        const sessions = await admin.query<{ name: string; ssl: boolean; dn: string | null }>(
          `SELECT a.application_name AS name, s.ssl, s.client_dn AS dn
             FROM pg_stat_activity a JOIN pg_stat_ssl s USING (pid) WHERE a.backend_type = 'client backend'`,
        );
        expect(sessions.rows.map((row) => row.name)).toContain('gridquote public notices');
        for (const row of sessions.rows) expect(row).toMatchObject({ ssl: true, dn: '/CN=root' });
      } finally {
        await admin.end().catch(() => undefined);
        await serve?.kill();
        await store?.close();
      }
    },
    PROCESS_TEST_TIMEOUT_MS,
  );

  it('refuses, in one line without the password, a connection not encrypted, not verified or without a certificate', async () => {
    if (server === undefined || tls === undefined) throw new Error('not set up');
    const withPassword = server.url.replace('root@', 'root:secret-word@');
    const refused: [params: Record<string, string>, reason: RegExp][] = [
      [{ sslmode: 'disable' }, /no encryption/],
      [
        { sslmode: 'verify-full', sslrootcert: tls.otherCa, sslcert: tls.cert, sslkey: tls.key },
        /certificate/,
      ],
      [{ sslmode: 'verify-full', sslrootcert: tls.ca }, /certificate/],
    ];
    for (const [params, reason] of refused) {
      const result = await runGridquote(['export', '--db', withParams(withPassword, params)], { commands });
      expectOneLineError(result, /^gridquote: cannot reach PostgreSQL at 127\.0\.0\.1:\d+\/postgres: /);
      expect(result.stderr).toMatch(reason);
      expect(result.stderr).not.toContain('secret-word');
    }
  });
});
