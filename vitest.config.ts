import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

/**
 * Two projects: every test (suites with a store kind over SQLite), and the suites that take their store from
 * test/fixtures.ts (openTestStore: the HTTP routes through test/api-harness.ts, the invariants)
 * again over PostgreSQL, without duplicating them. The second runs only when a PostgreSQL
 * server is given (GRIDQUOTE_TEST_PG_URL; .ci/run sets it).
 */
const OVER_BOTH_STORES = [
  'src/http/routes/*.test.ts',
  'src/http/app.test.ts',
  'src/http/answer.test.ts',
  'src/http/live.test.ts',
  'src/http/stream/stream.test.ts',
  'test/invariants.test.ts',
];

const withPostgres = (process.env.GRIDQUOTE_TEST_PG_URL ?? '') !== '';
if (!withPostgres) {
  console.log('postgres project (route and invariant suites over PostgreSQL): skipped, GRIDQUOTE_TEST_PG_URL is not set');
}

const common = { testTimeout: 60_000, hookTimeout: 120_000 };

export default defineConfig({
  resolve: {
    // Tests use the client package's sources, so they need no build of it.
    alias: {
      '@gridquote/client': fileURLToPath(new URL('./packages/client/src/index.ts', import.meta.url)),
    },
  },
  test: {
    projects: [
      {
        // extends: the alias above applies to the projects too.
        extends: true,
        test: {
          name: 'all',
          include: ['src/**/*.test.ts', 'test/**/*.test.ts', 'packages/*/src/**/*.test.ts'],
          ...common,
        },
      },
      ...(withPostgres
        ? [
            {
              extends: true,
              test: {
                name: 'postgres',
                include: OVER_BOTH_STORES,
                env: { GRIDQUOTE_TEST_STORE: 'postgres' },
                ...common,
              },
            },
          ]
        : []),
    ],
  },
});
