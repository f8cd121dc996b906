import { isUtf8 } from 'node:buffer';
import {
  AckPolicy,
  type ConsumerMessages,
  DeliverPolicy,
  type JetStreamManager,
  type JsMsg,
  jetstream,
  jetstreamManager,
} from '@nats-io/jetstream';
import { nanos } from '@nats-io/transport-node';
import { ensureFeedStream, isNotFound, type StreamRetention } from '../../feed/nats/feed-stream.js';
import { connectNats } from '../../feed/nats/nats-connection.js';
import { EventConflictError } from '../../store/event-conflict-error.js';
import type { MarketWriter, ValidatedEvent } from '../../store/store.js';
import { parseLine } from '../ingest-lines.js';

/**
 * The ingest worker's side of the feed stream (docs/operations.md, "Deployment: beyond one
 * machine"): a durable pull consumer of `<stream>.>` whose messages are stored in batches
 * through the one ingest path (validation, canonical line, the store's idempotent append) and
 * acknowledged only once their batch is committed.
 *
 * Exactly-once effect, and why the store, not the broker, says where to resume: a message is
 * acked only after the commit that holds it, so everything the broker counts as done is in
 * the store. What the store holds but the broker does not know (a crash between commit and
 * ack) comes back by redelivery, and the store's append skips an event whose (date, seq) it
 * has with the same line. A lost durable is recreated delivering the whole stream (within
 * its retention) again: the store keeps what it has and adds only what it misses. The
 * store's content is therefore the position; the broker's is at most behind it.
 */

export const DEFAULT_DURABLE = 'gridquote-ingest';
export const DEFAULT_BATCH_SIZE = 2048;
export const DEFAULT_BATCH_WAIT_MS = 5;
export const DEFAULT_ACK_WAIT_MS = 30_000;
/** A batch that could not be stored (store down) comes back after this. */
const STORE_RETRY_MS = 1000;

export interface NatsIngestOptions {
  readonly url: string;
  readonly stream: string;
  readonly durable?: string;
  /** Most messages per transaction. */
  readonly batchSize?: number;
  /** How long a batch waits for more messages after its first, ms. */
  readonly batchWaitMs?: number;
  /** Unacked messages are redelivered after this (also to a restarted worker after a crash). */
  readonly ackWaitMs?: number;
  /** Retention of the stream if the worker creates it (it may start before the publisher). */
  readonly retention?: StreamRetention;
  readonly log: (line: string) => void;
  readonly onBatch?: (batch: BatchReport) => void;
  /** The store failing to take a batch (true), or taking one again (false): the worker's readiness. */
  readonly onStoreFailing?: (failing: boolean) => void;
  /** Stops consuming: the batch being stored is finished and acked, the rest comes back later. */
  readonly signal: AbortSignal;
}

export interface BatchReport {
  readonly messages: number;
  readonly added: number;
  readonly skipped: number;
  /** Messages refused (invalid, or contradicting a stored event) and terminated. */
  readonly refused: number;
  /** From the first message's arrival to the acks, ms. */
  readonly ms: number;
  /** Messages of the stream not yet delivered to the consumer after this batch: the lag. */
  readonly pending: number;
}

export interface IngestTotals {
  readonly added: number;
  readonly skipped: number;
  readonly refused: number;
}

