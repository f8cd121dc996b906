import { channel } from 'node:diagnostics_channel';
import { sendHeld } from '../sent-together.js';
import { comparePositions, type StreamPosition } from './event-id.js';
import { SharedDay } from './shared-day.js';
import type { SharedFrames } from './shared-frames.js';
import type { StreamItem } from './stream-items.js';
import { type Page, readPage, type StreamSource } from './stream-source.js';

/** New events as the hub read them: everything committed after `after`, in stream order. */
export interface Batch {
  readonly after: StreamPosition;
  readonly items: readonly StreamItem[];
  /**
   * The text a selection makes of the whole batch, written once and shared by every stream of
   * that selection (most streams of a busy server ask for the same few things).
   */
  readonly shared: Map<string, SharedFrames>;
}

/** A stream that has caught up with the store and now takes its events from the hub. */
export interface LiveSubscriber {
  /** The position of the last event the stream has taken (delivered or not, by its selection). */
  readonly cursor: StreamPosition;
  /** Writes what the stream sends of the batch; returns how many events that was. */
  deliver(batch: Batch): number;
  /** The store failed under the hub: the stream ends (the client resumes from its last id). */
  fail(error: unknown): void;
}

/**
 * The diagnostics channel (node:diagnostics_channel) on which the hub publishes a FanOut for each
 * batch while anyone subscribes: how long a commit takes to reach every socket, for tools that
 * measure it (the stream benchmark). Without a subscriber it costs one check per batch.
 */
export const FAN_OUT_CHANNEL = 'gridquote:stream-fan-out';
const fanOutChannel = channel(FAN_OUT_CHANNEL);

/** One batch handed to the live streams, as published on FAN_OUT_CHANNEL. */
export interface FanOut {
  readonly first: StreamPosition;
  readonly last: StreamPosition;
  /** process.hrtime.bigint() as the first stream was handed the batch. */
  readonly startNs: bigint;
  /**
   * For each stream that wrote events of the batch, in order: ns after startNs when its write
   * returned (the bytes were with the kernel then, but for a stream that writes through its
   * response: shared-frames.ts).
   */
  readonly writtenNs: readonly number[];
  /** ... and how many events that write carried. */
  readonly events: readonly number[];
}

/**
 * Follows the store's commits for every caught-up stream at once: on each commit notice it reads
 * the new events once, parses them once, and hands the batch to each subscriber, so a thousand
 * streams cost one read per commit, not a thousand. A stream catches up from the store on its
 * own (event-stream.ts) and joins when it has read everything; the batch's `after` tells it
 * whether the batch follows on from its cursor (else it reads the gap itself).
 */
export class StreamHub {
  readonly #subscribers = new Set<LiveSubscriber>();
  #head: StreamPosition | undefined;
  #reading = false;
  #again = false;
  /** The day's events parsed once, for the hub and every stream catching up (shared-day.ts). */
  readonly day = new SharedDay();

  constructor(
    private readonly source: StreamSource,
    private readonly pageSize: number,
  ) {}

  /** The next page after `position`, from the shared day when it holds it, else from the store. */
  readPage(position: StreamPosition, limit: number): Promise<Page> {
    return readPage(this.source, position, limit, this.day);
  }

  /** Up to where the hub has read: a joining stream behind it has more to read first. */
  get head(): StreamPosition | undefined {
    return this.#head;
  }

  /**
   * Adds a caught-up stream. Returns false (and adds nothing) when the hub has already read past
   * the stream's cursor: the stream reads again, and no commit falls between reading and joining.
   */
  join(subscriber: LiveSubscriber): boolean {
    const head = this.#head;
    if (head !== undefined && comparePositions(head, subscriber.cursor) > 0) return false;
    // A hub nobody listened to may hold an old head: start from the newcomer's, which is current.
    if (head === undefined || (this.#subscribers.size === 0 && !this.#reading))
      this.#head = subscriber.cursor;
    this.#subscribers.add(subscriber);
    return true;
  }

  leave(subscriber: LiveSubscriber): void {
    this.#subscribers.delete(subscriber);
  }

  get size(): number {
    return this.#subscribers.size;
  }

  /** A commit notice: read what is new (once, however many notices arrive meanwhile). */
  committed(): void {
    if (this.#subscribers.size === 0) return;
    if (this.#reading) {
      this.#again = true;
      return;
    }
    void this.#read();
  }

  async #read(): Promise<void> {
    this.#reading = true;
    try {
      do {
        this.#again = false;
        for (;;) {
          const after = this.#head;
          if (after === undefined || this.#subscribers.size === 0) break;
          const page = await this.readPage(after, this.pageSize);
          this.#head = page.end;
          if (page.items.length === 0) break;
          const batch: Batch = { after, items: page.items, shared: new Map() };
          const subscribers = [...this.#subscribers];
          // A fan-out to many streams takes milliseconds: the fast lane's held answers go first.
          sendHeld();
          if (fanOutChannel.hasSubscribers) fanOutChannel.publish(deliverTraced(batch, subscribers));
          else for (const subscriber of subscribers) subscriber.deliver(batch);
        }
      } while (this.#again);
    } catch (error) {
      const failed = [...this.#subscribers];
      this.#subscribers.clear();
      this.#head = undefined;
      for (const subscriber of failed) subscriber.fail(error);
    } finally {
      this.#reading = false;
    }
  }
}

/** Delivers a batch as the hub does, noting when each stream's write returned. */
function deliverTraced(batch: Batch, subscribers: readonly LiveSubscriber[]): FanOut {
  const startNs = process.hrtime.bigint();
  const writtenNs: number[] = [];
  const events: number[] = [];
  for (const subscriber of subscribers) {
    const count = subscriber.deliver(batch);
    if (count === 0) continue;
    writtenNs.push(Number(process.hrtime.bigint() - startNs));
    events.push(count);
  }
  const first = batch.items[0] as StreamItem;
  const last = batch.items[batch.items.length - 1] as StreamItem;
  return { first, last, startNs, writtenNs, events };
}
