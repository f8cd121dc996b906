import { chmodSync, existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { createApiKey, parseApiKey, secretMatches } from '../http/api-keys.js';
import type { AccessLevel } from '../query/context.js';
import { describeLocation, sqlitePath, storeKind } from '../store/open-store.js';
import type { KeyStore } from '../store/store.js';

/**
 * The demo's two API keys, kept across restarts so that a saved script or spreadsheet keeps
 * working. The store holds only their hashes; the full keys live in a file beside the store
 * (`<db>-keys.json`, readable by the user alone: mode 0600) so the banner can print them again.
 * They are reused while both still verify against the store; otherwise (no file, a damaged one,
 * a key revoked or unknown to the store) or when asked to rotate, the previous demo keys are
 * revoked and two new ones are issued and saved.
 */
export interface DemoKeys {
  readonly historical: string;
  readonly endOfDay: string;
  /** Where the keys are kept. */
  readonly file: string;
  /** Whether they were reused from an earlier start, or just issued (and why). */
  readonly origin: 'kept' | 'new' | 'rotated' | 'replaced';
}

const DEMO_KEY_PREFIX = 'demo ';
/** Owner read/write only: the file holds whole keys. */
const FILE_MODE = 0o600;

export function demoKeysFile(db: string): string {
  if (storeKind(db) === 'sqlite') return `${sqlitePath(db)}-keys.json`;
  // A PostgreSQL store has no folder of its own: ./data, named after the database (never its password).
  const name = describeLocation(db)
    .replace(/^postgres(ql)?:\/\//i, '')
    .replace(/[^A-Za-z0-9.-]+/g, '_');
  return join('data', `demo-${name}-keys.json`);
}

export async function demoKeys(
  keys: KeyStore,
  options: { readonly db: string; readonly rotate: boolean; readonly now: Date },
): Promise<DemoKeys> {
  const file = demoKeysFile(options.db);
  const existed = existsSync(file);
  const saved = readSaved(file);
  if (!options.rotate && saved !== undefined) {
    const valid =
      (await verifies(keys, saved.historical, 'historical')) &&
      (await verifies(keys, saved.endOfDay, 'end_of_day'));
    if (valid) {
      // Tighten a file whose mode was loosened by hand: it holds whole keys.
      chmodSync(file, FILE_MODE);
      return { ...saved, file, origin: 'kept' };
    }
  }
  for (const key of await keys.listKeys()) {
    if (key.name.startsWith(DEMO_KEY_PREFIX) && key.revokedAt === null)
      await keys.revokeKey(key.id, options.now.toISOString());
  }
  const historical = createApiKey({
    level: 'historical',
    name: `${DEMO_KEY_PREFIX}historical`,
    now: options.now,
  });
  const endOfDay = createApiKey({
    level: 'end_of_day',
    name: `${DEMO_KEY_PREFIX}end_of_day`,
    now: options.now,
  });
  await keys.insertKey(historical.record);
  await keys.insertKey(endOfDay.record);
  const issued = { historical: historical.key, endOfDay: endOfDay.key };
  save(file, issued);
  const origin = options.rotate ? 'rotated' : existed ? 'replaced' : 'new';
  return { ...issued, file, origin };
}

function readSaved(file: string): { historical: string; endOfDay: string } | undefined {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch {
    return undefined;
  }
  try {
    const parsed: unknown = JSON.parse(text);
    if (typeof parsed !== 'object' || parsed === null) return undefined;
    const { historical, end_of_day: endOfDay } = parsed as Record<string, unknown>;
    if (typeof historical !== 'string' || typeof endOfDay !== 'string') return undefined;
    return { historical, endOfDay };
  } catch {
    return undefined;
  }
}

/** The key is a live, non-expiring demo key of the level in this store (its secret matches). */
async function verifies(keys: KeyStore, key: string, level: AccessLevel): Promise<boolean> {
  const parsed = parseApiKey(key);
  if (parsed === undefined) return false;
  const record = await keys.findKey(parsed.id);
  return (
    record !== undefined &&
    record.level === level &&
    record.name.startsWith(DEMO_KEY_PREFIX) &&
    record.revokedAt === null &&
    record.expiresOn === null &&
    secretMatches(parsed.secret, record.secretHash)
  );
}

/** Written whole and then renamed: a crash never leaves half a file, and the mode is set at creation. */
function save(file: string, issued: { historical: string; endOfDay: string }): void {
  mkdirSync(dirname(file), { recursive: true });
  const temporary = `${file}.${process.pid}.tmp`;
  const body = `${JSON.stringify({ historical: issued.historical, end_of_day: issued.endOfDay }, null, 2)}\n`;
  writeFileSync(temporary, body, { mode: FILE_MODE, flag: 'w' });
  chmodSync(temporary, FILE_MODE);
  renameSync(temporary, file);
}
