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
 * store commits the day before: once that day's last rows and its COMMIT are sent, a store on a
 * server spends a while on them, and the process would otherwise wait for it. A day is begun
 * only once the one before has committed; at the first failure nothing after it is stored (a
 * refused day is found while the day before commits, which stands, and is reported after it).
 * `onDay` hears of each committed day.
 */
export async function ingestDays(
  writer: MarketWriter,
  days: Iterable<readonly FeedEvent[]>,
  onDay: (result: AppendResult, index: number) => void = () => {},
): Promise<void> {
  const iterator = days[Symbol.iterator]();
  let next = prepareDay(iterator);
  for (let index = 0; next !== undefined; index += 1) {
    const day = next;
    next = undefined;
    if ('error' in day) throw day.error;
    const result = await appendValidating(writer, day.events, day.first, () => {
      next = prepareDay(iterator);
    });
    onDay(result, index);
  }
}

type PreparedDay =
  | { readonly events: readonly FeedEvent[]; readonly first: ValidatedEvent[] }
  | { readonly error: unknown };

/**
 * The iterable's next day and its first part validated, now; undefined after the last day. A
 * day refused by validation (or an iterable that fails) comes back as its error, thrown when the
 * day is taken, not while the day before commits.
 */
function prepareDay(iterator: Iterator<readonly FeedEvent[]>): PreparedDay | undefined {
  try {
    const step = iterator.next();
    if (step.done === true) return undefined;
    return { events: step.value, first: validateFirstPart(step.value) };
  } catch (error) {
    return { error };
  }
}

function validateFirstPart(events: readonly FeedEvent[]): ValidatedEvent[] {
  return validateEvents(events, 0, Math.min(events.length, APPEND_CHUNK));
}

/**
 * Appends the events, `first` being their first part already validated, validating the rest as
 * it goes. `whileCommitting` runs once everything is sent and the commit is under way.
 */
async function appendValidating(
  writer: MarketWriter,
  events: readonly FeedEvent[],
  first: ValidatedEvent[],
  whileCommitting?: () => void,
): Promise<AppendResult> {
  if (events.length <= APPEND_CHUNK) {
    try {
      return await meanwhile(writer.append(first), whileCommitting);
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
    return await meanwhile(batch.commit(), whileCommitting);
  } catch (error) {
    await batch.rollback();
    throw error;
  }
}

/**
 * `work`'s result, with `task` run while it is under way: after a turn of the event loop, so
 * that the store has sent what it queued in this one (a commit's last rows, its COMMIT) first.
 */
async function meanwhile<T>(work: Promise<T>, task: (() => void) | undefined): Promise<T> {
  if (task !== undefined) {
    // a failure is awaited below, not left unhandled during the turn
    work.catch(() => undefined);
    await new Promise((resolve) => setImmediate(resolve));
    task();
  }
  return work;
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
    return new IngestError(
      [{ line: offset + error.index + 1, reason: error.message }],
      'event',
      false,
      error,
    );
  }
  return error;
}
