import { parseCsv } from './csv.js';
import { errorOf } from './errors.js';
import {
  type DatamineParams,
  type DatamineResponse,
  type DataResponse,
  type IntradayResponse,
  type MessagesParams,
  type MessagesResponse,
  OPERATIONS,
  type OperationName,
  type Operations,
  type TickerResponse,
  type TradesResponse,
} from './openapi-types.js';
import { parseRateLimit, retryAfterMs, sleep } from './rate-limit.js';
import { type ResumeOptions, resumingEvents } from './stream.js';
import { type StreamEvent, type StreamParams, toStreamEvent } from './stream-events.js';

export interface ClientOptions {
  /** The server, e.g. `http://127.0.0.1:8080` (a path prefix is kept). */
  readonly baseUrl: string;
  /** An API key `gq_<id>_<secret>`; sent only in the Authorization header, never in a URL. */
  readonly key: string;
  /** The fetch to use; the platform's by default (Node 18+, browsers). */
  readonly fetch?: typeof fetch;
  /** Retries of a request answered 429 or 503, each after the server's Retry-After. Default 3. */
  readonly retries?: number;
  /** A Retry-After longer than this is not waited for: the error is thrown. Default 60000. */
  readonly maxRetryDelayMs?: number;
  /**
   * Waits before a request when the last answer's RateLimit header said the key's window is
   * spent (r=0), instead of sending it into a 429. Default true.
   */
  readonly paceRequests?: boolean;
  /** Called before each retry (for logs and progress displays). */
  readonly onRetry?: (info: RetryInfo) => void;
  /** Called before the client waits for the key's spent rate-limit window to reopen (paceRequests). */
  readonly onPause?: (delayMs: number) => void;
}

export interface RetryInfo {
  readonly operation: string;
  readonly status: number;
  readonly attempt: number;
  readonly delayMs: number;
}

export interface RequestOptions {
  readonly signal?: AbortSignal;
}

export interface RawRequestOptions extends RequestOptions {
  readonly format?: 'json' | 'csv';
  /** An ETag of an earlier answer: an unchanged answer is then a 304 without a body. */
  readonly ifNoneMatch?: string;
}

/** An answer as received: 200 with its body, or 304 (not modified) without one. */
export interface RawAnswer {
  readonly status: 200 | 304;
  readonly body: string;
  readonly etag: string | undefined;
  readonly headers: Headers;
}

/** A stream token: valid until `expires` (Unix time in seconds), `expires_in` seconds from issue. */
export interface StreamToken {
  readonly token: string;
  readonly expires: string;
  readonly expires_in: string;
}

/** Query parameter values as the client accepts them: omitted when undefined. */
type QueryValues = Readonly<Record<string, string | number | boolean | undefined>>;

/**
 * The parameters as sent, refusing names the operation does not define: a generic parameter
 * would otherwise let an object literal carry a typo (`dat:`) past the compiler.
 */
type Exactly<P, Allowed> = P & Record<Exclude<keyof P, keyof Allowed>, never>;

/** The answer of an operation whose envelope echoes the instrument parameter that was sent. */
type ByInstrument<R, P> = P extends { options: string }
  ? Extract<R, { options: string }>
  : P extends { market: string }
    ? Extract<R, { market: string }>
    : Extract<R, { futures: string }>;

export type MessagesResult<P extends MessagesParams> = P extends { type: 'custom_market' }
  ? Extract<MessagesResponse, { type: 'custom_market' }>
  : Extract<MessagesResponse, { type: 'message_board' | 'registered_trades' }>;

/** The datamine answer of each type: volume statistics by region, or open interest of a day. */
export interface DatamineResults {
  'au-volume': Extract<DatamineResponse, { data: { count: { nsw: unknown } } }>;
  'nz-volume': Extract<DatamineResponse, { data: { count: { otahuhu: unknown } } }>;
  'au-oi': Extract<DatamineResponse, { date: string }>;
}

