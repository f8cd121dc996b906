import { GridquoteClient, OPERATIONS, type OperationName } from '@gridquote/client';
import { type Command, Option } from 'commander';
import { CLIENT_SETTINGS, loadClientSettings } from '../config.js';
import { isValidDate } from '../domain/dates.js';
import {
  type BulkRequest,
  type BulkSummary,
  type DayReport,
  dayParameterNames,
  downloadDays,
} from './bulk-download.js';
import { CliError, type CliIo, PROCESS_IO } from './cli-io.js';

export interface GetDependencies {
  /** The environment for GRIDQUOTE_URL / GRIDQUOTE_KEY (config.ts reads process.env when omitted). */
  readonly env?: Readonly<Record<string, string | undefined>>;
  readonly fetch?: typeof fetch;
  readonly signal?: AbortSignal;
}

interface GetFlags {
  readonly from: string;
  readonly to: string;
  readonly out: string;
  readonly format: 'csv' | 'json';
  readonly base?: string;
  readonly key?: string;
}

/**
 * `gridquote get OPERATION [NAME=VALUE ...] --from --to --out`: bulk history through the public
 * API, one file per trading day (bulk-download.ts). Progress goes to stderr (a bar on a terminal,
 * a line per day otherwise), the summary to stdout. The key is never printed.
 */
export function registerGet(program: Command, io: CliIo = PROCESS_IO, deps: GetDependencies = {}): Command {
  return program
    .command('get')
    .description('download one file per trading day of an operation through the API (resumable)')
    .argument('<operation>', `one of ${dated().join(', ')}`)
    .argument('[params...]', 'NAME=VALUE query parameters, e.g. market=au_electricity')
    .requiredOption('--from <yyyyMMdd>', 'first day')
    .requiredOption('--to <yyyyMMdd>', 'last day')
    .requiredOption('--out <dir>', 'directory for the files (created if missing)')
    .addOption(new Option('--format <format>', 'file format').choices(['csv', 'json']).default('json'))
    .option('--base <url>', `the API, e.g. http://127.0.0.1:8080 (default: $${CLIENT_SETTINGS.url.env})`)
    .option(
      '--key <key>',
      `API key (default: $${CLIENT_SETTINGS.key.env}; prefer it: flags show in process listings)`,
    )
    .action(async (operation: string, pairs: string[], flags: GetFlags) => {
      const request = bulkRequest(operation, pairs, flags, deps.signal);
      const settings = loadClientSettings({ base: flags.base, key: flags.key }, deps.env);
      if (settings.url === undefined) {
        throw new CliError(`get needs the API: pass --base URL or set ${CLIENT_SETTINGS.url.env}`);
      }
      if (settings.key === undefined) {
        throw new CliError(`get needs an API key: set ${CLIENT_SETTINGS.key.env} or pass --key`);
      }
      if (!/^https?:\/\/[^/]/.test(settings.url)) {
        throw new CliError(`--base must be an http(s) URL, got ${JSON.stringify(settings.url)}`);
      }
      const display = createDisplay(io.stderr);
      const client = new GridquoteClient({
        baseUrl: settings.url,
        key: settings.key,
        retries: 5,
        maxRetryDelayMs: 120_000,
        ...(deps.fetch ? { fetch: deps.fetch } : {}),
        onRetry: (info) =>
          display.note(`${info.status} from the server: retrying in ${seconds(info.delayMs)}`),
        onPause: (delayMs) => display.note(`rate limit reached: waiting ${seconds(delayMs)}`),
      });
      const started = Date.now();
      let summary: BulkSummary;
      try {
        summary = await downloadDays(client, request, (day, done, total) => display.day(day, done, total));
      } finally {
        display.done();
      }
      io.stdout.write(`${summaryLine(request, summary, Date.now() - started)}\n`);
    });
}

/** Operations that take a day (the others answer only the current day). */
function dated(): OperationName[] {
  return (Object.keys(OPERATIONS) as OperationName[]).filter((name) =>
    (OPERATIONS[name].parameters as readonly string[]).includes('date'),
  );
}

/**
 * Parameters an operation takes that the API ignores once `date` is given (it says so in
 * Ignored-Parameters): the ticker of a day is the whole day, whatever time window is asked.
 */
const IGNORED_WITH_A_DAY: Partial<Record<OperationName, readonly string[]>> = { ticker: ['from', 'to'] };

