export { GridquoteClient, } from './client.js';
export { parseCsv } from './csv.js';
export { addDays, eachDay, eachWeekday, isoDate, ymd } from './dates.js';
export { GridquoteError } from './errors.js';
export * from './openapi-types.js';
export { parseRateLimit, retryAfterMs } from './rate-limit.js';
export { SseParser } from './sse.js';
export { resumingEvents } from './stream.js';
//# sourceMappingURL=index.js.map