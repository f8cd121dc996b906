import type { FeedEvent } from '../feed/events.js';
import { validateFeedEvent } from '../feed/validate.js';
import { EventConflictError } from '../store/event-conflict-error.js';
import type { AppendResult, MarketWriter, ValidatedEvent } from '../store/store.js';
import { IngestError, type LineError, MAX_REPORTED_ERRORS } from './ingest-error.js';
import { toValidatedEvent } from './to-validated-event.js';

/**
 * Ingests events produced in process (the simulator, the live demo) as one batch in one
 * transaction, through the same validation as a file: all of them are stored, or none and an
 * IngestError names the refused events by position ("event 3: ...").
 */
export async function ingestEvents(
  writer: MarketWriter,
  events: readonly FeedEvent[],
): Promise<AppendResult> {
  const errors: LineError[] = [];
  const validated: ValidatedEvent[] = [];
  let truncated = false;
  for (let index = 0; index < events.length; index += 1) {
    const result = validateFeedEvent(events[index]);
    if (!result.ok) {
      if (errors.length === MAX_REPORTED_ERRORS) {
        truncated = true;
        break;
      }
      errors.push({ line: index + 1, reason: result.reason });
    } else if (errors.length === 0) {
      validated.push(toValidatedEvent(result.event, result.contract));
    }
  }
  if (errors.length > 0) throw new IngestError(errors, 'event', truncated);
  try {
    return await writer.append(validated);
  } catch (error) {
    if (error instanceof EventConflictError) {
      throw new IngestError([{ line: error.index + 1, reason: error.message }], 'event');
    }
    throw error;
  }
}