function bulkRequest(
  operation: string,
  pairs: readonly string[],
  flags: GetFlags,
  signal?: AbortSignal,
): BulkRequest {
  if (!(dated() as string[]).includes(operation)) {
    throw new CliError(
      `unknown operation ${JSON.stringify(operation)} for get; one of ${dated().join(', ')}`,
    );
  }
  const name = operation as OperationName;
  const accepted = OPERATIONS[name].parameters as readonly string[];
  const reserved = [...dayParameterNames(name), 'format'];
  const ignoredWithADay = IGNORED_WITH_A_DAY[name] ?? [];
  const given = new Set<string>();
  const params = pairs.map((pair): [string, string] => {
    const at = pair.indexOf('=');
    if (at <= 0) throw new CliError(`expected NAME=VALUE, got ${JSON.stringify(pair)}`);
    const key = pair.slice(0, at);
    // The API refuses a repeated parameter; the files would be named after values not sent.
    if (given.has(key)) throw new CliError(`${key} is given twice; give it once`);
    given.add(key);
    if (reserved.includes(key)) {
      throw new CliError(
        `${key} is set by get for each day (use --from/--to${key === 'format' ? ', --format' : ''})`,
      );
    }
    if (ignoredWithADay.includes(key)) {
      throw new CliError(
        `${operation} of a day answers the whole day: the API ignores ${key} with a date (filter the files instead)`,
      );
    }
    if (!accepted.includes(key)) {
      throw new CliError(
        `${operation} has no parameter ${key}; it takes ${accepted.filter((p) => !reserved.includes(p) && !ignoredWithADay.includes(p)).join(', ')}`,
      );
    }
    return [key, pair.slice(at + 1)];
  });
  for (const [flag, value] of [
    ['--from', flags.from],
    ['--to', flags.to],
  ] as const) {
    if (!isValidDate(value))
      throw new CliError(`${flag} must be a date yyyyMMdd, got ${JSON.stringify(value)}`);
  }
  if (flags.from > flags.to) throw new CliError(`--from ${flags.from} is after --to ${flags.to}`);
  return {
    operation: name,
    params,
    from: flags.from,
    to: flags.to,
    dir: flags.out,
    format: flags.format,
    ...(signal ? { signal } : {}),
  };
}

function seconds(ms: number): string {
  return `${Math.ceil(ms / 1000)} s`;
}

const OUTCOME_WORDS: Readonly<Record<DayReport['outcome'], string>> = {
  downloaded: 'downloaded',
  unchanged: 'unchanged (304)',
  'no-data': 'no data (404), skipped',
};

function summaryLine(request: BulkRequest, summary: BulkSummary, ms: number): string {
  const { counts } = summary;
  return (
    `${summary.days} trading days ${request.from}..${request.to} into ${request.dir}: ` +
    `${counts.downloaded} downloaded (${summary.bytes} bytes), ${counts.unchanged} unchanged (304), ` +
    `${counts['no-data']} without data (404) in ${(ms / 1000).toFixed(1)} s`
  );
}

interface Display {
  day(report: DayReport, done: number, total: number): void;
  note(text: string): void;
  done(): void;
}

const BAR_WIDTH = 24;

/** A redrawn bar on a terminal; one plain line per day and per wait when stderr is a pipe or a log. */
function createDisplay(stderr: CliIo['stderr']): Display {
  if (!stderr.isTTY) {
    return {
      day: (report, done, total) =>
        stderr.write(
          `${done}/${total} ${report.day} ${OUTCOME_WORDS[report.outcome]}${report.outcome === 'no-data' ? '' : ` ${report.file}`}\n`,
        ),
      note: (text) => stderr.write(`${text}\n`),
      done() {},
    };
  }
  let bar = '';
  const draw = (text: string) => stderr.write(`\r${text}\u001b[K`);
  return {
    day(report, done, total) {
      const filled = Math.round((done / total) * BAR_WIDTH);
      bar = `[${'#'.repeat(filled)}${'-'.repeat(BAR_WIDTH - filled)}] ${done}/${total} ${report.day} ${OUTCOME_WORDS[report.outcome]}`;
      draw(bar);
    },
    note: (text) => draw(bar === '' ? text : `${bar} · ${text}`),
    done: () => draw(''),
  };
}
