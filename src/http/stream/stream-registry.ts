import type { ExchangeClock } from '../../domain/exchange-clock.js';
import type { KeyStore } from '../../store/store.js';
import { refuse, usable } from '../auth.js';
import { HttpProblem, type Problem } from '../problems.js';
import type { EventStream } from './event-stream.js';
import { sseComment, sseRetry } from './sse.js';

/** What the registry asks about the keys of open streams. */
export interface StreamKeyCheck {
  readonly keys: Pick<KeyStore, 'findKey' | 'rememberedKey'>;
  readonly clock: ExchangeClock;
  /** How often each open stream's key is looked at again (default 1 s: revocation's promise, docs/operations.md). */
  readonly everyMs?: number;
}

/**
 * The open streams of one app: the per-key cap, the keys' validity while they stream, and
 * shutdown. A stream is authenticated once, when it opens, and never ends by itself: without a
 * second look, a key revoked or expired since would go on receiving the market for as long as its
 * connection lasts. So every second each key with an open stream is looked at again, as a
 * keep-alive connection's key is on its next request (connection-keys.ts), and the streams of a
 * key no longer usable end with its 401 problem in an `error` event.
 */
export class StreamRegistry {
  readonly #perKey = new Map<string, number>();
  readonly #byKey = new Map<string, Set<EventStream>>();
  #closing = false;
  #checker: NodeJS.Timeout | undefined;
  #checking = false;

  constructor(private readonly keyCheck: StreamKeyCheck) {}

  get closing(): boolean {
    return this.#closing;
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

  /** A stream of the key `keyId`, open; the function returned forgets it. */
  add(stream: EventStream, keyId: string): () => void {
    const streams = this.#byKey.get(keyId) ?? new Set<EventStream>();
    this.#byKey.set(keyId, streams);
    streams.add(stream);
    this.#startChecking();
    return () => {
      streams.delete(stream);
      if (streams.size === 0 && this.#byKey.get(keyId) === streams) this.#byKey.delete(keyId);
      if (this.#byKey.size === 0) this.#stopChecking();
    };
  }

  /** Shutdown: every stream ends now with a `retry:` hint, so clients come back (to another replica or the restarted server). */
  closeAll(retryMs: number): void {
    this.#closing = true;
    this.#stopChecking();
    for (const streams of [...this.#byKey.values()]) {
      for (const stream of [...streams]) stream.close(sseRetry(retryMs) + sseComment('server shutting down'));
    }
  }

  /** Looks at every streaming key once: the streams of one revoked, expired or deleted end. */
  async checkKeys(): Promise<void> {
    const check = this.keyCheck;
    if (this.#checking) return;
    this.#checking = true;
    try {
      for (const [keyId, streams] of [...this.#byKey]) {
        const refusal = await refusalOf(check, keyId);
        if (refusal === undefined) continue;
        for (const stream of [...streams]) stream.closeWithProblem(refusal);
      }
    } finally {
      this.#checking = false;
    }
  }

  #startChecking(): void {
    if (this.#checker !== undefined || this.#closing) return;
    this.#checker = setInterval(() => void this.checkKeys(), this.keyCheck.everyMs ?? 1_000);
    this.#checker.unref();
  }

  #stopChecking(): void {
    clearInterval(this.#checker);
    this.#checker = undefined;
  }
}

/** Why a key may no longer stream (its 401 problem), or undefined while it may, or while the store cannot say. */
async function refusalOf(check: StreamKeyCheck, keyId: string): Promise<Problem | undefined> {
  try {
    const record = check.keys.rememberedKey?.(keyId) ?? (await check.keys.findKey(keyId));
    if (record === undefined) return refuse('the API key no longer exists', 'invalid_token').problem;
    usable(record, check.clock);
    return undefined;
  } catch (error) {
    // A store that failed is not a key refused: the streams go on, and the next look may tell.
    return error instanceof HttpProblem ? error.problem : undefined;
  }
}
