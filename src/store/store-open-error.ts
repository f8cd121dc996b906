/**
 * A store that cannot be opened or written for a reason the user can act on (missing, read-only,
 * locked by another writer, too old or too new): the message is one line that says which and
 * what to do, and the CLI prints it as is.
 */
export class StoreOpenError extends Error {
  override readonly name = 'StoreOpenError';
}

/** Another writer held the store's write lock for longer than this process would wait. */
export class StoreBusyError extends StoreOpenError {}
