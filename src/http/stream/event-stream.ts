import type { ServerResponse } from 'node:http';
import type { StreamMetrics } from '../metrics.js';
import { type Problem, problemBody } from '../problems.js';
import { comparePositions, type StreamPosition } from './event-id.js';
import { sharedFrames, writeFrames } from './shared-frames.js';
import { sseComment, sseEvent, sseRetry } from './sse.js';
import type { Batch, LiveSubscriber, StreamHub } from './stream-hub.js';
import { isSelected, type MarketSelection, PublicationTracker, type StreamItem } from './stream-items.js';

export interface StreamSettings {
  /** Bytes a client may leave unread before its stream is closed (slow-consumer). */
  readonly queueBytes: number;
  readonly heartbeatMs: number;
  /** The `retry:` hint on shutdown and on a store failure. */
  readonly retryMs: number;
  /** Events per store read. */
  readonly pageSize: number;
}

/** Market data of a selection, or the end-of-day publications. */
export type StreamContent =
  | { readonly kind: 'market'; readonly selection: MarketSelection }
  | { readonly kind: 'publications' };

export interface StreamStart {
  /** Where reading starts. */
  readonly cursor: StreamPosition;
  /** Only events after this are sent (a resumed stream); publications read the day from its start to know what was announced. */
  readonly after?: StreamPosition;
  /** Only events of `fromDate` at or after this time are sent (`from=HHmmss`). */
  readonly from?: { readonly date: string; readonly time: string };
}

/** After a slow consumer's final event, how long the socket may take to flush it before it is cut. */
const FLUSH_GRACE_MS = 2_000;

/**
 * Bytes a stream hands its socket ahead of the client, at most (and one write more): the rest
 * waits in the stream's own queue, from which a slow consumer's backlog can still be dropped, so
 * that its final error event is next in line after these, not after everything it left unread.
 */
const WRITE_AHEAD_BYTES = 64 * 1024;

/**
 * One open event stream. It first catches up from the store page by page, paced by the client
 * (it waits for the socket to drain), then joins the hub for live events. Live events are never
 * held back for a slow client: past WRITE_AHEAD_BYTES in the socket they wait in the stream's
 * queue, and once more than `queueBytes` wait unread in all (checked after each commit's batch,
 * so at most one batch more), the queue is dropped and the stream ends with an `error` event
 * (slow-consumer) right behind what the socket holds: a stalled reader costs a bounded amount of
 * memory, and a reader that is only slow still learns why its stream ended.
 */
export class EventStream implements LiveSubscriber {
  #cursor: StreamPosition;
  readonly #after: StreamPosition | undefined;
  readonly #from: StreamStart['from'];
  readonly #publications: PublicationTracker | undefined;
  /** Streams with equal keys send the same text for a batch that follows on from their cursor. */
  readonly #shareKey: string | undefined;
  #live = false;
  #closed = false;
  #heartbeat: NodeJS.Timeout | undefined;
  /** Whether anything went out since the last heartbeat's turn: a stream that is talking needs none. */
  #sentSinceBeat = false;
  #drained: (() => void) | undefined;
  /** What waits for the socket to drain (WRITE_AHEAD_BYTES), oldest first, and its size. */
  #queue: Buffer[] = [];
  #queuedBytes = 0;
  readonly #onSocketDrain = () => this.#flush();
  /** The connection's socket, kept: the response lets go of it before its 'close'. */
  #socket: ServerResponse['socket'] = null;

  constructor(
    private readonly response: ServerResponse,
    private readonly hub: StreamHub,
    private readonly content: StreamContent,
    start: StreamStart,
    private readonly settings: StreamSettings,
    private readonly metrics: StreamMetrics,
    private readonly onEnd: () => void,
    /** Logs why the store failed under the stream (the client sees only a problem). */
    private readonly logFailure: (error: unknown) => void,
  ) {
    this.#cursor = start.cursor;
    this.#after = start.after;
    this.#from = start.from;
    this.#publications = content.kind === 'publications' ? new PublicationTracker() : undefined;
    // A publication tracker's state and a from= time are the stream's own: no sharing then.
    this.#shareKey =
      content.kind === 'market' && start.from === undefined ? selectionKey(content.selection) : undefined;
  }

  get cursor(): StreamPosition {
    return this.#cursor;
  }

  get closed(): boolean {
    return this.#closed;
  }

