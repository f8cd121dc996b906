import { HttpProblem } from '../problems.js';
import type { EventStream } from './event-stream.js';
import { sseComment, sseRetry } from './sse.js';

/** The open streams of one app: the per-key cap, and shutdown. */
export class StreamRegistry {
  readonly #perKey = new Map<string, number>();
  readonly #streams = new Set<EventStream>();
  #closing = false;

  get closing(): boolean {
    return this.#closing;
  }

  get size(): number {
    return this.#streams.size;
  }

  /**
   * Takes one of the key's stream slots, or refuses with a 429 whose Retry-After is the streams'
   * own reconnection hint (`retryMs`): a client whose stream was cut holds its slot until the
   * server notices, which a retry shortly after may find done. The release function gives the
   * slot back once.
   */
  reserve(keyId: string, cap: number, retryMs: number): () => void {
    const open = this.#perKey.get(keyId) ?? 0;
    if (open >= cap) {
      throw new HttpProblem({
        code: 'rate-limited',
        detail: `this API key already has ${open} open streams, the most it may hold; close one first`,
        headers: { 'retry-after': String(Math.max(1, Math.ceil(retryMs / 1000))) },
      });
    }
    this.#perKey.set(keyId, open + 1);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const left = (this.#perKey.get(keyId) ?? 1) - 1;
      if (left > 0) this.#perKey.set(keyId, left);
      else this.#perKey.delete(keyId);
    };
  }

  add(stream: EventStream): () => void {
    this.#streams.add(stream);
    return () => {
      this.#streams.delete(stream);
    };
  }

  /** Shutdown: every stream ends now with a `retry:` hint, so clients come back (to another replica or the restarted server). */
  closeAll(retryMs: number): void {
    this.#closing = true;
    for (const stream of [...this.#streams])
      stream.close(sseRetry(retryMs) + sseComment('server shutting down'));
  }
}
