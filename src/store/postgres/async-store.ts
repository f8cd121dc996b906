import type * as Sync from '../store.js';

/**
 * TEMPORARY: the asynchronous store contract as the async work shapes it (every method a
 * promise, the event log an async iterable, day revisions), until that change lands in
 * store.ts; then this file goes and the adapter imports store.ts.
 */
type Promised<T> = {
  [K in keyof T]: T[K] extends (...args: infer A) => infer R ? (...args: A) => Promise<R> : T[K];
};

export interface MarketReader extends Promised<Sync.MarketReader> {
  dayRevisions(since?: number): Promise<Map<string, number>>;
}
export interface WriteBatch extends Promised<Sync.WriteBatch> {}
export interface MarketWriter {
  append(events: readonly Sync.ValidatedEvent[]): Promise<Sync.AppendResult>;
  begin(): Promise<WriteBatch>;
}
export interface EventLog {
  lines(query?: { date?: string }): AsyncIterable<string>;
}
export interface KeyStore extends Promised<Sync.KeyStore> {}
export interface AppendNotice extends Sync.AppendNotice {
  readonly revisions: ReadonlyMap<string, number>;
}
export interface MarketStore {
  readonly reader: MarketReader;
  readonly writer: MarketWriter;
  readonly events: EventLog;
  readonly keys: KeyStore;
  onAppend(listener: (notice: AppendNotice) => void): () => void;
  close(): Promise<void>;
}