/**
 * The gridquote API, one typed method per operation. JSON methods resolve to that operation's
 * own answer type (generated from the server's OpenAPI document); `csv` and `csvRows` fetch the
 * CSV form of any operation. Failures reject with a GridquoteError carrying the problem details.
 */
export class GridquoteClient {
  private readonly base: string;
  private readonly fetch: typeof fetch;
  private readonly retries: number;
  private readonly maxRetryDelayMs: number;
  /** When the key's spent window reopens (epoch ms), from the last RateLimit header with r=0. */
  private windowReopensAt = 0;

  constructor(private readonly options: ClientOptions) {
    this.base = options.baseUrl.replace(/\/+$/, '');
    // Bound, so the platform fetch is never called with this client as `this`.
    this.fetch = options.fetch ?? ((input, init) => globalThis.fetch(input, init));
    this.retries = options.retries ?? 3;
    this.maxRetryDelayMs = options.maxRetryDelayMs ?? 60_000;
  }

  ticker<P extends Operations['ticker']['params']>(
    params: Exactly<P, Operations['ticker']['params']>,
    options?: RequestOptions,
  ): Promise<ByInstrument<TickerResponse, P>> {
    return this.json('ticker', params, options) as Promise<ByInstrument<TickerResponse, P>>;
  }

  epi(
    params: Operations['epi']['params'] = {},
    options?: RequestOptions,
  ): Promise<Operations['epi']['response']> {
    return this.json('epi', params, options);
  }

  npi(
    params: Operations['npi']['params'] = {},
    options?: RequestOptions,
  ): Promise<Operations['npi']['response']> {
    return this.json('npi', params, options);
  }

  tradelog(
    params: Operations['tradelog']['params'],
    options?: RequestOptions,
  ): Promise<Operations['tradelog']['response']> {
    return this.json('tradelog', params, options);
  }

  messages<P extends MessagesParams>(
    params: Exactly<P, MessagesParams>,
    options?: RequestOptions,
  ): Promise<MessagesResult<P>> {
    return this.json('messages', params, options) as Promise<MessagesResult<P>>;
  }

  trades<P extends Operations['trades']['params']>(
    params: Exactly<P, Operations['trades']['params']>,
    options?: RequestOptions,
  ): Promise<ByInstrument<TradesResponse, P>> {
    return this.json('trades', params, options) as Promise<ByInstrument<TradesResponse, P>>;
  }

  data<P extends Operations['data']['params']>(
    params: Exactly<P, Operations['data']['params']>,
    options?: RequestOptions,
  ): Promise<ByInstrument<DataResponse, P>> {
    return this.json('data', params, options) as Promise<ByInstrument<DataResponse, P>>;
  }

  intraday<P extends Operations['intraday']['params']>(
    params: Exactly<P, Operations['intraday']['params']>,
    options?: RequestOptions,
  ): Promise<ByInstrument<IntradayResponse, P>> {
    return this.json('intraday', params, options) as Promise<ByInstrument<IntradayResponse, P>>;
  }

  datamine<P extends DatamineParams>(
    params: Exactly<P, DatamineParams>,
    options?: RequestOptions,
  ): Promise<DatamineResults[P['type']]> {
    return this.json('datamine', params, options) as Promise<DatamineResults[P['type']]>;
  }

  /** The CSV text of an operation, exactly as the server wrote it. */
  async csv<O extends OperationName>(
    operation: O,
    params: Operations[O]['params'],
    options?: RequestOptions,
  ): Promise<string> {
    return (await this.request(operation, params, { ...options, format: 'csv' })).body;
  }

  /** The CSV of an operation as rows of cells, the header first (messages: tab-separated). */
  async csvRows<O extends OperationName>(
    operation: O,
    params: Operations[O]['params'],
    options?: RequestOptions,
  ): Promise<string[][]> {
    return parseCsv(await this.csv(operation, params, options), operation === 'messages' ? '\t' : ',');
  }

