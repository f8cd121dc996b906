import { type JetStreamClient, jetstream, jetstreamManager } from '@nats-io/jetstream';
import type { Contract } from '../../domain/contract.js';
import { isMarketCode, type MarketCode } from '../../domain/markets.js';
import type { FeedEvent } from '../events.js';
import { formatFeedEvent } from '../ndjson.js';
import { ensureFeedStream, messageIdOf, type StreamRetention, subjectOf } from './feed-stream.js';
import { connectNats } from './nats-connection.js';

/** A validated feed event (feed/validate.ts): canonical, with its parsed contract when it has one. */
export interface PublishableEvent {
  readonly event: FeedEvent;
  readonly contract?: Contract;
}

export interface PublishFeedOptions {
  readonly url: string;
  readonly stream: string;
  /** Retention of the stream if this creates it. */
  readonly retention?: StreamRetention;
  /** Publishes awaiting their ack at most; bounds memory and what a crash leaves unconfirmed. */
  readonly maxInFlight?: number;
  /** One line per notable thing: the stream created, a failed publish being retried. */
  readonly log?: (line: string) => void;
  /** Called after each acked event with the running count. */
  readonly onPublished?: (count: number) => void;
  readonly signal?: AbortSignal;
}

export interface PublishResult {
  /** Events the stream stored. */
  readonly published: number;
  /** Events the stream had already (same message id within its duplicate window). */
  readonly duplicates: number;
}

const DEFAULT_MAX_IN_FLIGHT = 256;
const RETRY_MS = 500;

/**
 * Publishes events to the feed's stream, each as its canonical NDJSON line (feed/ndjson.ts)
 * with the message id `<date>-<seq>`, and returns once every one is acked by JetStream. A
 * publish that fails (timeout, server restarting) is retried with the same id until acked,
 * so none is lost and none is doubled; retries may reorder events in the stream, which the
 * store does not mind (views are keyed by seq, not arrival).
 */
export async function publishFeed(
  options: PublishFeedOptions,
  events: AsyncIterable<PublishableEvent> | Iterable<PublishableEvent>,
): Promise<PublishResult> {
  const nc = await connectNats(options.url, 'gridquote feed publish', options.log);
  try {
    const jsm = await jetstreamManager(nc);
    const created = await ensureFeedStream(jsm, options.stream, options.retention);
    if (created === 'created')
      options.log?.(`created stream ${options.stream} (subjects ${options.stream}.>)`);
    return await publishAll(jetstream(nc), options, events);
  } finally {
    await nc.drain().catch(() => undefined);
  }
}

async function publishAll(
  js: JetStreamClient,
  options: PublishFeedOptions,
  events: AsyncIterable<PublishableEvent> | Iterable<PublishableEvent>,
): Promise<PublishResult> {
  const maxInFlight = options.maxInFlight ?? DEFAULT_MAX_IN_FLIGHT;
  const inFlight = new Set<Promise<void>>();
  let published = 0;
  let duplicates = 0;
  let failure: unknown;
  // Publishes failed and not yet acked: an outage is logged when the first fails and when the
  // last is acked, not once per publish that was in flight.
  let retrying = 0;
  let retried = 0;

  const publishOne = async (item: PublishableEvent): Promise<void> => {
    const { event } = item;
    const subject = subjectOf(options.stream, event, marketOf(item));
    const payload = formatFeedEvent(event);
    const msgID = messageIdOf(event);
    for (let attempt = 1; ; attempt += 1) {
      try {
        const ack = await js.publish(subject, payload, { msgID });
        if (attempt > 1) {
          retrying -= 1;
          if (retrying === 0) options.log?.(`every failed publish acknowledged (${retried} retried)`);
        }
        if (ack.duplicate) duplicates += 1;
        else published += 1;
        options.onPublished?.(published + duplicates);
        return;
      } catch (error) {
        if (options.signal?.aborted) throw error;
        if (attempt === 1) {
          if (retrying === 0) {
            retried = 0;
            options.log?.(
              `publish of ${msgID} failed (${describe(error)}); retrying it and any other failing publish with the same id`,
            );
          }
          retrying += 1;
          retried += 1;
        }
        await new Promise((resolve) => setTimeout(resolve, RETRY_MS));
      }
    }
  };

  try {
    for await (const item of events) {
      if (failure !== undefined || options.signal?.aborted) break;
      const task: Promise<void> = publishOne(item).then(
        () => {
          inFlight.delete(task);
        },
        (error: unknown) => {
          inFlight.delete(task);
          failure ??= error;
        },
      );
      inFlight.add(task);
      if (inFlight.size >= maxInFlight) await Promise.race(inFlight);
    }
  } finally {
    // Also when the source fails (an invalid line): what was sent before it is acked first.
    await Promise.all(inFlight);
  }
  if (failure !== undefined) throw failure;
  return { published, duplicates };
}

/** A contract event's market is its product's; messages and custom markets name theirs. */
function marketOf(item: PublishableEvent): MarketCode | undefined {
  const { event } = item;
  if (event.type === 'message' || event.type === 'custom_market') {
    return isMarketCode(event.market) ? event.market : undefined;
  }
  return item.contract?.product.market;
}

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