/** Runs the worker until the signal aborts; resolves with what it stored. */
export async function runNatsIngest(writer: MarketWriter, options: NatsIngestOptions): Promise<IngestTotals> {
  const durable = options.durable ?? DEFAULT_DURABLE;
  const batchSize = options.batchSize ?? DEFAULT_BATCH_SIZE;
  const batchWaitMs = options.batchWaitMs ?? DEFAULT_BATCH_WAIT_MS;
  const nc = await connectNats(options.url, `gridquote ingest ${durable}`, options.log);
  let messages: ConsumerMessages | undefined;
  try {
    const jsm = await jetstreamManager(nc);
    if ((await ensureFeedStream(jsm, options.stream, options.retention)) === 'created') {
      options.log(`created stream ${options.stream} (subjects ${options.stream}.>)`);
    }
    const batcher = new Batcher(batchSize, batchWaitMs);
    const js = jetstream(nc);
    /**
     * Consumes into the batcher. A durable deleted under the worker (by an operator, a stream
     * purge tool) ends the consumption with an error instead of leaving it waiting for messages
     * that no consumer delivers any more: the durable is then created again, from the stream's
     * first message, as at a start (the store skips what it holds).
     */
    const consume = async (): Promise<void> => {
      await ensureConsumer(jsm, options, durable, batchSize);
      const consumer = await js.consumers.get(options.stream, durable);
      const current = await consumer.consume({
        max_messages: batchSize,
        abort_on_missing_resource: true,
        callback: (m) => batcher.push(m),
      });
      messages = current;
      void current.closed().then((error) => {
        if (!error || options.signal.aborted) return;
        options.log(`durable consumer ${durable} lost (${describe(error)}); creating it again`);
        void consumeAgain();
      });
    };
    const consumeAgain = async (): Promise<void> => {
      while (!options.signal.aborted) {
        try {
          await consume();
          return;
        } catch (error) {
          options.log(
            `could not create durable consumer ${durable} (${describe(error)}); retrying in ${STORE_RETRY_MS} ms`,
          );
          await new Promise((resolve) => setTimeout(resolve, STORE_RETRY_MS));
        }
      }
    };
    await consume();
    const stop = () => batcher.close();
    options.signal.addEventListener('abort', stop, { once: true });
    if (options.signal.aborted) stop();

    const totals = { added: 0, skipped: 0, refused: 0 };
    let failing = false;
    for (;;) {
      const batch = await batcher.next();
      if (batch === undefined) break;
      try {
        const report = await storeBatch(writer, batch.messages, options.log);
        totals.added += report.added;
        totals.skipped += report.skipped;
        totals.refused += report.refused;
        const last = batch.messages.at(-1);
        options.onBatch?.({
          ...report,
          ms: performance.now() - batch.startedAt,
          pending: last?.info.pending ?? 0,
        });
        if (failing) {
          options.log('store reachable again: ingesting');
          options.onStoreFailing?.(false);
        }
        failing = false;
      } catch (error) {
        // Not the input's fault (the store is down, a disk is full): storeBatch acked nothing.
        if (!failing) {
          options.log(
            `could not store a batch of ${batch.messages.length} (${describe(error)}); not acknowledged, retrying every ${STORE_RETRY_MS} ms`,
          );
          options.onStoreFailing?.(true);
        }
        failing = true;
      }
    }
    return totals;
  } finally {
    await messages?.close().catch(() => undefined);
    // Drain sends the acks still buffered before the connection closes.
    await nc.drain().catch(() => undefined);
  }
}

/**
 * The durable consumer, created when missing: every subject of the stream, explicit acks,
 * from the stream's first message (see the module comment for why that is safe). At most
 * four batches unacked: bounds the worker's memory and what a crash leaves to redeliver.
 */
async function ensureConsumer(
  jsm: JetStreamManager,
  options: NatsIngestOptions,
  durable: string,
  batchSize: number,
): Promise<void> {
  const existing = await jsm.consumers.info(options.stream, durable).catch((error: unknown) => {
    if (isNotFound(error)) return undefined;
    throw error;
  });
  if (existing !== undefined) return;
  await jsm.consumers.add(options.stream, {
    durable_name: durable,
    ack_policy: AckPolicy.Explicit,
    deliver_policy: DeliverPolicy.All,
    filter_subject: `${options.stream}.>`,
    ack_wait: nanos(options.ackWaitMs ?? DEFAULT_ACK_WAIT_MS),
    max_ack_pending: batchSize * 4,
  });
  options.log(`created durable consumer ${durable} on stream ${options.stream}, from its first message`);
}

