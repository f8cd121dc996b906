import { randomBytes } from 'node:crypto';
import { testPostgresUrl } from '../../config.js';
import type { MarketStore } from '../store.js';
import { dropSchemas } from './drop-schemas.js';
import { openPostgresStore, type PostgresStoreOptions } from './open-postgres-store.js';
import { schemaUrl } from './schema-url.js';

/** The test server's URL, or undefined: tests needing PostgreSQL then skip, saying so. */
export const TEST_PG_URL = testPostgresUrl();

/** Prints once per file why its PostgreSQL tests did not run. */
export function reportSkipped(what: string): void {
  if (TEST_PG_URL === undefined) console.log(`${what}: skipped, GRIDQUOTE_TEST_PG_URL is not set`);
}

/**
 * Test stores, each in a schema of its own (gq_test_<random>) in the test database, all dropped
 * by dropAll(): test runs, and the tests of one run, never see each other's data.
 */
export function testSchemas() {
  const created: string[] = [];
  const url = TEST_PG_URL ?? '';
  return {
    /** A fresh schema's name (not yet created). */
    name(): string {
      const schema = `gq_test_${randomBytes(6).toString('hex')}`;
      created.push(schema);
      return schema;
    },
    /** The URL of a fresh, empty schema (created, no tables): for the CLI, whose only input is a URL. */
    url(): Promise<string> {
      return schemaUrl(url, this.name());
    },
    /** An empty store in a fresh schema. */
    async open(options: PostgresStoreOptions = {}): Promise<MarketStore> {
      return openPostgresStore(url, { migrate: true, schema: this.name(), ...options });
    },
    async dropAll(): Promise<void> {
      await dropSchemas(url, created.splice(0));
    },
  };
}
