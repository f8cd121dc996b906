import type { ExchangeClock } from '../domain/exchange-clock.js';
import type { ApiKeyRecord, KeyStore } from '../store/store.js';
import { usable } from './auth.js';

/**
 * The key each keep-alive connection last had verified. A poller sends the same Authorization
 * header on every request of its connection; authenticating it (auth.ts) parses the header,
 * copies the secret, compares it in constant time and waits a turn of the microtask queue for the
 * key store's promise, every time. Here a request that presents exactly the header its
 * connection's last verified request presented gets that key at once, provided the key store
 * still holds the very same record in memory (KeyStore.rememberedKey): a key created, changed or
 * revoked since is a new record there (within the store's recheck interval, as for any request),
 * so the request is authenticated the whole way again. Expiry is checked on every request.
 *
 * The header is compared with what the same connection sent before, so the comparison's time can
 * tell a client only about its own earlier header: it needs no constant-time comparison.
 */
export class ConnectionKeys {
  readonly #verified = new WeakMap<object, { readonly header: string; readonly record: ApiKeyRecord }>();

  constructor(
    private readonly keys: KeyStore,
    private readonly clock: ExchangeClock,
  ) {}

  /**
   * The key of a request on `connection`, when known at once; undefined when the request must be
   * authenticated (then remember() its key). Throws the 401 problem of a key expired since.
   */
  known(connection: object, header: string | undefined): ApiKeyRecord | undefined {
    const last = this.#verified.get(connection);
    if (last === undefined || last.header !== header) return undefined;
    if (this.keys.rememberedKey?.(last.record.id) !== last.record) return undefined;
    return usable(last.record, this.clock);
  }

  /** The key a request on `connection` was authenticated with, by `header`. */
  remember(connection: object, header: string, record: ApiKeyRecord): void {
    this.#verified.set(connection, { header, record });
  }
}
