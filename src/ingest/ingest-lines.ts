import { parseFeedLine } from '../feed/ndjson.js';
import { EventConflictError } from '../store/event-conflict-error.js';
import type { AppendResult, MarketWriter, ValidatedEvent } from '../store/store.js';
import { IngestError, type LineError, MAX_REPORTED_ERRORS } from './ingest-error.js';
import { UnreadableLineError } from './read-lines.js';
import { toValidatedEvent } from './to-validated-event.js';

/** A blank line, by JSON's whitespace: a line of other spaces (U+00A0, a stray BOM) is not one, and is refused. */
const BLANK = /^[ \t]*$/;

export interface IngestLinesOptions {
  /** Events per append inside the one transaction; bounds memory, not atomicity. */
  readonly chunkSize?: number;
  /** Called now and then with the number of lines read so far. */
  readonly onProgress?: (lines: number) => void;
}

/**
 * Small appends keep the pending events short-lived: held until their append, a large chunk
 * outlives several young-generation collections and is copied and promoted, which costs more
 * than the appends (the writer sums the views across a batch's appends, so their number does
 * not multiply the upserts).
 */
const DEFAULT_CHUNK = 2048;

/**
 * Ingests NDJSON lines (a file, stdin) as ONE batch in one transaction: every line is stored
 * or none. Lines are validated and appended chunk by chunk as they stream in; at the first
 * invalid line, or the first event that contradicts a stored one, appending stops, reading
 * continues only to report up to MAX_REPORTED_ERRORS errors, and the transaction is rolled back,
 * leaving earlier data intact. Blank lines are
 * skipped; line numbers count every line from 1.
 */
export async function ingestLines(
  writer: MarketWriter,
  groups: AsyncIterable<readonly string[]>,
  options: IngestLinesOptions = {},
): Promise<AppendResult> {
  const chunkSize = options.chunkSize ?? DEFAULT_CHUNK;
  const batch = await writer.begin();
  const errors: LineError[] = [];
  let truncated = false;
  let lineNumber = 0;
  let pending: ValidatedEvent[] = [];
  let pendingLines: number[] = [];

  /** The store's refusal of an event, once one was met: nothing more is appended. */
  let conflict: EventConflictError | undefined;

  const flush = async () => {
    try {
      await batch.append(pending);
    } catch (error) {
      if (!(error instanceof EventConflictError)) throw error;
      conflict = error;
      // The event it meets may be one of this feed's, stored by an earlier line of the same transaction.
      const reason = `conflicts with event ${error.date}/${error.seq}, stored or on an earlier line of this feed`;
      errors.push({ line: pendingLines[error.index] ?? 0, reason });
    }
    pending = [];
    pendingLines = [];
  };

  const read = async () => {
    for await (const group of groups) {
      for (const text of group) {
        lineNumber += 1;
        if (BLANK.test(text)) continue;
        const parsed = parseLine(text, lineNumber);
        if (!parsed.ok) {
          if (errors.length === MAX_REPORTED_ERRORS) {
            truncated = true;
            return;
          }
          errors.push({ line: parsed.line, reason: parsed.reason });
          continue;
        }
        if (errors.length > 0) continue; // only validating from here on
        pending.push(parsed.event);
        pendingLines.push(lineNumber);
        if (pending.length >= chunkSize) await flush();
      }
      options.onProgress?.(lineNumber);
    }
  };

  try {
    try {
      await read();
    } catch (error) {
      // the reader refuses an over-long line, or one not UTF-8: report it with what was found before it
      if (!(error instanceof UnreadableLineError)) throw error;
      errors.push({ line: error.line, reason: error.message });
    }
    if (errors.length === 0) await flush();
    if (errors.length > 0) throw new IngestError(errors, 'line', truncated, conflict);
    return await batch.commit();
  } catch (error) {
    await batch.rollback();
    throw error;
  }
}

export type ParsedLine =
  | { readonly ok: true; readonly event: ValidatedEvent }
  | { readonly ok: false; readonly line: number; readonly reason: string };

/**
 * One line to a store event, or its refusal. Whatever goes wrong with a line is refused with
 * its number: validation bounds every amount (domain/limits.ts), so an error thrown here is a
 * fault of ours, but the operator still learns which line met it.
 */
export function parseLine(text: string, lineNumber: number): ParsedLine {
  try {
    const parsed = parseFeedLine(text, lineNumber);
    if (!parsed.ok) return parsed;
    return { ok: true, event: toValidatedEvent(parsed.event, parsed.contract) };
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    return { ok: false, line: lineNumber, reason: `could not be read: ${reason}` };
  }
}
