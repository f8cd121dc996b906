import { type Command, InvalidArgumentError, Option } from 'commander';
import { isValidDate, sydneyClock } from '../domain/dates.js';
import { createApiKey } from '../http/api-keys.js';
import { ACCESS_LEVELS, type AccessLevel } from '../query/context.js';
import type { ApiKeyRecord } from '../store/store.js';
import { CliError, type CliIo, PROCESS_IO, requireStore, storeOption, withStore } from './cli-io.js';

/**
 * `gridquote keys create|list|revoke`. create prints the new key alone on stdout (so
 * `KEY=$(gridquote keys create ...)` works) and everything else on stderr; the key is shown
 * this once and stored only as a hash.
 */
export function registerKeys(program: Command, io: CliIo = PROCESS_IO): Command {
  const keys = program.command('keys').description('manage API keys');

  keys
    .command('create')
    .description('create an API key and print it (once) on stdout')
    .addOption(storeOption('the store: a SQLite file or a postgres:// URL'))
    .addOption(new Option('--level <level>', 'access level').choices(ACCESS_LEVELS).makeOptionMandatory())
    .option(
      '--name <text>',
      `who or what the key is for (up to ${NAME_MAX} printable characters)`,
      parseName,
      '',
    )
    .option('--expires <yyyyMMdd>', 'last valid day (Sydney time); default: never', parseDate)
    .option('--per-second <n>', "requests per second, 0 = unlimited; default: the level's", parseLimit)
    .option('--per-minute <n>', "requests per minute, 0 = unlimited; default: the level's", parseLimit)
    .action(async (flags: CreateFlags) => {
      const db = requireStore('keys create', flags.db);
      const now = io.now();
      if (flags.expires !== undefined && flags.expires < sydneyClock(now).date) {
        throw new CliError(`--expires ${flags.expires} is in the past`);
      }
      const { key, record } = createApiKey({
        level: flags.level,
        name: flags.name,
        perSecond: flags.perSecond,
        perMinute: flags.perMinute,
        now,
        ...(flags.expires === undefined ? {} : { expiresOn: flags.expires }),
      });
      await withStore(io, db, { access: 'write' }, (store) => store.keys.insertKey(record));
      io.stdout.write(`${key}\n`);
      io.stderr.write(`created key ${record.id} (${describe(record)}); it is shown only this once\n`);
    });

  keys
    .command('list')
    .description('list API keys (never their secrets)')
    .addOption(storeOption('the store: a SQLite file or a postgres:// URL'))
    .action(async (flags: { db?: string }) => {
      const db = requireStore('keys list', flags.db);
      const records = await withStore(io, db, { access: 'read' }, (store) => store.keys.listKeys());
      const today = sydneyClock(io.now()).date;
      const lines = [['id', 'level', 'status', 'expires', 'per-second', 'per-minute', 'created', 'name']];
      for (const record of records) {
        lines.push([
          record.id,
          record.level,
          status(record, today),
          record.expiresOn ?? '-',
          limitText(record.perSecond),
          limitText(record.perMinute),
          record.createdAt,
          // A name stored otherwise (an older version, SQL) must not forge a line or drive the terminal.
          record.name.replace(
            UNPRINTABLE,
            (character) => `\\u${character.codePointAt(0)?.toString(16).padStart(4, '0')}`,
          ),
        ]);
      }
      io.stdout.write(lines.map((line) => `${line.join('\t')}\n`).join(''));
    });

  keys
    .command('revoke')
    .description('revoke an API key by its id (the 12 hex digits after gq_)')
    .addOption(storeOption('the store: a SQLite file or a postgres:// URL'))
    .argument('<id>', 'key id')
    .action(async (id: string, flags: { db?: string }) => {
      const db = requireStore('keys revoke', flags.db);
      const found = await withStore(io, db, { access: 'write' }, (store) =>
        store.keys.revokeKey(id, io.now().toISOString()),
      );
      if (!found) throw new CliError(`no key with id ${id}`);
      io.stderr.write(`revoked key ${id}\n`);
    });

  return keys;
}

interface CreateFlags {
  readonly db?: string;
  readonly level: AccessLevel;
  readonly name: string;
  readonly expires?: string;
  readonly perSecond?: number;
  readonly perMinute?: number;
}

function parseDate(text: string): string {
  if (!isValidDate(text)) throw new InvalidArgumentError('expected a date yyyyMMdd');
  return text;
}

const NAME_MAX = 100;
/** Control and format characters (tabs, line breaks, escape sequences, bidirectional overrides). */
const UNPRINTABLE = /[\p{Cc}\p{Cf}\u2028\u2029]/gu;

/** A key's name is shown in `keys list` and log lines: printable, and bounded. */
function parseName(text: string): string {
  if ([...text].length > NAME_MAX) throw new InvalidArgumentError(`expected at most ${NAME_MAX} characters`);
  if (new RegExp(UNPRINTABLE.source, 'u').test(text)) {
    throw new InvalidArgumentError(
      'expected printable characters only (no tab, line break or control character)',
    );
  }
  return text;
}

function parseLimit(text: string): number {
  const value = Number(text);
  if (!/^[0-9]+$/.test(text) || !Number.isSafeInteger(value)) {
    throw new InvalidArgumentError('expected a whole number of requests (0 = unlimited)');
  }
  return value;
}

/** null: the access level's default applies (it may change); 0: no limit. */
function limitText(limit: number | null): string {
  if (limit === null) return 'default';
  return limit === 0 ? 'unlimited' : String(limit);
}

function status(record: ApiKeyRecord, today: string): string {
  if (record.revokedAt !== null) return 'revoked';
  if (record.expiresOn !== null && record.expiresOn < today) return 'expired';
  return 'active';
}

function describe(record: ApiKeyRecord): string {
  const parts: string[] = [record.level];
  if (record.name !== '') parts.push(`name ${JSON.stringify(record.name)}`);
  parts.push(record.expiresOn === null ? 'no expiry' : `valid through ${record.expiresOn}`);
  if (record.perSecond !== null) parts.push(`${limitText(record.perSecond)} per second`);
  if (record.perMinute !== null) parts.push(`${limitText(record.perMinute)} per minute`);
  return parts.join(', ');
}
