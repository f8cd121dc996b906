/**
 * Server-sent events framing (the HTML standard's text/event-stream): a few lines per event,
 * too small for a library. Field values here never hold a line break except `data`, which is
 * split into one `data:` line per line, so the client joins it back exactly.
 */

export const SSE_CONTENT_TYPE = 'text/event-stream; charset=utf-8';

export interface SseEvent {
  readonly event: string;
  readonly data: string;
  readonly id?: string;
}

const LINE_BREAK = /\r\n|\r|\n/;

export function sseEvent(message: SseEvent): string {
  let frame = '';
  if (message.id !== undefined) frame += `id: ${singleLine(message.id)}\n`;
  frame += `event: ${singleLine(message.event)}\n`;
  for (const line of message.data.split(LINE_BREAK)) frame += `data: ${line}\n`;
  return `${frame}\n`;
}

/** A comment line: ignored by clients, it keeps proxies and the idle timeout from closing the stream. */
export function sseComment(text: string): string {
  return `: ${singleLine(text)}\n\n`;
}

/** How long the client should wait before reconnecting (the EventSource `retry` field). */
export function sseRetry(milliseconds: number): string {
  return `retry: ${Math.max(0, Math.round(milliseconds))}\n\n`;
}

function singleLine(text: string): string {
  if (LINE_BREAK.test(text)) throw new RangeError('an SSE field other than data must be one line');
  return text;
}
