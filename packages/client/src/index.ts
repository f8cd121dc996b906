export {
  type ClientOptions,
  type DatamineResults,
  GridquoteClient,
  type MessagesResult,
  type RawAnswer,
  type RawRequestOptions,
  type RequestOptions,
  type RetryInfo,
  type StreamToken,
} from './client.js';
export { type ParseCsvOptions, parseCsv } from './csv.js';
export { addDays, eachDay, eachWeekday, isoDate, ymd } from './dates.js';
export { GridquoteError } from './errors.js';
export * from './openapi-types.js';
export { parseRateLimit, type RateLimitState, retryAfterMs } from './rate-limit.js';
export { type SseMessage, SseParser } from './sse.js';
export { type OpenStream, type ResumeOptions, resumingEvents } from './stream.js';
export type {
  BoardMessage,
  CustomMarketRecord,
  StreamEvent,
  StreamParams,
  TickerMessage,
} from './stream-events.js';
