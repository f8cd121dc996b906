/**
 * An incremental parser of `text/event-stream` (the WHATWG server-sent events format): feed it
 * decoded text in chunks of any size, it returns each event once its blank line has arrived.
 * Comments (`: heartbeat`) produce no event but count as activity for the caller.
 */
export interface SseMessage {
  /** The last event id seen so far (ids persist across events, as in EventSource). */
  readonly id: string;
  /** `event:` field; `message` when the server sent none. */
  readonly event: string;
  readonly data: string;
}

export class SseParser {
  private buffer = '';
  private lastEventId = '';
  private event = '';
  private data: string[] = [];
  private hasData = false;
  /** The server's `retry:` advice in milliseconds, if it sent one. */
  retryMs: number | undefined;

  constructor(lastEventId = '') {
    this.lastEventId = lastEventId;
  }

  push(chunk: string): SseMessage[] {
    this.buffer += chunk;
    const messages: SseMessage[] = [];
    for (;;) {
      const end = this.buffer.search(/\r\n|\r|\n/);
      if (end === -1) break;
      // A lone \r at the end of a chunk may be the first half of \r\n: wait for the next chunk.
      if (this.buffer[end] === '\r' && end === this.buffer.length - 1) break;
      const line = this.buffer.slice(0, end);
      this.buffer = this.buffer.slice(end + (this.buffer.startsWith('\r\n', end) ? 2 : 1));
      const message = this.line(line);
      if (message !== undefined) messages.push(message);
    }
    return messages;
  }

  private line(line: string): SseMessage | undefined {
    if (line === '') return this.dispatch();
    if (line.startsWith(':')) return undefined;
    const colon = line.indexOf(':');
    const field = colon === -1 ? line : line.slice(0, colon);
    let value = colon === -1 ? '' : line.slice(colon + 1);
    if (value.startsWith(' ')) value = value.slice(1);
    switch (field) {
      case 'event':
        this.event = value;
        break;
      case 'data':
        this.data.push(value);
        this.hasData = true;
        break;
      case 'id':
        if (!value.includes('\u0000')) this.lastEventId = value;
        break;
      case 'retry':
        if (/^\d+$/.test(value)) this.retryMs = Number(value);
        break;
      default:
        break;
    }
    return undefined;
  }

  private dispatch(): SseMessage | undefined {
    const message = this.hasData
      ? {
          id: this.lastEventId,
          event: this.event === '' ? 'message' : this.event,
          data: this.data.join('\n'),
        }
      : undefined;
    this.event = '';
    this.data = [];
    this.hasData = false;
    return message;
  }
}
