import { DiscardPolicy, type JetStreamManager, RetentionPolicy, StorageType } from '@nats-io/jetstream';
import { nanos } from '@nats-io/transport-node';
import type { MarketCode } from '../../domain/markets.js';
import type { FeedEvent } from '../events.js';

/**
 * The feed's JetStream stream (docs/operations.md, "Deployment: beyond one machine"): one
 * stream per feed, named by the operator (default `gridquote`, so several feeds can share a
 * server), holding every subject under its name: `<stream>.events.<market>` per market and
 * `<stream>.index` for the index values. One stream keeps one order across subjects, which is
 * the exchange's publication order, so a consumer of `<stream>.>` sees the feed as published.
 */

export const DEFAULT_STREAM = 'gridquote';

/** Limits retention: messages stay until they are older than maxAge or the stream passes maxBytes. */
export interface StreamRetention {
  readonly maxAgeMs: number;
  readonly maxBytes: number;
}

/** A week of feed (a few trading days' catch-up after an outage) within 1 GiB: ~40 full days of feed. */
export const DEFAULT_RETENTION: StreamRetention = { maxAgeMs: 7 * 24 * 3_600_000, maxBytes: 1024 ** 3 };

/**
 * JetStream drops a message whose id it has seen within this window: a publisher restarted
 * mid-day republishes without doubling the stream. Older republications reach the consumer
 * and the store's idempotent append skips them, so the window bounds work, not correctness.
 */
export const DUPLICATE_WINDOW_MS = 10 * 60_000;

/** Stream names become subject prefixes: letters, digits, `-` and `_` only (no `.`, `*`, `>`). */
export function checkStreamName(name: string): string | undefined {
  return /^[A-Za-z0-9_-]{1,64}$/.test(name)
    ? undefined
    : `stream name must be 1..64 letters, digits, '-' or '_', got ${JSON.stringify(name)}`;
}

/** The subject of an event: its market's, or the index subject. */
export function subjectOf(stream: string, event: FeedEvent, market: MarketCode | undefined): string {
  if (event.type === 'index') return `${stream}.index`;
  if (market === undefined) throw new RangeError(`event ${event.date}-${event.seq} has no market`);
  return `${stream}.events.${market}`;
}

/** The message id JetStream deduplicates on: the event's identity (date, seq). */
export const messageIdOf = (event: Pick<FeedEvent, 'date' | 'seq'>): string => `${event.date}-${event.seq}`;

/**
 * Creates the stream when it is missing (with the given retention), and checks an existing one
 * holds the feed's subjects. An existing stream's retention is left as the operator set it.
 */
export async function ensureFeedStream(
  jsm: JetStreamManager,
  stream: string,
  retention: StreamRetention = DEFAULT_RETENTION,
): Promise<'created' | 'exists'> {
  const subjects = [`${stream}.>`];
  const existing = await jsm.streams.info(stream).catch((error: unknown) => {
    if (isNotFound(error)) return undefined;
    throw error;
  });
  if (existing !== undefined) {
    if (!existing.config.subjects?.includes(subjects[0] ?? '')) {
      throw new Error(
        `stream ${stream} exists with subjects ${JSON.stringify(existing.config.subjects)}, not ${subjects[0]}`,
      );
    }
    return 'exists';
  }
  await jsm.streams.add({
    name: stream,
    subjects,
    retention: RetentionPolicy.Limits,
    storage: StorageType.File,
    discard: DiscardPolicy.Old,
    max_age: nanos(retention.maxAgeMs),
    max_bytes: retention.maxBytes,
    duplicate_window: nanos(Math.min(DUPLICATE_WINDOW_MS, retention.maxAgeMs)),
  });
  return 'created';
}

/** JetStream's "stream not found" / "consumer not found" (API error 404). */
export function isNotFound(error: unknown): boolean {
  if (typeof error !== 'object' || error === null) return false;
  const code = (error as { code?: unknown; api_error?: { code?: unknown } }).api_error?.code;
  return code === 404 || /not found/i.test(String((error as { message?: unknown }).message));
}