  /**
   * One request as sent and answered (after retries): the body text, the ETag and the headers;
   * a 304 when `ifNoneMatch` names the current ETag. Any other status rejects with GridquoteError.
   */
  request<O extends OperationName>(
    operation: O,
    params: Operations[O]['params'],
    options: RawRequestOptions = {},
  ): Promise<RawAnswer> {
    return this.send(operation, OPERATIONS[operation].path, params as QueryValues, options);
  }

  /**
   * A short-lived stream token (GET /api/stream/token) for a browser's EventSource, which cannot
   * send the Authorization header; see eventSourceUrl. Keys themselves never go in a URL.
   */
  async streamToken(options?: RequestOptions): Promise<StreamToken> {
    const answer = await this.send('stream-token', '/api/stream/token', {}, { ...options, format: 'json' });
    return JSON.parse(answer.body) as StreamToken;
  }

  /** The URL of GET /api/stream for `new EventSource(url)`, authenticated by a stream token. */
  eventSourceUrl(params: StreamParams, token: string): string {
    return this.url('/api/stream', { ...(params as QueryValues), token });
  }

  private async send(
    operation: string,
    path: string,
    params: QueryValues,
    options: RawRequestOptions,
  ): Promise<RawAnswer> {
    const url = this.url(path, params);
    const headers: Record<string, string> = {
      authorization: `Bearer ${this.options.key}`,
      accept: options.format === 'csv' ? 'text/csv' : 'application/json',
    };
    if (options.ifNoneMatch !== undefined) headers['if-none-match'] = options.ifNoneMatch;
    for (let attempt = 0; ; attempt++) {
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
      if (delayMs === undefined) throw error;
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
  async *stream(params: StreamParams, options: ResumeOptions = {}): AsyncGenerator<StreamEvent> {
    const url = this.url('/api/stream', params as QueryValues);
    const open = (lastEventId: string | undefined, signal: AbortSignal) => {
      const headers: Record<string, string> = {
        authorization: `Bearer ${this.options.key}`,
        accept: 'text/event-stream',
      };
      if (lastEventId !== undefined && lastEventId !== '') headers['last-event-id'] = lastEventId;
      return this.fetch(url, { headers, signal });
    };
    for await (const message of resumingEvents(open, options)) {
      // Kinds newer than this client are skipped, so an older client keeps working.
      const event = toStreamEvent(message);
      if (event !== undefined) yield event;
    }
  }

  private async json<O extends OperationName>(
    operation: O,
    params: Operations[O]['params'],
    options?: RequestOptions,
  ): Promise<Operations[O]['response']> {
    const answer = await this.request(operation, params, { ...options, format: 'json' });
    return JSON.parse(answer.body) as Operations[O]['response'];
  }

  private url(path: string, params: QueryValues): string {
    const query = new URLSearchParams();
    for (const [name, value] of Object.entries(params)) {
      if (value !== undefined) query.append(name, String(value));
    }
    const search = query.toString();
    return `${this.base}${path}${search === '' ? '' : `?${search}`}`;
  }

  /** Retry-After (or a short backoff without one) for 429 and 503 within the budget; else undefined. */
  private retryDelay(response: Response, attempt: number): number | undefined {
    if ((response.status !== 429 && response.status !== 503) || attempt >= this.retries) return undefined;
    const delayMs = retryAfterMs(response.headers.get('retry-after')) ?? 1000 * 2 ** attempt;
    return delayMs > this.maxRetryDelayMs ? undefined : delayMs;
  }

  private noteRateLimit(headers: Headers): void {
    if (this.options.paceRequests === false) return;
    const state = parseRateLimit(headers.get('ratelimit'));
    if (state !== undefined && state.remaining === 0) {
      this.windowReopensAt = Math.max(this.windowReopensAt, Date.now() + state.resetSeconds * 1000);
    }
  }

  private async waitForWindow(signal: AbortSignal | undefined): Promise<void> {
    const wait = Math.min(this.windowReopensAt - Date.now(), this.maxRetryDelayMs);
    if (wait <= 0) return;
    this.options.onPause?.(wait);
    await sleep(wait, signal);
  }
}
