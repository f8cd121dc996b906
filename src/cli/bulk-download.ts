import { mkdir, readdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { type GridquoteClient, GridquoteError, type OperationName, type Operations } from '@gridquote/client';
import { tradingDaysBetween } from '../domain/calendar.js';
import { CliError } from './cli-io.js';
import { DownloadIndex } from './download-index.js';

/** Parameters from the command line are not typed: the server checks them (a 400 stops the run). */
type Params = Operations[OperationName]['params'];

/** One `gridquote get` run: which operation, with which parameters, over which days, into where. */
export interface BulkRequest {
  readonly operation: OperationName;
  /** NAME=VALUE pairs in the order given; the day parameters are added per day. */
  readonly params: readonly (readonly [string, string])[];
  readonly from: string;
  readonly to: string;
  readonly dir: string;
  readonly format: 'csv' | 'json';
  readonly signal?: AbortSignal;
}

/** What happened to one trading day. */
export type DayOutcome = 'downloaded' | 'unchanged' | 'no-data';

export interface DayReport {
  readonly day: string;
  readonly file: string;
  readonly outcome: DayOutcome;
  readonly bytes: number;
}

export interface BulkSummary {
  readonly days: number;
  readonly counts: Readonly<Record<DayOutcome, number>>;
  readonly bytes: number;
}

/** How each operation is asked about one day; the ones without a day parameter cannot be fetched by day. */
function dayParams(operation: OperationName, params: Readonly<Record<string, string>>, day: string) {
  switch (operation) {
    case 'ticker':
    case 'epi':
    case 'npi':
    case 'tradelog':
    case 'data':
      return { ...params, date: day };
    case 'datamine':
      return params.type === 'au-oi' ? { ...params, date: day } : { ...params, from: day, to: day };
    case 'messages':
    case 'trades':
    case 'intraday':
      throw new CliError(`${operation} answers only the current day; get fetches operations with a date`);
    default: {
      const unknown: never = operation;
      throw new CliError(`unknown operation ${String(unknown)}`);
    }
  }
}

/** Parameters `get` sets itself for each day. */
export function dayParameterNames(operation: OperationName): readonly string[] {
  return operation === 'datamine' ? ['date', 'from', 'to'] : ['date'];
}

/** `tradelog-au_electricity-20250102.csv`: the operation, the values sent, the day. */
export function fileName(request: Pick<BulkRequest, 'operation' | 'params' | 'format'>, day: string): string {
  const values = request.params.map(([, value]) => value.replace(/[^A-Za-z0-9_.-]/g, '_'));
  return `${[request.operation, ...values, day].join('-')}.${request.format}`;
}

/**
 * Downloads one file per trading day of the range that has data, in day order, through the API
 * client (which paces itself by the key's RateLimit headers and retries 429/503 after
 * Retry-After). A day answered 404 has no data and is counted, not written. A file completed by an
 * earlier run and still intact is revalidated with its ETag (a 304 leaves it as it is); the rest
 * are fetched and written atomically. A refusal (bad parameters, bad key) stops
 * the run at its first day, with the server's words.
 */
export async function downloadDays(
  client: GridquoteClient,
  request: BulkRequest,
  report: (day: DayReport, done: number, total: number) => void,
): Promise<BulkSummary> {
  const days = tradingDaysBetween(request.from, request.to);
  await mkdir(request.dir, { recursive: true });
  await removePartials(request.dir);
  const index = await DownloadIndex.load(request.dir);
  const counts: Record<DayOutcome, number> = { downloaded: 0, unchanged: 0, 'no-data': 0 };
  let bytes = 0;
  for (const [i, day] of days.entries()) {
    const done = await downloadDay(client, request, index, day);
    counts[done.outcome]++;
    if (done.outcome === 'downloaded') bytes += done.bytes;
    report(done, i + 1, days.length);
  }
  return { days: days.length, counts, bytes };
}

/** One day: a 404 is no data; a 304 leaves the file as it is; a 200 replaces it. */
async function downloadDay(
  client: GridquoteClient,
  request: BulkRequest,
  index: DownloadIndex,
  day: string,
): Promise<DayReport> {
  const file = fileName(request, day);
  const known = await index.intact(file);
  const answer = await client
    .request(
      request.operation,
      dayParams(request.operation, Object.fromEntries(request.params), day) as Params,
      {
        format: request.format,
        ...(known ? { ifNoneMatch: known.etag } : {}),
        ...(request.signal ? { signal: request.signal } : {}),
      },
    )
    .catch((error: unknown) => {
      if (error instanceof GridquoteError && error.status === 404 && error.code === 'no-data')
        return undefined;
      throw refusal(error);
    });
  if (answer === undefined) return { day, file, outcome: 'no-data', bytes: 0 };
  const ignored = answer.headers.get('ignored-parameters') ?? '';
  if (ignored.split(/,\s*/).some((name) => dayParameterNames(request.operation).includes(name))) {
    throw new CliError(
      `the server ignored ${ignored} for this key (end_of_day access answers only the latest day); bulk history needs a historical key`,
    );
  }
  if (answer.status === 304) return { day, file, outcome: 'unchanged', bytes: known?.bytes ?? 0 };
  const body = Buffer.from(answer.body, 'utf8');
  await index.store(file, body, answer.etag);
  return { day, file, outcome: 'downloaded', bytes: body.length };
}

function refusal(error: unknown): unknown {
  if (!(error instanceof GridquoteError)) {
    // fetch reports an unreachable server as "fetch failed" with the reason in `cause`.
    const cause = error instanceof Error && error.cause instanceof Error ? error.cause.message : undefined;
    const why = cause ?? (error instanceof Error ? error.message : String(error));
    return new CliError(`the API did not answer (${why}); run the same command again to resume`);
  }
  const why = error.problem?.errors?.map((problem) => `${problem.parameter}: ${problem.message}`).join('; ');
  return new CliError(
    `the server refused (${error.status}): ${why || error.problem?.detail || error.message}`,
  );
}

/** Temp files of an interrupted run (download-index.ts writes `<file>.<pid>.partial`). */
async function removePartials(dir: string): Promise<void> {
  for (const name of await readdir(dir)) {
    if (/\.\d+\.partial$/.test(name)) await rm(join(dir, name), { force: true });
  }
}
