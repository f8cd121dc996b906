import { errorOf, GridquoteError } from './errors.js';
import { retryAfterMs, sleep } from './rate-limit.js';
import { SseParser } from './sse.js';
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
export async function* resumingEvents(open, options = {}) {
    const maxReconnects = options.maxReconnects ?? 10;
    const baseDelay = options.reconnectDelayMs ?? 1000;
    const idleTimeoutMs = options.idleTimeoutMs ?? 45_000;
    const errorEvents = new Set(options.errorEvents ?? ['error']);
    let lastEventId = options.lastEventId;
    let failures = 0;
    let serverRetryMs;
    for (;;) {
        options.signal?.throwIfAborted();
        const connection = new AbortController();
        const abortConnection = () => connection.abort(options.signal?.reason);
        options.signal?.addEventListener('abort', abortConnection, { once: true });
        let delivered = false;
        let openedAt;
        let cause;
        let advisedDelay;
        try {
            const response = await open(lastEventId, connection.signal);
            if (!response.ok) {
                if (!RETRYABLE.has(response.status))
                    throw await errorOf(response);
                advisedDelay = retryAfterMs(response.headers.get('retry-after'));
                cause = await errorOf(response);
            }
            else if (!(response.headers.get('content-type') ?? '').startsWith('text/event-stream')) {
                throw new GridquoteError(response.status, `not an event stream: ${response.headers.get('content-type')}`);
            }
            else if (response.body === null) {
                cause = new Error('the stream has no body');
            }
            else {
                openedAt = Date.now();
                const parser = new SseParser(lastEventId);
                const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
                try {
                    for (;;) {
                        // Only the wait for bytes is timed: a consumer slow with an event is not a dead server.
                        const idle = setTimeout(() => connection.abort(new Error('stream idle')), idleTimeoutMs);
                        const { done, value } = await reader.read().finally(() => clearTimeout(idle));
                        if (done)
                            break;
                        for (const message of parser.push(value)) {
                            if (errorEvents.has(message.event)) {
                                const error = streamError(message);
                                // 503 (slow-consumer, store-unavailable, shutdown): resume after the server's retry hint.
                                if (error.status !== 503)
                                    throw error;
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
                }
                finally {
                    reader.cancel().catch(() => undefined);
                }
            }
        }
        catch (error) {
            if (error instanceof GridquoteError)
                throw error;
            options.signal?.throwIfAborted();
            cause = error instanceof Resumable ? error.cause : error;
        }
        finally {
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
    cause;
    constructor(cause) {
        super(cause.message);
        this.cause = cause;
    }
}
function streamError(message) {
    try {
        const problem = JSON.parse(message.data);
        const status = typeof problem.status === 'number' ? problem.status : 0;
        const detail = problem.detail ?? problem.title ?? message.data;
        return new GridquoteError(status, `event stream error: ${detail}`, typeof problem.type === 'string' ? problem : undefined);
    }
    catch {
        return new GridquoteError(0, `event stream error: ${message.data}`);
    }
}
function describe(error) {
    return error instanceof Error ? error.message : String(error);
}
//# sourceMappingURL=stream.js.map