import { Option } from 'commander';
import { SETTINGS, storeLocation } from '../config.js';
import { describeLocation, type OpenStoreOptions, openStore } from '../store/open-store.js';
import { isPrivilegeRefusal } from '../store/privilege-refusal.js';
import type { MarketStore } from '../store/store.js';

/** What the commands write to and open; tests pass their own. */
export interface CliIo {
  readonly stdout: NodeJS.WritableStream;
  readonly stderr: NodeJS.WritableStream & { readonly isTTY?: boolean };
  readonly stdin: NodeJS.ReadableStream;
  readonly now: () => Date;
  readonly openStore: (location: string, options: OpenStoreOptions) => Promise<MarketStore>;
}

export const PROCESS_IO: CliIo = {
  stdout: process.stdout,
  stderr: process.stderr,
  stdin: process.stdin,
  now: () => new Date(),
  openStore,
};

/** Opens the store for one command and always closes it, also when the command fails. */
export async function withStore<T>(
  io: CliIo,
  location: string,
  options: OpenStoreOptions,
  work: (store: MarketStore) => T | Promise<T>,
): Promise<T> {
  const store = await io.openStore(location, options);
  try {
    return await work(store);
  } catch (error) {
    // A role that may read the store but not write it (a read-only role for serve, docs/operations.md):
    // PostgreSQL's "permission denied for table api_keys" does not say which store, or what to do.
    if (isPrivilegeRefusal(error)) {
      throw new CliError(
        `${(error as Error).message} at ${describeLocation(location)}: the URL's role may not write this store; run this command as its owner`,
      );
    }
    throw error;
  } finally {
    await store.close();
  }
}

/** The --db option of a command; without it the command takes GRIDQUOTE_DB (storeLocation). */
export function storeOption(description: string, otherwise?: string): Option {
  const fallback = otherwise === undefined ? '' : `, else ${otherwise}`;
  return new Option('--db <location>', `${description} (default: $${SETTINGS.db.env}${fallback})`);
}

/** The store a command names: --db, else GRIDQUOTE_DB; a refusal when neither is given. */
export function requireStore(command: string, flag: string | undefined): string {
  const location = storeLocation(flag);
  if (location === undefined) {
    throw new CliError(`${command} needs a store: pass --db STORE or set ${SETTINGS.db.env}`);
  }
  return location;
}

/** A refusal the user can act on: printed as one line, no stack. */
export class CliError extends Error {
  override readonly name = 'CliError';
}
