import { parseCsv } from './csv.js';
import { errorOf } from './errors.js';
import { OPERATIONS, } from './openapi-types.js';
import { parseRateLimit, retryAfterMs, sleep } from './rate-limit.js';
import { resumingEvents } from './stream.js';
import { toStreamEvent } from './stream-events.js';
/**
 * The gridquote API, one typed method per operation. JSON methods resolve to that operation's
 * own answer type (generated from the server's OpenAPI document); `csv` and `csvRows` fetch the
 * CSV form of any operation. Failures reject with a GridquoteError carrying the problem details.
 */
export class GridquoteClient {
    options;
    base;
    fetch;
    retries;
    maxRetryDelayMs;
    /** When the key's spent window reopens (epoch ms), from the last RateLimit header with r=0. */
    windowReopensAt = 0;
    constructor(options) {
        this.options = options;
        this.base = options.baseUrl.replace(/\/+$/, '');
        // Bound, so the platform fetch is never called with this client as `this`.
        this.fetch = options.fetch ?? ((input, init) => globalThis.fetch(input, init));
        this.retries = options.retries ?? 3;
        this.maxRetryDelayMs = options.maxRetryDelayMs ?? 60_000;
    }
    ticker(params, options) {
        return this.json('ticker', params, options);
    }
    epi(params = {}, options) {
        return this.json('epi', params, options);
    }
    npi(params = {}, options) {
        return this.json('npi', params, options);
    }
    tradelog(params, options) {
        return this.json('tradelog', params, options);
    }
    messages(params, options) {
        return this.json('messages', params, options);
    }
    trades(params, options) {
        return this.json('trades', params, options);
    }
    data(params, options) {
        return this.json('data', params, options);
    }
    intraday(params, options) {
        return this.json('intraday', params, options);
    }
    datamine(params, options) {
        return this.json('datamine', params, options);
    }
    /** The CSV text of an operation, exactly as the server wrote it. */
    async csv(operation, params, options) {
        return (await this.request(operation, params, { ...options, format: 'csv' })).body;
    }
    /** The CSV of an operation as rows of cells, the header first (messages: tab-separated). */
    async csvRows(operation, params, options) {
        return parseCsv(await this.csv(operation, params, options), operation === 'messages' ? '\t' : ',');
    }
    /**
     * One request as sent and answered (after retries): the body text, the ETag and the headers;
     * a 304 when `ifNoneMatch` names the current ETag. Any other status rejects with GridquoteError.
     */
    request(operation, params, options = {}) {
        return this.send(operation, OPERATIONS[operation].path, params, options);
    }
    /**
     * A short-lived stream token (GET /api/stream/token) for a browser's EventSource, which cannot
     * send the Authorization header; see eventSourceUrl. Keys themselves never go in a URL.
     */
    async streamToken(options) {
        const answer = await this.send('stream-token', '/api/stream/token', {}, { ...options, format: 'json' });
        return JSON.parse(answer.body);
    }
    /** The URL of GET /api/stream for `new EventSource(url)`, authenticated by a stream token. */
    eventSourceUrl(params, token) {
        return this.url('/api/stream', { ...params, token });
    }
    async send(operation, path, params, options) {
        const url = this.url(path, params);
        const headers = {
            authorization: `Bearer ${this.options.key}`,
            accept: options.format === 'csv' ? 'text/csv' : 'application/json',
        };
        if (options.ifNoneMatch !== undefined)
            headers['if-none-match'] = options.ifNoneMatch;
        for (let attempt = 0;; attempt++) {
            await this.waitForWindow(options.signal);
            const response = await this.fetch(url, {
                headers,
                ...(options.signal ? { signal: options.signal } : {}),
            });
            this.noteRateLimit(response.headers);
            if (response.status === 200 || response.status === 304) {
                return {
                    status: response.status,
                    body: response.status === 200 ? await response.text() : '',
                    etag: response.headers.get('etag') ?? undefined,
                    headers: response.headers,
                };
            }
            const error = await errorOf(response);
            const delayMs = this.retryDelay(response, attempt);
            if (delayMs === undefined)
                throw error;
            this.options.onRetry?.({ operation, status: response.status, attempt: attempt + 1, delayMs });
            await sleep(delayMs, options.signal);
        }
    }
    /**
     * The live events of GET /api/stream (ticker messages, messages, publications) as an async
     * iterator that reconnects by itself after a dropped connection and resumes after the last
     * event it yielded (Last-Event-ID), so none is missed or repeated. Pass `lastEventId` to resume
     * a stream of an earlier run. Break out of the loop (or abort `signal`) to close it.
     */
    async *stream(params, options = {}) {
        const url = this.url('/api/stream', params);
        const open = (lastEventId, signal) => {
            const headers = {
                authorization: `Bearer ${this.options.key}`,
                accept: 'text/event-stream',
            };
            if (lastEventId !== undefined && lastEventId !== '')
                headers['last-event-id'] = lastEventId;
            return this.fetch(url, { headers, signal });
        };
        for await (const message of resumingEvents(open, options)) {
            // Kinds newer than this client are skipped, so an older client keeps working.
            const event = toStreamEvent(message);
            if (event !== undefined)
                yield event;
        }
    }
    async json(operation, params, options) {
        const answer = await this.request(operation, params, { ...options, format: 'json' });
        return JSON.parse(answer.body);
    }
    url(path, params) {
        const query = new URLSearchParams();
        for (const [name, value] of Object.entries(params)) {
            if (value !== undefined)
                query.append(name, String(value));
        }
        const search = query.toString();
        return `${this.base}${path}${search === '' ? '' : `?${search}`}`;
    }
    /** Retry-After (or a short backoff without one) for 429 and 503 within the budget; else undefined. */
    retryDelay(response, attempt) {
        if ((response.status !== 429 && response.status !== 503) || attempt >= this.retries)
            return undefined;
        const delayMs = retryAfterMs(response.headers.get('retry-after')) ?? 1000 * 2 ** attempt;
        return delayMs > this.maxRetryDelayMs ? undefined : delayMs;
    }
    noteRateLimit(headers) {
        if (this.options.paceRequests === false)
            return;
        const state = parseRateLimit(headers.get('ratelimit'));
        if (state !== undefined && state.remaining === 0) {
            this.windowReopensAt = Math.max(this.windowReopensAt, Date.now() + state.resetSeconds * 1000);
        }
    }
    async waitForWindow(signal) {
        const wait = Math.min(this.windowReopensAt - Date.now(), this.maxRetryDelayMs);
        if (wait <= 0)
            return;
        this.options.onPause?.(wait);
        await sleep(wait, signal);
    }
}
//# sourceMappingURL=client.js.map