/** One refused input line (or event) with its 1-based position. */
export interface LineError {
  readonly line: number;
  readonly reason: string;
}

/** Errors listed per refused batch: enough to fix a file in one pass, short enough to read. */
export const MAX_REPORTED_ERRORS = 20;

/**
 * A refused batch: nothing of it was stored. The message is one line naming every reported
 * error ("line 12: unknown contract code XXH2026"), which is what the CLI prints.
 */
export class IngestError extends Error {
  readonly errors: readonly LineError[];

  constructor(
    errors: readonly LineError[],
    label: 'line' | 'event' = 'line',
    truncated = false,
    /** The store's refusal behind it, when there is one (an EventConflictError). */
    cause?: Error,
  ) {
    super(describeErrors(errors, label, truncated), cause === undefined ? undefined : { cause });
    this.name = 'IngestError';
    this.errors = errors;
  }
}

function describeErrors(errors: readonly LineError[], label: string, truncated: boolean): string {
  const listed = errors.map((error) => `${label} ${error.line}: ${error.reason}`).join('; ');
  if (errors.length <= 1 && !truncated) return listed;
  const count = truncated ? `${errors.length} or more` : String(errors.length);
  return `${count} invalid ${label}s, nothing stored: ${listed}${truncated ? '; stopped reading there' : ''}`;
}
