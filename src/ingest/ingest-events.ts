import type { FeedEvent } from '../feed/events.js';
import { validateFeedEvent } from '../feed/validate.js';
import { EventConflictError } from '../store/event-conflict-error.js';
import type { AppendResult, MarketWriter, ValidatedEvent } from '../store/store.js';
import { IngestError, type LineError, MAX_REPORTED_ERRORS } from './ingest-error.js';
import { toValidatedEvent } from './to-validated-event.js';

/**
 * Events validated before they are appended, in one append when there are no more than this;
 * a longer list (a simulated day) is appended in parts of this size within one write batch, as
 * they are validated: a store on a server (PostgreSQL) loads a part while the next one is
 * validated, and a part is short-lived enough not to outlast young-generation collections.
 */
const APPEND_CHUNK = 2048;

/**
 * Ingests events produced in process (the simulator, the live demo) as one batch in one
 * transaction, through the same validation as a file: all of them are stored, or none and an
 * IngestError names the refused events by position ("event 3: ...").
 */
export async function ingestEvents(
  writer: MarketWriter,
  events: readonly FeedEvent[],
): Promise<AppendResult> {
  return appendValidating(writer, events, validateFirstPart(events));
}

/**
 * Ingests days in order, one transaction each, as ingestEvents does day after day, but the next
 * day is made (the iterable: the simulator, for seed) and its first part validated while the
 * store commits the day before: a store on a server spends that time on the day's last rows and
 * its commit, and the process would otherwise wait for it. A day is begun only once the one
 * before has committed; at the first failure nothing after it is stored (a refused day also
 * waits for the commit of the day before, which stands). `onDay` hears of each committed day.
 */
export async function ingestDays(
  writer: MarketWriter,
  days: Iterable<readonly FeedEvent[]>,
  onDay: (result: AppendResult, index: number) => void = () => {},
): Promise<void> {
  let committing: Promise<AppendResult> | undefined;
  let index = 0;
  const committed = async () => {
    const pending = committing;
    committing = undefined;
    if (pending !== undefined) onDay(await pending, index++);
  };
  try {
    for (const events of days) {
      const first = validateFirstPart(events);
      await committed();
      committing = appendValidating(writer, events, first);
    }
  } finally {
    // The last day; or, after a failure, the day before it: it commits first, and should it fail
    // instead, its failure is the one passed on.
    await committed();
  }
}

function validateFirstPart(events: readonly FeedEvent[]): ValidatedEvent[] {
  return validateEvents(events, 0, Math.min(events.length, APPEND_CHUNK));
}

/** Appends the events, `first` being their first part already validated, validating the rest as it goes. */
async function appendValidating(
  writer: MarketWriter,
  events: readonly FeedEvent[],
  first: ValidatedEvent[],
): Promise<AppendResult> {
  if (events.length <= APPEND_CHUNK) {
    try {
      return await writer.append(first);
    } catch (error) {
      throw refusal(error, 0);
    }
  }
  const batch = await writer.begin();
  try {
    for (let start = 0; start < events.length; start += APPEND_CHUNK) {
      const validated =
        start === 0 ? first : validateEvents(events, start, Math.min(events.length, start + APPEND_CHUNK));
      try {
        await batch.append(validated);
      } catch (error) {
        throw refusal(error, start);
      }
    }
    return await batch.commit();
  } catch (error) {
    await batch.rollback();
    throw error;
  }
}

/**
 * The events from `start` to `end` in store terms. At the first invalid one every event from
 * there to the end of the list is validated too, and an IngestError names up to
 * MAX_REPORTED_ERRORS of them by position ("event 3: ...").
 */
export function validateEvents(
  events: readonly FeedEvent[],
  start = 0,
  end = events.length,
): ValidatedEvent[] {
  const validated: ValidatedEvent[] = [];
  for (let index = start; index < end; index += 1) {
    const result = validateFeedEvent(events[index]);
    if (!result.ok) refuseFrom(events, index, result.reason);
    validated.push(toValidatedEvent(result.event, result.contract));
  }
  return validated;
}

function refuseFrom(events: readonly FeedEvent[], first: number, reason: string): never {
  const errors: LineError[] = [{ line: first + 1, reason }];
  let truncated = false;
  for (let index = first + 1; index < events.length; index += 1) {
    const result = validateFeedEvent(events[index]);
    if (result.ok) continue;
    if (errors.length === MAX_REPORTED_ERRORS) {
      truncated = true;
      break;
    }
    errors.push({ line: index + 1, reason: result.reason });
  }
  throw new IngestError(errors, 'event', truncated);
}

/** A conflicting event named by its position in the whole list (`offset`: its part's start). */
function refusal(error: unknown, offset: number): unknown {
  if (error instanceof EventConflictError) {
    return new IngestError([{ line: offset + error.index + 1, reason: error.message }], 'event');
  }
  return error;
}