type BatchResult = Omit<BatchReport, 'ms' | 'pending'>;

/**
 * Stores one batch in one transaction and acks what it holds. An invalid message, or one
 * contradicting a stored event (same (date, seq), other content), can never be stored: it is
 * terminated (not redelivered) with one log line, and the rest of the batch is stored without it.
 */
async function storeBatch(
  writer: MarketWriter,
  messages: readonly JsMsg[],
  log: (line: string) => void,
): Promise<BatchResult> {
  let refused = 0;
  const refuse = (m: JsMsg, reason: string) => {
    refused += 1;
    log(`refused stream message ${m.seq} (${m.subject}): ${reason}; terminated, not redelivered`);
    // No reason on the wire: servers before 2.10 ignore a +TERM that carries one; the log line has it.
    m.term();
  };
  let pending: { message: JsMsg; event: ValidatedEvent }[] = [];
  for (const message of messages) {
    // Decoding would make each invalid byte U+FFFD, and the event would be stored changed.
    if (!isUtf8(message.data)) {
      refuse(message, 'the message is not valid UTF-8 (docs/feed-format.md)');
      continue;
    }
    const parsed = parseLine(message.string(), message.seq);
    if (parsed.ok) pending.push({ message, event: parsed.event });
    else refuse(message, parsed.reason);
  }
  for (;;) {
    try {
      const result = await writer.append(pending.map((item) => item.event));
      for (const item of pending) item.message.ack();
      return { messages: messages.length, added: result.added, skipped: result.skipped, refused };
    } catch (error) {
      const conflicting = error instanceof EventConflictError ? pending[error.index] : undefined;
      if (conflicting === undefined) {
        // The store failed: all that was not refused comes back after a pause, to be stored then.
        for (const item of pending) item.message.nak(STORE_RETRY_MS);
        throw error;
      }
      refuse(conflicting.message, describe(error));
      pending = pending.filter((item) => item !== conflicting);
    }
  }
}

/**
 * Gathers the consumer's messages into batches: a batch is ready when it holds `size`
 * messages or `waitMs` after its first arrived, whichever is first. Only one batch is
 * handed out at a time; messages arriving meanwhile wait for the next one.
 */
class Batcher {
  private buffer: JsMsg[] = [];
  private firstAt = 0;
  private closed = false;
  private wake: (() => void) | undefined;

  constructor(
    private readonly size: number,
    private readonly waitMs: number,
  ) {}

  push(message: JsMsg): void {
    if (this.closed) return; // not acked: redelivered to the next worker
    if (this.buffer.length === 0) this.firstAt = performance.now();
    this.buffer.push(message);
    // The first message starts the batch's wait; a full batch ends it.
    if (this.buffer.length === 1 || this.buffer.length >= this.size) this.signal();
  }

  close(): void {
    this.closed = true;
    this.buffer = [];
    this.signal();
  }

  /** The next ready batch, or undefined once closed. */
  async next(): Promise<{ messages: JsMsg[]; startedAt: number } | undefined> {
    for (;;) {
      if (this.closed) return undefined;
      if (this.buffer.length === 0) {
        await this.sleep(undefined);
        continue;
      }
      const remaining = this.firstAt + this.waitMs - performance.now();
      if (this.buffer.length >= this.size || remaining <= 0) {
        const startedAt = this.firstAt;
        const messages = this.buffer.splice(0, this.size);
        this.firstAt = performance.now();
        return { messages, startedAt };
      }
      await this.sleep(remaining);
    }
  }

  /** Until signalled, or `ms` passed when given. */
  private sleep(ms: number | undefined): Promise<void> {
    return new Promise<void>((resolve) => {
      const timer = ms === undefined ? undefined : setTimeout(() => this.signal(), ms);
      this.wake = () => {
        clearTimeout(timer);
        resolve();
      };
    });
  }

  private signal(): void {
    const wake = this.wake;
    this.wake = undefined;
    wake?.();
  }
}

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
