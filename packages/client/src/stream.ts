import { errorOf, GridquoteError } from './errors.js';
import { retryAfterMs, sleep } from './rate-limit.js';
import { type SseMessage, SseParser } from './sse.js';

/** Opens one connection; `lastEventId` is sent as the Last-Event-ID header when defined. */
export type OpenStream = (lastEventId: string | undefined, signal: AbortSignal) => Promise<Response>;

export interface ResumeOptions {
  /** Resume after this event id (the id of the last event you processed). */
  readonly lastEventId?: string;
  /** Ends the iteration (it then throws the signal's reason). */
  readonly signal?: AbortSignal;
  /**
   * Consecutive failed connections (refused, dropped before any event, 429/503) before the
   * iterator gives up and throws; a connection that delivers an event resets the count. Default 10.
   */
  readonly maxReconnects?: number;
  /** Wait before reconnecting, unless the server's `retry:` or `Retry-After` says otherwise. Default 1000. */
  readonly reconnectDelayMs?: number;
  /**
   * A connection silent for this long (not even a heartbeat comment, which the server sends
   * every 15 s) is treated as dead and replaced. Default 45000.
   */
  readonly idleTimeoutMs?: number;
  /**
   * Called each time a connection is open and streaming, the first and every one after a
   * reconnection: a page can clear the "reconnecting" it showed, even before the next event.
   */
  readonly onOpen?: () => void;
  /** Called before each reconnection (for logs): the attempt number and the wait. */
  readonly onReconnect?: (info: {
    readonly attempt: number;
    readonly delayMs: number;
    readonly cause: unknown;
  }) => void;
  /** Event names that end the stream with an error: their data is a problem body. Default ['error']. */
  readonly errorEvents?: readonly string[];
}

const RETRYABLE = new Set([429, 502, 503, 504]);
const MAX_BACKOFF_MS = 30_000;
/** The server's heartbeat interval: a connection up this long was a working one. */
const HEALTHY_AFTER_MS = 15_000;

/**
 * The events of a server-sent event stream over fetch, reconnecting by itself after a dropped
 * connection with `Last-Event-ID` set to the last event it yielded, so the consumer sees every
 * event once (the server resends exactly what follows that id). Works wherever fetch streams
 * response bodies (Node 18+, browsers); unlike EventSource it can send an Authorization header.
 */
export async function* resumingEvents(
  open: OpenStream,
  options: ResumeOptions = {},
): AsyncGenerator<SseMessage> {
  const maxReconnects = options.maxReconnects ?? 10;
  const baseDelay = options.reconnectDelayMs ?? 1000;
  const idleTimeoutMs = options.idleTimeoutMs ?? 45_000;
  const errorEvents = new Set(options.errorEvents ?? ['error']);
  let lastEventId = options.lastEventId;
  let failures = 0;
  let serverRetryMs: number | undefined;

  for (;;) {
    options.signal?.throwIfAborted();
    const connection = new AbortController();
    const abortConnection = () => connection.abort(options.signal?.reason);
    options.signal?.addEventListener('abort', abortConnection, { once: true });
    let delivered = false;
    let openedAt: number | undefined;
    let cause: unknown;
    let advisedDelay: number | undefined;
    try {
      const response = await open(lastEventId, connection.signal);
      if (!response.ok) {
        if (!RETRYABLE.has(response.status)) throw await errorOf(response);
        advisedDelay = retryAfterMs(response.headers.get('retry-after'));
        cause = await errorOf(response);
      } else if (!(response.headers.get('content-type') ?? '').startsWith('text/event-stream')) {
        throw new GridquoteError(
          response.status,
          `not an event stream: ${response.headers.get('content-type')}`,
        );
      } else if (response.body === null) {
        cause = new Error('the stream has no body');
      } else {
        openedAt = Date.now();
        options.onOpen?.();
        const parser = new SseParser(lastEventId);
        const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
        try {
          for (;;) {
            // Only the wait for bytes is timed: a consumer slow with an event is not a dead server.
            const idle = setTimeout(() => connection.abort(new Error('stream idle')), idleTimeoutMs);
            const { done, value } = await reader.read().finally(() => clearTimeout(idle));
            if (done) break;
            for (const message of parser.push(value)) {
              if (errorEvents.has(message.event)) {
                const error = streamError(message);
                // 503 (slow-consumer, store-unavailable, shutdown): resume after the server's retry hint.
                if (error.status !== 503) throw error;
                serverRetryMs = parser.retryMs ?? serverRetryMs;
                throw new Resumable(error);
              }
              lastEventId = message.id === '' ? lastEventId : message.id;
              delivered = true;
              yield message;
            }
            serverRetryMs = parser.retryMs ?? serverRetryMs;
          }
          cause = new Error('the server closed the stream');
        } finally {
          reader.cancel().catch(() => undefined);
        }
      }
    } catch (error) {
      if (error instanceof GridquoteError) throw error;
      options.signal?.throwIfAborted();
      cause = error instanceof Resumable ? error.cause : error;
    } finally {
      options.signal?.removeEventListener('abort', abortConnection);
      connection.abort();
    }
    // A connection that delivered, or stayed up past a heartbeat interval, was healthy: only a
    // run of short-lived failures (refused, cut at once) counts towards giving up.
    const healthy = delivered || (openedAt !== undefined && Date.now() - openedAt >= HEALTHY_AFTER_MS);
    failures = healthy ? 0 : failures + 1;
    if (failures > maxReconnects) {
      throw new GridquoteError(0, `the event stream failed ${failures} times in a row: ${describe(cause)}`);
    }
    const backoff = Math.min(MAX_BACKOFF_MS, (serverRetryMs ?? baseDelay) * 2 ** Math.max(0, failures - 1));
    const delayMs = advisedDelay ?? backoff;
    options.onReconnect?.({ attempt: failures, delayMs, cause });
    await sleep(delayMs, options.signal);
  }
}

/** A stream ended by the server with an error that a reconnection gets past. */
class Resumable extends Error {
  constructor(override readonly cause: GridquoteError) {
    super(cause.message);
  }
}

function streamError(message: SseMessage): GridquoteError {
  try {
    const problem = JSON.parse(message.data) as {
      status?: number;
      detail?: string;
      title?: string;
      type?: string;
    };
    const status = typeof problem.status === 'number' ? problem.status : 0;
    const detail = problem.detail ?? problem.title ?? message.data;
    return new GridquoteError(
      status,
      `event stream error: ${detail}`,
      typeof problem.type === 'string' ? (problem as GridquoteError['problem']) : undefined,
    );
  } catch {
    return new GridquoteError(0, `event stream error: ${message.data}`);
  }
}

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
