import type { FastifyInstance } from 'fastify';

export const SHUTDOWN_SIGNALS = ['SIGTERM', 'SIGINT'] as const;
export type ShutdownSignal = (typeof SHUTDOWN_SIGNALS)[number];

/** What the signal handlers attach to: the process, or an EventEmitter in tests. */
export interface SignalSource {
  on(event: ShutdownSignal, listener: () => void): unknown;
  off(event: ShutdownSignal, listener: () => void): unknown;
}

export interface DrainReport {
  /** Connections still open when the grace period ended, and so cut. */
  readonly forced: boolean;
}

/**
 * Closes the app gracefully: no new connections, requests in flight answered in full (see
 * DrainingServer), idle connections closed. After `graceMs`, or when `hurry` aborts, whatever
 * is still open is cut, so that a stuck client cannot hold the shutdown. Resolves once every
 * connection is closed.
 */
export async function drainApp(
  app: FastifyInstance,
  graceMs: number,
  hurry?: AbortSignal,
): Promise<DrainReport> {
  let forced = false;
  const cut = () => {
    forced = true;
    app.server.closeAllConnections();
  };
  const timer = setTimeout(cut, graceMs);
  if (hurry?.aborted) cut();
  else hurry?.addEventListener('abort', cut, { once: true });
  try {
    await app.close();
  } finally {
    clearTimeout(timer);
    hurry?.removeEventListener('abort', cut);
  }
  return { forced };
}

export interface Stoppable {
  /**
   * The orderly stop: drain within the grace period, then release everything (store, feed).
   * `hurry` aborts when the operator does not want to wait: cut the connections now.
   */
  stop(hurry: AbortSignal): Promise<DrainReport>;
  /** Settles with the reason if the service cannot go on by itself (the demo's exchange claim lost). */
  readonly failed?: Promise<string>;
}

/**
 * Waits for SIGTERM or SIGINT (or the service's failure), then stops the service and resolves
 * when it has stopped. While it stops, a further signal hurries it instead of killing the
 * process, so the store is still closed properly. Resolves with the failure's reason when the
 * service failed (logged here; the caller exits non-zero), else undefined (the process exits 0).
 */
export async function runUntilSignal(
  service: Stoppable,
  log: (line: string) => void,
  graceMs: number,
  signals: SignalSource = process,
): Promise<string | undefined> {
  let removeHandlers: () => void = () => undefined;
  const cause = await new Promise<{ readonly signal: ShutdownSignal } | { readonly failure: string }>(
    (resolve) => {
      const handlers = SHUTDOWN_SIGNALS.map((name) => {
        const handler = () => resolve({ signal: name });
        signals.on(name, handler);
        return [name, handler] as const;
      });
      removeHandlers = () => {
        for (const [name, handler] of handlers) signals.off(name, handler);
      };
      service.failed?.then((failure) => resolve({ failure }));
    },
  );
  removeHandlers();
  const failure = 'failure' in cause ? cause.failure : undefined;
  log(
    'signal' in cause
      ? `${cause.signal}: stopping; requests in flight have ${graceMs} ms to finish`
      : `${cause.failure}; stopping, requests in flight have ${graceMs} ms to finish`,
  );
  const hurry = new AbortController();
  const again = () => {
    log('signal received again: closing open connections now');
    hurry.abort();
  };
  for (const name of SHUTDOWN_SIGNALS) signals.on(name, again);
  try {
    const report = await service.stop(hurry.signal);
    log(report.forced ? 'stopped; connections still open after the grace period were cut' : 'stopped');
  } finally {
    for (const name of SHUTDOWN_SIGNALS) signals.off(name, again);
  }
  return failure;
}
