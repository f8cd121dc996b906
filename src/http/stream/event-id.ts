import { isValidDate } from '../../domain/dates.js';

/**
 * An event's id in the stream: its trading date and its sequence in that day's feed,
 * `yyyyMMdd-nnnnnn` (at least six digits), e.g. `20261124-001234`. Ids of one day sort as text
 * in stream order; the same event always has the same id, in every process and after a restart.
 */
export interface StreamPosition {
  readonly date: string;
  readonly seq: number;
}

const ID = /^(\d{8})-(\d{1,15})$/;

export function formatEventId(position: StreamPosition): string {
  return `${position.date}-${String(position.seq).padStart(6, '0')}`;
}

/**
 * The position an id names, or undefined when it is not an id this server writes: only the
 * exact form `formatEventId` gives is accepted (`20261124-1` or `20261124-0001234` are not), so
 * one event has one id and a client's mangled id is refused rather than guessed at.
 */
export function parseEventId(text: string): StreamPosition | undefined {
  const trimmed = text.trim();
  const match = ID.exec(trimmed);
  if (!match) return undefined;
  const date = match[1] ?? '';
  const seq = Number(match[2]);
  if (!isValidDate(date) || !Number.isSafeInteger(seq) || seq < 1) return undefined;
  const position = { date, seq };
  return formatEventId(position) === trimmed ? position : undefined;
}

/** Stream order: by date, then by seq. */
export function comparePositions(a: StreamPosition, b: StreamPosition): number {
  if (a.date !== b.date) return a.date < b.date ? -1 : 1;
  return a.seq - b.seq;
}