  /** Headers are written; now the events, until the client leaves or the stream is closed. */
  open(): void {
    this.metrics.opened();
    this.response.on('close', () => this.#end());
    // The socket's own: live frames may be written to it directly (writeFrames), which arms no
    // 'drain' of the response.
    this.#socket = this.response.socket;
    this.#socket?.on('drain', this.#onSocketDrain);
    // A comment only after a heartbeat's time without anything else: a thousand streams of a busy
    // market would otherwise each write one at the same moment, in the way of the next commit.
    this.#heartbeat = setInterval(() => {
      if (!this.#sentSinceBeat) this.#write(sseComment('heartbeat'));
      this.#sentSinceBeat = false;
      if (this.#live) this.#checkQueue();
    }, this.settings.heartbeatMs);
    this.#heartbeat.unref();
    void this.#catchUp();
  }

  /** Ends the stream with a final event (or hint): an error, or the shutdown's `retry:`. */
  close(final: string): void {
    if (this.#closed) return;
    this.#closed = true;
    this.hub.leave(this);
    if (!this.response.writableEnded) this.response.end(final);
    // A client that does not read never lets the final bytes go: cut it after a moment.
    setTimeout(() => this.response.destroy(), FLUSH_GRACE_MS).unref();
    this.#drained?.();
  }

  /** Ends the stream with a problem in an `error` event. */
  closeWithProblem(problem: Problem, retryMs?: number): void {
    const hint = retryMs === undefined ? '' : sseRetry(retryMs);
    this.close(hint + sseEvent({ event: 'error', data: problemBody(problem) }));
  }

  deliver(batch: Batch): number {
    if (!this.#live || this.#closed) return 0;
    if (comparePositions(batch.after, this.#cursor) > 0) {
      // The batch does not follow on from what this stream has: read the gap from the store.
      this.#live = false;
      this.hub.leave(this);
      void this.#catchUp();
      return 0;
    }
    const key = this.#shareKey;
    const last = batch.items[batch.items.length - 1];
    if (key === undefined || last === undefined || comparePositions(batch.after, this.#cursor) !== 0) {
      const sent = this.#send(batch.items);
      if (sent > 0) this.#checkQueue();
      return sent;
    }
    let frames = batch.shared.get(key);
    if (frames === undefined) {
      const { text, count } = this.#collect(batch.items);
      // Encoded once: every stream of the selection writes the same Buffer.
      frames = sharedFrames(text, count);
      batch.shared.set(key, frames);
    }
    this.#cursor = last;
    // Nothing for this stream: its queue has not grown since it was last checked.
    if (frames.count === 0) return 0;
    // Live: nothing waits for 'drain' (the queue bound below applies), so straight to the socket
    // unless it holds enough already.
    if (this.#writesThrough()) writeFrames(this.response, frames);
    else this.#enqueue(frames.bytes);
    this.#sentSinceBeat = true;
    this.metrics.sent(frames.count);
    this.#checkQueue();
    return frames.count;
  }

  fail(error: unknown): void {
    if (this.#closed) return;
    this.logFailure(error);
    this.closeWithProblem(
      { code: 'store-unavailable', detail: 'the market data store is unavailable; reconnect to resume' },
      this.settings.retryMs,
    );
  }

  async #catchUp(): Promise<void> {
    try {
      while (!this.#closed) {
        const page = await this.hub.readPage(this.#cursor, this.settings.pageSize);
        if (this.#closed) return;
        if (page.items.length === 0) {
          this.#cursor = page.end;
          if (this.hub.join(this)) {
            this.#live = true;
            return;
          }
          continue;
        }
        if (page.shared === true && this.#shareKey !== undefined)
          this.#sendShared(page.items, this.#shareKey);
        else this.#send(page.items);
        while (!this.#closed && (this.#queue.length > 0 || this.response.writableNeedDrain))
          await this.#drain();
      }
    } catch (error) {
      this.fail(error);
    }
  }

  /**
   * Writes the frames of the items this stream sends, in one write: a thousand streams each
   * writing every event on its own would spend the server on write calls.
   */
  #send(items: readonly StreamItem[]): number {
    const { text, count } = this.#collect(items);
    const last = items[items.length - 1];
    if (last !== undefined && comparePositions(last, this.#cursor) > 0) this.#cursor = last;
    if (count === 0) return 0;
    this.#write(text);
    this.#sentSinceBeat = true;
    this.metrics.sent(count);
    return count;
  }

  /**
   * A page of the shared day, all of it after the cursor: the selection's frames of it are the
   * same for every stream of that selection, encoded by the first one (SharedDay.frames).
   */
  #sendShared(items: readonly StreamItem[], key: string): void {
    const frames = this.hub.day.frames(key, items, () => this.#collect(items));
    const last = items[items.length - 1];
    if (last !== undefined && comparePositions(last, this.#cursor) > 0) this.#cursor = last;
    if (frames.count === 0) return;
    this.#write(frames.bytes);
    this.#sentSinceBeat = true;
    this.metrics.sent(frames.count);
  }

  /** The frames this stream sends of the items after its cursor (the cursor is the caller's to move). */
  #collect(items: readonly StreamItem[]): { text: string; count: number } {
    let text = '';
    let count = 0;
    for (const item of items) {
      if (comparePositions(item, this.#cursor) <= 0) continue;
      const frame = this.#frameToSend(item);
      if (frame === null) continue;
      text += frame;
      count += 1;
    }
    return { text, count };
  }

  /** The item's frame when this stream sends it. */
  #frameToSend(item: StreamItem): string | null {
    const frame = this.#frameOf(item);
    if (frame === null) return null;
    if (this.#after !== undefined && comparePositions(item, this.#after) <= 0) return null;
    if (this.#from !== undefined && item.date === this.#from.date && item.event.time < this.#from.time) {
      return null;
    }
    return frame;
  }

  #frameOf(item: StreamItem): string | null {
    const { content } = this;
    if (content.kind === 'market') return isSelected(content.selection, item.event) ? item.frame() : null;
    // Every event goes through the tracker, sent or not: it must know what was announced before.
    return this.#publications?.frameOf(item) ?? null;
  }

  #write(text: string | Buffer): void {
    if (this.#closed) return;
    if (this.#writesThrough()) this.response.write(text);
    else this.#enqueue(text);
  }

  /** Whether a write goes to the socket now: nothing queued before it, and room ahead of the client. */
  #writesThrough(): boolean {
    return this.#queue.length === 0 && this.response.writableLength < WRITE_AHEAD_BYTES;
  }

  #enqueue(chunk: string | Buffer): void {
    const bytes = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
    this.#queue.push(bytes);
    this.#queuedBytes += bytes.length;
  }

  /** The socket drained: what waits goes to it, up to WRITE_AHEAD_BYTES (and one write more). */
  #flush(): void {
    if (this.#closed) return;
    let sent = 0;
    while (sent < this.#queue.length && this.response.writableLength < WRITE_AHEAD_BYTES) {
      const chunk = this.#queue[sent++] as Buffer;
      this.#queuedBytes -= chunk.length;
      this.response.write(chunk);
    }
    this.#queue.splice(0, sent);
    this.#drained?.();
  }

  #checkQueue(): void {
    if (this.#closed || this.response.writableLength + this.#queuedBytes <= this.settings.queueBytes) return;
    // Dropped unsent: the final event goes right behind what the socket holds.
    this.#queue = [];
    this.#queuedBytes = 0;
    this.metrics.dropped();
    this.closeWithProblem({
      code: 'slow-consumer',
      detail: `more than ${this.settings.queueBytes} bytes of events were waiting unread; reconnect with Last-Event-ID to resume`,
    });
  }

  #drain(): Promise<void> {
    return new Promise((resolve) => {
      this.#drained = () => {
        this.#drained = undefined;
        resolve();
      };
    });
  }

  /** The connection closed (either side): release everything. */
  #end(): void {
    this.#closed = true;
    this.#queue = [];
    this.#socket?.off('drain', this.#onSocketDrain);
    this.hub.leave(this);
    clearInterval(this.#heartbeat);
    this.#drained?.();
    this.metrics.closed();
    this.onEnd();
  }
}

/** Streams of equal keys select the same events. */
function selectionKey(selection: MarketSelection): string {
  const { contracts } = selection;
  return [
    selection.market,
    contracts === undefined
      ? '*'
      : `${contracts.instrument}:${contracts.prefix ?? ''}:${contracts.optionType ?? ''}`,
    [...selection.ticker].sort().join(','),
    [...selection.messages].sort().join(','),
  ].join('|');
}
