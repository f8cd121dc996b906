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
  'test/invariants.test.ts',
];

const withPostgres = (process.env.GRIDQUOTE_TEST_PG_URL ?? '') !== '';
if (!withPostgres) {
  console.log('postgres project (route and invariant suites over PostgreSQL): skipped, GRIDQUOTE_TEST_PG_URL is not set');
}

const common = { testTimeout: 60_000, hookTimeout: 120_000 };

export default defineConfig({
  test: {
    projects: [
      { test: { name: 'all', include: ['src/**/*.test.ts', 'test/**/*.test.ts'], ...common } },
      ...(withPostgres
        ? [
            {
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
