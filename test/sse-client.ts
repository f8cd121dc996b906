import { type IncomingMessage, request } from 'node:http';
import { waitFor } from './wait-for.js';

/** One received server-sent event (comments and retry hints are kept apart). */
export interface ReceivedEvent {
  readonly id: string | undefined;
  readonly event: string;
  readonly data: string;
}

/**
 * A minimal EventSource for tests over node:http: it parses the stream as it arrives, keeps
 * every event, comment and retry hint, and can be cut at any moment (`destroy`), like a client
 * losing its connection. It does not reconnect by itself: a test decides when and with which id.
 */
export class SseClient {
  readonly events: ReceivedEvent[] = [];
  readonly comments: string[] = [];
  readonly retries: number[] = [];
  status = 0;
  headers: IncomingMessage['headers'] = {};
  body = '';
  ended = false;
  #buffer = '';
  #response: IncomingMessage | undefined;
  readonly #request;

  constructor(url: string, headers: Readonly<Record<string, string>> = {}) {
    this.#request = request(url, { headers: { accept: 'text/event-stream', ...headers } }, (response) => {
      this.#response = response;
      this.status = response.statusCode ?? 0;
      this.headers = response.headers;
      response.setEncoding('utf8');
      response.on('data', (chunk: string) => {
        this.body += chunk;
        if (this.status === 200) this.#parse(chunk);
      });
      response.on('end', () => {
        this.ended = true;
      });
      response.on('close', () => {
        this.ended = true;
      });
    });
    this.#request.on('error', () => {
      this.ended = true;
    });
    this.#request.end();
  }

  get lastId(): string | undefined {
    return this.events.filter((event) => event.id !== undefined).at(-1)?.id;
  }

  async started(): Promise<this> {
    await waitFor('the response head', () => this.status !== 0 || this.ended);
    return this;
  }

  async until(what: string, probe: (client: this) => boolean): Promise<this> {
    await waitFor(what, () => probe(this));
    return this;
  }

  /** Stops reading: the server's writes pile up in the socket buffers, then in its queue. */
  pause(): void {
    this.#response?.pause();
  }

  /** Reads again after pause(). */
  resume(): void {
    this.#response?.resume();
  }

  destroy(): void {
    this.#request.destroy();
    this.ended = true;
  }

  #parse(chunk: string): void {
    this.#buffer += chunk;
    for (;;) {
      const end = this.#buffer.indexOf('\n\n');
      if (end < 0) return;
      const block = this.#buffer.slice(0, end);
      this.#buffer = this.#buffer.slice(end + 2);
      let id: string | undefined;
      let event = 'message';
      const data: string[] = [];
      let isEvent = false;
      for (const line of block.split('\n')) {
        if (line.startsWith(':')) this.comments.push(line.slice(1).trim());
        else if (line.startsWith('retry: ')) this.retries.push(Number(line.slice(7)));
        else if (line.startsWith('id: ')) id = line.slice(4);
        else if (line.startsWith('event: ')) {
          event = line.slice(7);
          isEvent = true;
        } else if (line.startsWith('data: ')) {
          data.push(line.slice(6));
          isEvent = true;
        }
      }
      if (isEvent) this.events.push({ id, event, data: data.join('\n') });
    }
  }
}
